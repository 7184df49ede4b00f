import {
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTransferCheckedInstruction } from '@solana-program/token';
import { describe, expect, it } from 'vitest';
import {
  decodeSimTransaction,
  encodeSimTransaction,
  firstSignatureBytes,
  type SimKeys,
} from '../../../../../../server/chain/solana/sim/transaction-codec.js';
import { readWireTransaction } from '../../../../../../server/chain/solana/wire-transaction.js';
import { uiTokenAmount } from '../../../../../../server/chain/solana/rpc-shapes.js';
import { MEMO_PROGRAM_ADDRESS } from '../../../../../../server/chain/solana/usdc-transfer.js';
import type { SimTransactionMeta } from '../../../../../../server/chain/solana/sim/ledger.js';

/** Numbers for addresses, as sim_keys gives them. */
function memoryKeys(): SimKeys & { size(): number } {
  const ids = new Map<string, number>();
  const addresses: string[] = [];
  return {
    idOf: (address) => ids.get(address) ?? (ids.set(address, addresses.push(address)), addresses.length),
    addressOf: (id) =>
      addresses[id - 1] ??
      (() => {
        throw new Error(`no address ${id}`);
      })(),
    size: () => addresses.length,
  };
}

/** A /pay's transaction: the treasury pays the fee, the agent moves USDC and says its memo. */
async function payment(version: 0 | 'legacy') {
  const [treasury, agent, seller, mint] = await Promise.all([1, 2, 3, 4].map(() => generateKeyPairSigner()));
  const ata = async (owner: string) =>
    (await findAssociatedTokenPda({ mint: mint!.address, owner: owner as never, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const [source, destination] = [await ata(agent!.address), await ata(seller!.address)];
  const signed = await pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(treasury!, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash('4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi'), lastValidBlockHeight: 150n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getTransferCheckedInstruction({ source, mint: mint!.address, destination, authority: agent!, amount: 10_000n, decimals: 6 }),
          getAddMemoInstruction({ memo: 'pay_YNyQFo75ycWkz9dUUv3ET1' }, { programAddress: MEMO_PROGRAM_ADDRESS }),
        ],
        m,
      ),
    (m) => signTransactionMessageWithSigners(m),
  );
  const wire = Buffer.from(getBase64EncodedWireTransaction(signed), 'base64');
  const read = readWireTransaction(new Uint8Array(wire));
  const balance = (accountIndex: number, owner: string, amount: bigint) => ({
    accountIndex,
    mint: mint!.address,
    owner,
    programId: TOKEN_PROGRAM_ADDRESS,
    uiTokenAmount: uiTokenAmount(amount, 6),
  });
  const sourceIndex = read.accountKeys.indexOf(source);
  const destinationIndex = read.accountKeys.indexOf(destination);
  const meta: SimTransactionMeta = {
    err: null,
    fee: 10_000,
    logMessages: [
      `Program ${TOKEN_PROGRAM_ADDRESS} invoke [1]`,
      `Program ${TOKEN_PROGRAM_ADDRESS} consumed 105 of 595563 compute units`,
      `Program ${TOKEN_PROGRAM_ADDRESS} success`,
      `Program ${MEMO_PROGRAM_ADDRESS} invoke [1]`,
      'Program log: Memo (len 26)',
      'Program log: pay_YNyQFo75ycWkz9dUUv3ET1',
    ],
    computeUnitsConsumed: 392,
    accountKeys: read.accountKeys,
    preTokenBalances: [balance(sourceIndex, agent!.address, 479_010_000n), balance(destinationIndex, seller!.address, 20_990_000n)],
    postTokenBalances: [balance(sourceIndex, agent!.address, 479_000_000n), balance(destinationIndex, seller!.address, 21_000_000n)],
  };
  return { wire, meta, accountKeyBytes: read.accountKeyBytes };
}

describe("the embedded chain's stored transactions", () => {
  for (const version of [0, 'legacy'] as const) {
    it(`give back the same wire bytes and metadata (${version === 0 ? 'v0' : 'legacy'} message), its signature first`, async () => {
      const { wire, meta, accountKeyBytes } = await payment(version);
      const keys = memoryKeys();
      const body = encodeSimTransaction(wire, meta.accountKeys, meta, keys);
      expect(decodeSimTransaction(body, keys)).toEqual({ wire, meta });
      expect(Buffer.from(firstSignatureBytes(body))).toEqual(wire.subarray(1, 65));
      // Addresses are kept once, by number, not in every transaction.
      for (const key of accountKeyBytes) expect(body.includes(Buffer.from(key))).toBe(false);
    });
  }

  it('keep a failure, the logs of any program and balances of owners the transaction does not name', async () => {
    const { wire, meta } = await payment(0);
    const failed: SimTransactionMeta = {
      ...meta,
      err: { InstructionError: [0, { Custom: 1 }] },
      logMessages: [
        'Program log: Error: insufficient funds',
        'Program SomeOtherProgram1111111111111111111111111 failed: custom program error: 0x1',
        'ünïcode ✓',
      ],
      preTokenBalances: [{ ...meta.preTokenBalances[0]!, owner: 'BPFLoaderUpgradeab1e11111111111111111111111' }],
      postTokenBalances: [],
    };
    const keys = memoryKeys();
    expect(decodeSimTransaction(encodeSimTransaction(wire, meta.accountKeys, failed, keys), keys)).toEqual({ wire, meta: failed });
  });

  it("refuse account keys that are not the transaction's, and a body of an unknown format", async () => {
    const { wire, meta } = await payment(0);
    expect(() => encodeSimTransaction(wire, meta.accountKeys.slice(1), meta, memoryKeys())).toThrow(/account keys/);
    const keys = memoryKeys();
    const body = encodeSimTransaction(wire, meta.accountKeys, meta, keys);
    body[0] = 9;
    expect(() => decodeSimTransaction(body, keys)).toThrow(/unknown format/);
  });
});
