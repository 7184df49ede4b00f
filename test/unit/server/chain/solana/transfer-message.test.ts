import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { KeyObject, randomBytes, sign } from 'node:crypto';
import {
  appendTransactionMessageInstructions,
  compileTransactionMessage,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  blockhash as toBlockhash,
  type Address,
  type KeyPairSigner,
} from '@solana/kit';
import { signedUsdcTransfer, usdcTransferMessage } from '../../../../../server/chain/solana/transfer-message.js';
import { usdcTransferInstructions } from '../../../../../server/chain/solana/usdc-transfer.js';
import { readWireTransaction } from '../../../../../server/chain/solana/wire-transaction.js';

const signers = await Promise.all(Array.from({ length: 4 }, () => generateKeyPairSigner()));
const [mint, ...wallets] = signers as [KeyPairSigner, ...KeyPairSigner[]];
const byAddress = new Map(signers.map((signer) => [signer.address, signer]));
const syncSign = async (address: Address) => {
  const key = KeyObject.from(byAddress.get(address)!.keyPair.privateKey);
  return (message: Uint8Array) => new Uint8Array(sign(null, message, key));
};

const partsArb = fc.record({
  from: fc.constantFrom(...wallets),
  to: fc.constantFrom(...wallets),
  feePayer: fc.constantFrom(...wallets),
  amount: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  memo: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }),
  reference: fc.option(fc.string({ minLength: 1, maxLength: 40 }), { nil: undefined }),
  createRecipientAccount: fc.boolean(),
  blockhash: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => getBase58Decoder().decode(bytes)),
});

/** The same transfer the way kit builds, compiles, signs and encodes it. */
type Parts = typeof partsArb extends fc.Arbitrary<infer T> ? T : never;

async function byKit(parts: Parts) {
  const reference = parts.reference ?? parts.memo;
  const instructions = await usdcTransferInstructions({
    mint: mint.address,
    from: parts.from,
    to: parts.to.address,
    amount: parts.amount,
    memo: parts.memo,
    reference,
    feePayer: parts.feePayer,
    createRecipientAccount: parts.createRecipientAccount,
  });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(parts.feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(parts.blockhash), lastValidBlockHeight: 9n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransactionMessage(message);
  return {
    bytes: new Uint8Array(getCompiledTransactionMessageEncoder().encode(compiled)),
    signed: await signTransactionMessageWithSigners(message),
  };
}

const ours = (parts: Parts) => ({
  mint: mint.address,
  from: parts.from.address,
  to: parts.to.address,
  feePayer: parts.feePayer.address,
  amount: parts.amount,
  memo: parts.memo,
  reference: parts.reference ?? parts.memo,
  createRecipientAccount: parts.createRecipientAccount,
});

describe('a Coffer transfer assembled from its compiled shape', () => {
  it('is byte for byte the message kit compiles for the same instructions, whatever the amount, memo and blockhash', async () => {
    await fc.assert(
      fc.asyncProperty(partsArb, async (parts) => {
        const { message } = await usdcTransferMessage(ours(parts), parts.blockhash);
        expect(Buffer.from(message).toString('hex')).toBe(Buffer.from((await byKit(parts)).bytes).toString('hex'));
      }),
      { numRuns: 150 },
    );
  });

  it('signs to the very transaction kit signs (same wire bytes, same signature), and the wire reader reads it as kit does', async () => {
    await fc.assert(
      fc.asyncProperty(partsArb, async (parts) => {
        const prepared = await signedUsdcTransfer(ours(parts), { blockhash: parts.blockhash, lastValidBlockHeight: 9n }, syncSign);
        const { signed } = await byKit(parts);
        expect(prepared.txWire).toBe(getBase64EncodedWireTransaction(signed));
        expect(prepared.txSignature).toBe(getSignatureFromTransaction(signed));
        expect(prepared.lifetimeEnd).toBe(9n);

        const read = readWireTransaction(new Uint8Array(Buffer.from(prepared.txWire, 'base64')));
        const decoded = getCompiledTransactionMessageDecoder().decode(
          getTransactionDecoder().decode(Buffer.from(prepared.txWire, 'base64')).messageBytes,
        );
        expect(read.signature).toBe(prepared.txSignature);
        expect(read.signatureCount).toBe(Object.keys(signed.signatures).length);
        expect(read.version).toBe(0);
        expect(read.accountKeys).toEqual(decoded.staticAccounts);
        expect(read.blockhash).toBe(parts.blockhash);
        const { numSignerAccounts: s, numReadonlySignerAccounts: rs, numReadonlyNonSignerAccounts: rn } = decoded.header;
        const n = decoded.staticAccounts.length;
        expect(read.writable).toEqual(decoded.staticAccounts.map((_, i) => i).filter((i) => (i < s ? i < s - rs : i < n - rn)));
      }),
      { numRuns: 60 },
    );
  });

  it('refuses an amount that is not a u64 rather than wrap it', async () => {
    const parts = {
      ...ours({
        from: wallets[0]!,
        to: wallets[1]!,
        feePayer: wallets[2]!,
        amount: 2n ** 64n,
        memo: 'm',
        reference: undefined,
        createRecipientAccount: false,
        blockhash: '',
      }),
    };
    await expect(usdcTransferMessage(parts, getBase58Decoder().decode(new Uint8Array(32)))).rejects.toThrow(RangeError);
    await expect(usdcTransferMessage({ ...parts, amount: -1n }, getBase58Decoder().decode(new Uint8Array(32)))).rejects.toThrow(RangeError);
  });
});

describe('the wire reader', () => {
  it('reads a legacy transaction and refuses bytes that are not a transaction', async () => {
    const [payer] = wallets;
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(payer!, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: toBlockhash(getBase58Decoder().decode(randomBytes(32))), lastValidBlockHeight: 1n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstructions(
          [{ programAddress: wallets[1]!.address, accounts: [{ address: wallets[2]!.address, role: 1 }], data: new Uint8Array([1, 2]) }],
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    const read = readWireTransaction(new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(signed), 'base64')));
    expect(read.version).toBe('legacy');
    expect(read.signature).toBe(getSignatureFromTransaction(signed));
    expect(read.accountKeys).toEqual([payer!.address, wallets[2]!.address, wallets[1]!.address]);
    expect(read.writable).toEqual([0, 1]);

    for (const bytes of [
      new Uint8Array(),
      new Uint8Array([0]),
      new Uint8Array([1, ...new Uint8Array(10)]),
      new Uint8Array([0xff, 0xff, 0xff, 0xff]),
    ]) {
      expect(() => readWireTransaction(bytes)).toThrow();
    }
  });
});
