import { address, getBase58Encoder, getPublicKeyFromAddress, isSignature, verifySignature, type SignatureBytes } from '@solana/kit';
import { getAddress, verifyMessage, type Address, type Hex } from 'viem';
import {
  baseReceiptProofMessage,
  decodeBaseReceipt,
  decodeReceipt,
  receiptProofMessage,
  type BaseReceipt,
  type Receipt,
} from '../../wire/receipts.js';
import { formatUsdc, tryParseUsdc } from '../../wire/money.js';
import type { Rail } from '../../wire/rails.js';
import type { TransferLookup } from '../../core/ports/chain.js';
import { usdcTokenAccount } from '../../chain/solana/usdc-transfer.js';
import { authorizationNonce } from '../../chain/evm/authorization.js';
import type { TransferFound } from '../../core/ports/chain.js';
import type { PaywallStore } from './paywall-store.js';
import type { NonceReading, Nonces } from './nonces.js';
import { isNonceShaped } from '../../wire/paywall-nonce.js';

export interface VerifiedPayment {
  /** The chain that paid: Solana, or the Base rail's EVM chain. */
  rail: Rail;
  payer: string;
  /** micro-USDC actually received */
  amount: bigint;
  txSignature: string;
  /** The nonce the payment paid; "" for a payment made without one. */
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

/** A Base receipt's proof: its payer account's EIP-191 signature. */
async function baseProofHolds(receipt: BaseReceipt): Promise<boolean> {
  const { proof, ...claims } = receipt;
  try {
    return await verifyMessage({
      address: receipt.payer as Address,
      message: { raw: baseReceiptProofMessage(claims) },
      signature: proof as Hex,
    });
  } catch {
    return false;
  }
}

/** The claims every receipt makes, whatever its rail. */
type Claims = Pick<Receipt, 'network' | 'txSignature' | 'amount' | 'recipient' | 'payer' | 'paymentId' | 'memo'>;

/**
 * A receipt read on its rail: its claims, the chain its transaction is looked up on, and the checks
 * that differ by rail (its proof; whether a transfer paid the paywall's recipient; whether the
 * transfer carries the receipt's memo, on chain as a Solana memo or as the nonce of an EVM
 * authorization, which commits to the recipient and the memo).
 */
interface RailReceipt {
  rail: Rail;
  claims: Claims;
  recipient: string;
  lookup: TransferLookup;
  proofHolds(): Promise<boolean>;
  paidRecipient(transfer: TransferFound): Promise<boolean>;
  carriesMemo(transfer: TransferFound): boolean;
}

function readReceipt(header: string, context: ReceiptContext): RailReceipt | Refusal {
  const solana = decodeReceipt(header);
  if (solana !== null && isSignature(solana.txSignature)) {
    if (solana.network !== context.lookup.network) {
      return refuse('wrong_network', `the receipt is for ${solana.network}; this API is paid on ${context.lookup.network}`);
    }
    return {
      rail: 'sol',
      claims: solana,
      recipient: context.recipient,
      lookup: context.lookup,
      proofHolds: () => proofHolds(solana),
      paidRecipient: async (transfer) =>
        transfer.toTokenAccount === (await usdcTokenAccount(address(context.lookup.usdc), address(context.recipient))),
      carriesMemo: (transfer) => transfer.memo === solana.memo,
    };
  }
  const base = decodeBaseReceipt(header);
  if (base === null) return refuse('invalid_receipt', 'X-Payment is not a v1 Coffer receipt');
  const rail = context.base ?? null;
  if (rail === null)
    return refuse('wrong_network', `the receipt is for ${base.network} on Base; this API is paid on ${context.lookup.network}`);
  if (base.network !== rail.lookup.network || base.chainId !== rail.lookup.chainId) {
    return refuse(
      'wrong_network',
      `the receipt is for ${base.network} (chain ${base.chainId}); this API is paid on Base at ${rail.lookup.network} (chain ${rail.lookup.chainId})`,
    );
  }
  const recipient = getAddress(rail.recipient);
  return {
    rail: 'base',
    claims: base,
    recipient,
    lookup: rail.lookup,
    proofHolds: () => baseProofHolds(base),
    paidRecipient: async (transfer) => transfer.to === recipient,
    carriesMemo: (transfer) => transfer.memo === authorizationNonce(recipient, base.memo),
  };
}

/**
 * What a receipt's memo makes of it: the terms of a nonce this paywall issued, or, for a payment made
 * without a 402 (`coffer pay demo-weather 0.01`, a /pay without `nonce`), none: its transaction is
 * then the one-time token, and the route's price and a short window after it landed are the terms.
 */
type ReceiptTerms = { kind: 'nonce'; nonce: string; amount: bigint; issuedAt: number; expiresAt: number } | { kind: 'without_nonce' };

export interface ReceiptContext {
  resource: string;
  price: bigint;
  recipient: string;
  lookup: TransferLookup;
  store: PaywallStore;
  nonces: Nonces;
  now: number;
  /**
   * Receipts of payments made without a nonce: accepted once each, within `maxAgeSeconds` of their
   * transaction's block time; null or left out refuses them (`unknown_nonce`).
   */
  withoutNonce?: { maxAgeSeconds: number } | null;
  /** Base receipts are taken too: paid to this recipient (an EVM account), read on this chain. */
  base?: { recipient: string; lookup: TransferLookup & { chainId?: number } } | null;
}

function termsOf(receipt: Claims, context: ReceiptContext): ReceiptTerms | Refusal {
  const legacy = context.store.storedNonce(receipt.memo);
  const reading: NonceReading =
    legacy === null
      ? context.nonces.read(receipt.memo, context.resource)
      : legacy.resource === context.resource
        ? { ok: true, terms: legacy }
        : { ok: false, code: 'wrong_resource' };
  if (reading.ok) return { kind: 'nonce', nonce: receipt.memo, ...reading.terms };
  if (reading.code === 'wrong_resource') return refuse('wrong_resource', 'the nonce was issued for another route');
  // Without a nonce, Coffer writes the payment's own id as its memo. The payer signs both, so only a
  // payment its payer made outside any 402 qualifies; a memo shaped like a nonce was paid for some
  // paywall's terms (here, or elsewhere for the same recipient) and is redeemed by that nonce alone.
  if (context.withoutNonce && receipt.memo === receipt.paymentId && !isNonceShaped(receipt.memo)) return { kind: 'without_nonce' };
  return refuse('unknown_nonce', 'the payment does not carry a nonce this API issued');
}

/**
 * When a payment was good for, judged by its transaction's block time: between a nonce's issue and
 * its expiry, or, without a nonce, within `maxAgeSeconds` of landing. `expiresAt` is what the store
 * keeps the record for (pruned a day after): by then the receipt is refused as expired anyway, so
 * pruning never reopens a replay. Throws when the chain does not say when a payment without a nonce
 * landed: its age, hence how long to remember it, would be unknown (503, the receipt stays good).
 */
function timeWindow(terms: ReceiptTerms, blockTime: number | null, context: ReceiptContext): { expiresAt: number } | Refusal {
  const skew = CLOCK_SKEW_SECONDS * 1000;
  if (terms.kind === 'nonce') {
    const landed = blockTime ?? Math.floor(context.now / 1000);
    const issued = Math.floor(terms.issuedAt / 1000);
    const expires = Math.floor(terms.expiresAt / 1000);
    if (landed < issued - CLOCK_SKEW_SECONDS || landed > expires + CLOCK_SKEW_SECONDS || context.now > terms.expiresAt + 5 * 60_000) {
      return refuse('receipt_expired', 'the payment is not within the time the nonce allowed');
    }
    return { expiresAt: terms.expiresAt };
  }
  if (blockTime === null) throw new Error('the chain does not say when the transaction landed');
  const maxAgeSeconds = context.withoutNonce?.maxAgeSeconds ?? 0;
  const landedAt = blockTime * 1000;
  const expiresAt = landedAt + maxAgeSeconds * 1000 + skew;
  if (landedAt > context.now + skew || context.now > expiresAt) {
    return refuse(
      'receipt_expired',
      `a payment made without a nonce is good for ${maxAgeSeconds} s after it lands (and ${CLOCK_SKEW_SECONDS} s more, for clocks that differ)`,
    );
  }
  return { expiresAt };
}

/**
 * Checks an `X-Payment` receipt against the chain and the paywall's memory. Nothing in the receipt is
 * trusted on its own word: it must be signed by its payer's wallet (so a receipt rebuilt from public
 * chain data is worthless), and it only names a transaction, which must exist and have succeeded on
 * this network (a Base receipt: on the paywall's Base chain), have moved at least the route's price in
 * USDC to the recipient, carry as its memo (on Base: commit to, by its authorization's nonce) a nonce
 * this paywall issued for this method and path (unused, unexpired) or,
 * for a payment made without a nonce, the receipt's own payment id, be recent, and never have been
 * accepted before: a receipt buys one answer, and a transaction one receipt's worth.
 * Throws only when the chain cannot be read (the caller answers 503, not 402).
 */
export async function verifyReceipt(header: string, context: ReceiptContext): Promise<Verification> {
  const read = readReceipt(header, context);
  if ('ok' in read) return read;
  const receipt = read.claims;
  if (!(await read.proofHolds())) return refuse('invalid_proof', "the receipt is not signed by its payer's wallet");

  // The transaction is remembered whatever receipt presented it: a second receipt its payer signs
  // for the same transaction (another timestamp, another route) buys nothing more.
  if (context.store.isAccepted(receipt.txSignature)) return refuse('receipt_already_used', 'this payment was already used');
  const terms = termsOf(receipt, context);
  if ('ok' in terms) return terms;
  if (terms.kind === 'nonce' && context.store.isNonceUsed(terms.nonce))
    return refuse('receipt_already_used', 'this payment was already used');

  const transfer = await read.lookup.findTransfer(receipt.txSignature);
  if (transfer === null) return refuse('transaction_not_found', 'no USDC transfer with that signature on chain (yet)');
  if (!transfer.succeeded) return refuse('transaction_failed', `the transaction failed on chain (${transfer.error ?? 'error'})`);
  if (transfer.mint !== read.lookup.usdc) return refuse('wrong_asset', 'the transaction did not move USDC');
  if (!(await read.paidRecipient(transfer))) return refuse('wrong_recipient', 'the USDC did not go to this API');
  const price = terms.kind === 'nonce' && terms.amount > context.price ? terms.amount : context.price;
  if (transfer.amount < price) {
    return refuse('amount_too_small', `paid ${formatUsdc(transfer.amount)} USDC, the price is ${formatUsdc(price)}`);
  }
  if (!read.carriesMemo(transfer)) {
    return refuse(
      'memo_mismatch',
      terms.kind === 'nonce' ? 'the transaction memo is not the nonce' : 'the transaction memo is not the payment id',
    );
  }
  if (tryParseUsdc(receipt.amount) !== transfer.amount || receipt.recipient !== read.recipient || receipt.payer !== transfer.from) {
    return refuse('receipt_mismatch', 'the receipt does not describe its transaction');
  }
  const window = timeWindow(terms, transfer.blockTime, context);
  if ('ok' in window) return window;

  // Both keys are unique in the store (a concurrent twin of this request loses here). Without a nonce
  // the transaction stands in for one, as an x402 v1 payment's does.
  const nonce = terms.kind === 'nonce' ? terms.nonce : '';
  const stored = context.store.accept({
    txSignature: receipt.txSignature,
    nonce: nonce === '' ? `receipt:${receipt.txSignature}` : nonce,
    payer: transfer.from,
    amount: transfer.amount,
    acceptedAt: context.now,
    nonceExpiresAt: window.expiresAt,
  });
  if (!stored) return refuse('receipt_already_used', 'this payment was already used');
  return { ok: true, payment: { rail: read.rail, payer: transfer.from, amount: transfer.amount, txSignature: receipt.txSignature, nonce } };
}
