import { z } from 'zod';
import { address as toAddress, getAddressEncoder, getBase58Encoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getMintSize, getTokenDecoder, getTokenSize } from '@solana-program/token';
import type { SimLedger } from '../ledger.js';
import { uiTokenAmount } from '../../rpc-shapes.js';
import { encodeAccount, programAccounts, type AccountFilter } from './accounts.js';
import { RpcError } from './error.js';
import { rpcMethod, type SimRpcMethod } from './method.js';
import { accountConfig, address } from './params.js';

const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

const programAccountsConfig = accountConfig
  .extend({
    withContext: z.boolean().optional(),
    filters: z
      .array(
        z.union([
          z.object({ dataSize: z.number().int().min(0) }),
          z.object({
            memcmp: z.object({
              offset: z.number().int().min(0),
              bytes: z.string().max(1_000),
              encoding: z.enum(['base58', 'base64']).optional(),
            }),
          }),
        ]),
      )
      .max(4)
      .optional(),
  })
  .loose();
type ProgramAccountsFilter = NonNullable<z.infer<typeof programAccountsConfig>['filters']>[number];

/** Accounts: balances, data, token accounts and mints, and what a program owns (as a cluster's indexes find them). */
export const accountMethods: Record<string, SimRpcMethod> = {
  getBalance: rpcMethod(z.tuple([address]).rest(z.unknown()), ({ ledger, withContext }, [key]) =>
    withContext(ledger.svm.getBalance(toAddress(key)) ?? 0n),
  ),
  getAccountInfo: rpcMethod(z.tuple([address, accountConfig.optional()]), ({ ledger, withContext }, [key, config]) =>
    withContext(encodeAccount(ledger, key, config)),
  ),
  getMultipleAccounts: rpcMethod(
    z.tuple([z.array(address).max(100), accountConfig.optional()]),
    ({ ledger, withContext }, [keys, config]) =>
      withContext(keys.map((key) => encodeAccount(ledger, key, { encoding: 'base64', ...config }))),
  ),
  getTokenAccountBalance: rpcMethod(z.tuple([address]).rest(z.unknown()), ({ ledger, withContext }, [key]) => {
    const token = getTokenDecoder().decode(tokenProgramData(ledger, key, getTokenSize(), 'Token account'));
    return withContext(uiTokenAmount(token.amount, ledger.decimalsOf(token.mint)));
  }),
  getTokenSupply: rpcMethod(z.tuple([address]).rest(z.unknown()), ({ ledger, withContext }, [key]) => {
    const mint = getMintDecoder().decode(tokenProgramData(ledger, key, getMintSize(), 'Token mint'));
    return withContext(uiTokenAmount(mint.supply, mint.decimals));
  }),
  getTokenAccountsByOwner: rpcMethod(
    z.tuple([address, z.union([z.object({ mint: address }), z.object({ programId: address })]), accountConfig.optional()]),
    ({ ledger, withContext }, [owner, filter, config]) => {
      // SPL Token only: the embedded chain has no Token-2022 accounts; another program is no token program.
      if ('programId' in filter && filter.programId === TOKEN_2022_PROGRAM) return withContext([]);
      if ('programId' in filter && filter.programId !== TOKEN_PROGRAM_ADDRESS)
        throw new RpcError(-32602, 'Invalid param: unrecognized Token program id');
      const filters: AccountFilter[] = [{ dataSize: getTokenSize() }, { memcmp: { offset: 32, bytes: addressBytes(owner) } }];
      if ('mint' in filter) filters.push({ memcmp: { offset: 0, bytes: addressBytes(filter.mint) } });
      return withContext(programAccounts(ledger, TOKEN_PROGRAM_ADDRESS, filters, config));
    },
  ),
  getProgramAccounts: rpcMethod(z.tuple([address, programAccountsConfig.optional()]), ({ ledger, withContext }, [program, config]) => {
    const found = programAccounts(ledger, program, (config?.filters ?? []).map(accountFilter), config);
    return config?.withContext ? withContext(found) : found;
  }),
};

/** The data of an SPL Token account or mint (by its size); -32602 "not a …" for anything else. */
function tokenProgramData(ledger: SimLedger, key: string, size: number, what: string): Uint8Array {
  const account = ledger.account(key);
  if (!account.exists || account.programAddress !== TOKEN_PROGRAM_ADDRESS || account.data.length !== size) {
    throw new RpcError(-32602, `Invalid param: not a ${what}`);
  }
  return account.data;
}

const addressBytes = (key: string): Uint8Array => new Uint8Array(getAddressEncoder().encode(toAddress(key)));

/** A getProgramAccounts filter as asked (memcmp bytes in base58 or base64) read into bytes. */
function accountFilter(filter: ProgramAccountsFilter): AccountFilter {
  if ('dataSize' in filter) return { dataSize: filter.dataSize };
  const { offset, bytes, encoding } = filter.memcmp;
  try {
    return {
      memcmp: {
        offset,
        bytes: encoding === 'base64' ? new Uint8Array(Buffer.from(bytes, 'base64')) : new Uint8Array(getBase58Encoder().encode(bytes)),
      },
    };
  } catch {
    throw new RpcError(-32602, 'Invalid param: a memcmp filter whose bytes cannot be decoded');
  }
}
