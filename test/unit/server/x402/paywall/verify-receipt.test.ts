import { describe, expect, it } from 'vitest';
import { address, generateKeyPairSigner, getBase58Decoder, signBytes, type KeyPairSigner } from '@solana/kit';
import { encodeReceipt, receiptProofMessage } from '../../../../../server/wire/receipts.js';
import { usdcTokenAccount } from '../../../../../server/chain/solana/usdc-transfer.js';
import type { TransferFound, TransferLookup } from '../../../../../server/core/ports/chain.js';
import { openPaywallStore } from '../../../../../server/x402/paywall/paywall-store.js';
import { createNonces } from '../../../../../server/x402/paywall/nonces.js';
import { isNonceShaped } from '../../../../../server/wire/paywall-nonce.js';
import { verifyReceipt, type ReceiptContext } from '../../../../../server/x402/paywall/verify-receipt.js';

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TX = '5'.repeat(87);
const DAY = 24 * 60 * 60 * 1000;

/** A payment made without a nonce (memo = its payment id), its receipt signed by its payer. */
async function paidWithoutNonce(payer: KeyPairSigner, recipient: string, blockTime: number | null) {
  const claims = {
    v: 1 as const,
    network: 'sim',
    txSignature: TX,
    amount: '0.01',
    currency: 'USDC' as const,
    timestamp: new Date().toISOString(),
    recipient,
    payer: payer.address,
    paymentId: 'pay_abc',
    memo: 'pay_abc',
  };
  const proof = getBase58Decoder().decode(await signBytes(payer.keyPair.privateKey, receiptProofMessage(claims)));
  const transfer: TransferFound = {
    txSignature: TX,
    succeeded: true,
    error: null,
    from: payer.address,
    toTokenAccount: await usdcTokenAccount(address(MINT), address(recipient)),
    to: recipient,
    mint: MINT,
    amount: 10_000n,
    memo: 'pay_abc',
    blockTime,
    slot: 1n,
  };
  return { header: encodeReceipt({ ...claims, proof }), transfer };
}

describe('verifyReceipt, a payment made without a nonce', () => {
  const setup = async (blockTime: number | null) => {
    const payer = await generateKeyPairSigner();
    const recipient = (await generateKeyPairSigner()).address;
    const paid = await paidWithoutNonce(payer, recipient, blockTime);
    const lookup: TransferLookup = { network: 'sim', usdc: MINT, findTransfer: () => Promise.resolve(paid.transfer) };
    const store = openPaywallStore(':memory:');
    const context = (now: number): ReceiptContext => ({
      resource: 'GET /weather',
      price: 10_000n,
      recipient,
      lookup,
      store,
      nonces: createNonces(store.nonceKey),
      now,
      withoutNonce: { maxAgeSeconds: 300 },
    });
    return { header: paid.header, store, context };
  };
  const landed = 1_800_000_000;

  it('is taken once, then remembered until long after it could be taken again: pruning reopens no replay', async () => {
    const { header, store, context } = await setup(landed);
    const now = landed * 1000 + 10_000;
    expect(await verifyReceipt(header, context(now))).toMatchObject({ ok: true, payment: { txSignature: TX, nonce: '' } });
    expect(await verifyReceipt(header, context(now))).toMatchObject({ ok: false, code: 'receipt_already_used' });
    // Kept until a day after its window (300 s and the clock skew) closes; by then it is expired.
    const windowEnd = landed * 1000 + 420_000;
    store.prune(windowEnd + DAY - 1);
    expect(store.isAccepted(TX)).toBe(true);
    store.prune(windowEnd + DAY + 1);
    expect(store.isAccepted(TX)).toBe(false);
    expect(await verifyReceipt(header, context(windowEnd + DAY + 1))).toMatchObject({ ok: false, code: 'receipt_expired' });
    store.close();
  });

  it('is refused past its window or from the future, and is not taken without a nonce when the paywall says no', async () => {
    const { header, store, context } = await setup(landed);
    expect(await verifyReceipt(header, context(landed * 1000 + 420_001))).toMatchObject({ code: 'receipt_expired' });
    expect(await verifyReceipt(header, context(landed * 1000 - 120_001))).toMatchObject({ code: 'receipt_expired' });
    expect(await verifyReceipt(header, { ...context(landed * 1000), withoutNonce: null })).toMatchObject({ code: 'unknown_nonce' });
    expect(store.isAccepted(TX)).toBe(false);
    store.close();
  });

  it('cannot be judged when the chain gives no block time: the caller answers 503 and the receipt stays good', async () => {
    const { header, store, context } = await setup(null);
    await expect(verifyReceipt(header, context(Date.now()))).rejects.toThrow(/when the transaction landed/);
    expect(store.isAccepted(TX)).toBe(false);
    store.close();
  });

  it("tells a nonce's shape from a payment id", () => {
    const nonces = createNonces(new Uint8Array(32));
    expect(isNonceShaped(nonces.issue({ resource: 'GET /x', amount: 1n, issuedAt: 0, expiresAt: 1 }))).toBe(true);
    expect(isNonceShaped('pay_SYCFXwPZ3Ugu4RuPMGbnzt')).toBe(false);
  });
});
