import { address, getBase58Encoder, getPublicKeyFromAddress, isSignature, verifySignature, type SignatureBytes } from '@solana/kit';
import { decodeReceipt, receiptProofMessage, type Receipt } from '../core/receipts.js';
import { formatUsdc, tryParseUsdc } from '../core/money.js';
import type { TransferLookup } from '../core/ports/chain.js';
import { usdcTokenAccount } from '../chain/usdc-transfer.js';
import type { PaywallStore } from './paywall-store.js';
import type { NonceReading, Nonces } from './nonces.js';

export interface VerifiedPayment {
  payer: string;
  /** micro-USDC actually received */
  amount: bigint;
  txSignature: string;
  nonce: string;
}

export type Refusal = { ok: false; code: RefusalCode; reason: string };
export type Verification = { ok: true; payment: VerifiedPayment } | Refusal;

export type RefusalCode =
  | 'invalid_receipt'
  | 'invalid_proof'
  | 'wrong_network'
  | 'unknown_nonce'
  | 'wrong_resource'
  | 'receipt_expired'
  | 'receipt_already_used'
  | 'transaction_not_found'
  | 'transaction_failed'
  | 'wrong_asset'
  | 'wrong_recipient'
  | 'amount_too_small'
  | 'memo_mismatch'
  | 'receipt_mismatch';

/** Seconds a transaction's block time may differ from the nonce's clock (skew between machines). */
const CLOCK_SKEW_SECONDS = 120;

const refuse = (code: RefusalCode, reason: string): Refusal => ({ ok: false, code, reason });

/** The payer's signature over the receipt: everything else in a receipt can be read off the chain. */
async function proofHolds(receipt: Receipt): Promise<boolean> {
  try {
    const key = await getPublicKeyFromAddress(address(receipt.payer));
    const signature = getBase58Encoder().encode(receipt.proof);
    if (signature.length !== 64) return false;
    return await verifySignature(key, signature as SignatureBytes, receiptProofMessage(receipt));
  } catch {
    return false;
  }
}

/**
 * Checks an `X-Payment` receipt against the chain and the paywall's memory. Nothing in the receipt is
 * trusted on its own word: it must be signed by its payer's wallet (so a receipt rebuilt from public
 * chain data is worthless), and it only names a transaction, which must exist and have succeeded on
 * this network, have moved at least the route's price in USDC to the recipient's token account,
 * carry a nonce this paywall issued for this method and path (unused, unexpired) as its memo, be
 * recent, and never have been accepted before: a receipt buys one answer.
 * Throws only when the chain cannot be read (the caller answers 503, not 402).
 */
export async function verifyReceipt(
  header: string,
  context: { resource: string; price: bigint; recipient: string; lookup: TransferLookup; store: PaywallStore; nonces: Nonces; now: number },
): Promise<Verification> {
  const receipt = decodeReceipt(header);
  if (receipt === null || !isSignature(receipt.txSignature)) return refuse('invalid_receipt', 'X-Payment is not a v1 Coffer receipt');
  if (receipt.network !== context.lookup.network) {
    return refuse('wrong_network', `the receipt is for ${receipt.network}; this API is paid on ${context.lookup.network}`);
  }
  if (!(await proofHolds(receipt))) return refuse('invalid_proof', "the receipt is not signed by its payer's wallet");

  if (context.store.isAccepted(receipt.txSignature)) return refuse('receipt_already_used', 'this payment was already used');
  const legacy = context.store.storedNonce(receipt.memo);
  const reading: NonceReading =
    legacy === null
      ? context.nonces.read(receipt.memo, context.resource)
      : legacy.resource === context.resource
        ? { ok: true, terms: legacy }
        : { ok: false, code: 'wrong_resource' };
  if (!reading.ok) {
    return reading.code === 'wrong_resource'
      ? refuse('wrong_resource', 'the nonce was issued for another route')
      : refuse('unknown_nonce', 'the payment does not carry a nonce this API issued');
  }
  const nonce = { ...reading.terms, nonce: receipt.memo };
  if (context.store.isNonceUsed(nonce.nonce)) return refuse('receipt_already_used', 'this payment was already used');

  const transfer = await context.lookup.findTransfer(receipt.txSignature);
  if (transfer === null) return refuse('transaction_not_found', 'no USDC transfer with that signature on chain (yet)');
  if (!transfer.succeeded) return refuse('transaction_failed', `the transaction failed on chain (${transfer.error ?? 'error'})`);
  if (transfer.mint !== context.lookup.usdcMint) return refuse('wrong_asset', 'the transaction did not move USDC');
  const recipientAccount = await usdcTokenAccount(address(context.lookup.usdcMint), address(context.recipient));
  if (transfer.toTokenAccount !== recipientAccount) return refuse('wrong_recipient', 'the USDC did not go to this API');
  const price = nonce.amount > context.price ? nonce.amount : context.price;
  if (transfer.amount < price) {
    return refuse('amount_too_small', `paid ${formatUsdc(transfer.amount)} USDC, the price is ${formatUsdc(price)}`);
  }
  if (transfer.memo !== nonce.nonce) return refuse('memo_mismatch', 'the transaction memo is not the nonce');
  if (tryParseUsdc(receipt.amount) !== transfer.amount || receipt.recipient !== context.recipient || receipt.payer !== transfer.from) {
    return refuse('receipt_mismatch', 'the receipt does not describe its transaction');
  }
  const blockTime = transfer.blockTime ?? Math.floor(context.now / 1000);
  const issued = Math.floor(nonce.issuedAt / 1000);
  const expires = Math.floor(nonce.expiresAt / 1000);
  if (blockTime < issued - CLOCK_SKEW_SECONDS || blockTime > expires + CLOCK_SKEW_SECONDS || context.now > nonce.expiresAt + 5 * 60_000) {
    return refuse('receipt_expired', 'the payment is not within the time the nonce allowed');
  }

  const stored = context.store.accept({
    txSignature: receipt.txSignature,
    nonce: nonce.nonce,
    payer: transfer.from,
    amount: transfer.amount,
    acceptedAt: context.now,
    nonceExpiresAt: nonce.expiresAt,
  });
  if (!stored) return refuse('receipt_already_used', 'this payment was already used');
  return { ok: true, payment: { payer: transfer.from, amount: transfer.amount, txSignature: receipt.txSignature, nonce: nonce.nonce } };
}
