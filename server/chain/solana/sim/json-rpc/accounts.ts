import { getBase58Decoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getMintSize, getTokenDecoder, getTokenSize } from '@solana-program/token';
import type { SimLedger } from '../ledger.js';
import { uiTokenAmount } from '../../rpc-shapes.js';
import { RpcError } from './error.js';
import type { AccountConfig } from './params.js';

/** Accounts of the embedded chain as Solana's JSON-RPC writes them (getAccountInfo, getProgramAccounts, accountSubscribe). */

export type AccountFilter = { dataSize: number } | { memcmp: { offset: number; bytes: Uint8Array } };

/** The accounts a program owns that pass every filter, each as `{pubkey, account}`, in address order. */
export function programAccounts(ledger: SimLedger, program: string, filters: AccountFilter[], config: AccountConfig | undefined) {
  const passes = (data: Uint8Array) =>
    filters.every((filter) =>
      'dataSize' in filter
        ? data.length === filter.dataSize
        : filter.memcmp.offset + filter.memcmp.bytes.length <= data.length &&
          Buffer.from(data.subarray(filter.memcmp.offset, filter.memcmp.offset + filter.memcmp.bytes.length)).equals(filter.memcmp.bytes),
    );
  return ledger
    .accountsOwnedBy(program)
    .filter((account) => passes(account.data))
    .sort((a, b) => (a.address < b.address ? -1 : 1))
    .map((account) => ({ pubkey: account.address, account: encodeAccount(ledger, account.address, config) }))
    .filter((entry) => entry.account !== null);
}

export function encodeAccount(ledger: SimLedger, key: string, config: AccountConfig | undefined) {
  const account = ledger.account(key);
  if (!account.exists) return null;
  const encoding = config?.encoding ?? 'base58';
  const whole = new Uint8Array(account.data);
  const base = {
    executable: account.executable,
    lamports: account.lamports,
    owner: account.programAddress,
    rentEpoch: 0n,
    space: BigInt(whole.length),
  };
  if (encoding === 'jsonParsed' && config?.dataSlice === undefined) {
    const parsed = parseTokenProgramAccount(ledger, account.programAddress, whole);
    if (parsed !== null) return { ...base, data: parsed };
  }
  const slice = config?.dataSlice;
  const data = slice === undefined ? whole : whole.subarray(slice.offset, slice.offset + slice.length);
  if (encoding === 'base58') return { ...base, data: [getBase58Decoder().decode(data), 'base58'] };
  if (encoding === 'base64+zstd') throw new RpcError(-32602, 'Invalid param: base64+zstd is not supported here; ask for base64');
  return { ...base, data: [Buffer.from(data).toString('base64'), 'base64'] };
}

/** The `jsonParsed` form of SPL Token mints and accounts, as a node gives it; null for anything else. */
function parseTokenProgramAccount(ledger: SimLedger, owner: string, data: Uint8Array) {
  if (owner !== TOKEN_PROGRAM_ADDRESS) return null;
  if (data.length === getTokenSize()) {
    const token = getTokenDecoder().decode(data);
    return {
      program: 'spl-token',
      space: BigInt(data.length),
      parsed: {
        type: 'account',
        info: {
          isNative: token.isNative.__option === 'Some',
          mint: token.mint,
          owner: token.owner,
          state: ['uninitialized', 'initialized', 'frozen'][token.state] ?? 'initialized',
          tokenAmount: uiTokenAmount(token.amount, ledger.decimalsOf(token.mint)),
        },
      },
    };
  }
  if (data.length === getMintSize()) {
    const mint = getMintDecoder().decode(data);
    return {
      program: 'spl-token',
      space: BigInt(data.length),
      parsed: {
        type: 'mint',
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority.__option === 'Some' ? mint.freezeAuthority.value : null,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority.__option === 'Some' ? mint.mintAuthority.value : null,
          supply: mint.supply.toString(),
        },
      },
    };
  }
  return null;
}
