/** Port: payments agents make to services (Coffer-sent or x402), with their Idempotency-Key replay. */
import type { ReplayableTransfer, SentTransaction } from './transfers.js';

export interface PaymentRecord extends ReplayableTransfer {
  id: string;
  owner: string;
  agentId: string;
  serviceId: string;
  serviceName: string;
  recipient: string;
  amount: bigint;
  memo: string;
  description: string;
  /** Set when a refund of this payment was confirmed: it no longer counts as spent. */
  refundedAt: number | null;
  refundTxSignature: string | null;
  /** `coffer`: Coffer signs and sends, the receipt is Coffer's. `x402`: the seller's facilitator sends. */
  protocol: 'coffer' | 'x402';
  /** The URL paid for (x402). */
  resource: string | null;
  /** x402: the header the agent retries with, once signed. */
  x402Header: { name: string; value: string } | null;
  /** x402: the agent's signature in the transaction, how the landed transaction is found. */
  payerSignature: string | null;
}

/** What signing an x402 payment records on its pending row (txSignature stays unknown until it lands). */
export interface X402Signature {
  txWire: string;
  payerSignature: string;
  /** A block height after which the transaction can no longer land. */
  lastValidBlockHeight: bigint;
  header: { name: string; value: string };
}

export interface PaymentStore {
  insertPayment(payment: PaymentRecord): void;
  getPayment(id: string): PaymentRecord | null;
  /** A pending or confirmed payment of the agent to that recipient with that memo (a paid API's nonce). */
  findLivePaymentByMemo(owner: string, agentId: string, recipient: string, memo: string): PaymentRecord | null;
  findPaymentByIdempotencyKey(owner: string, agentId: string, key: string, since: number): PaymentRecord | null;
  /** False when the row is no longer pending (then nothing may be sent for it). */
  markPaymentSent(id: string, sent: SentTransaction): boolean;
  /** Records an x402 payment's signed transaction on its pending row; false when it is no longer pending. */
  markX402Signed(id: string, signed: X402Signature): boolean;
  /** A pending or confirmed x402 payment whose transaction carries this payer signature. */
  findLivePaymentByPayerSignature(payerSignature: string): PaymentRecord | null;
  /** Records the id of the transaction an x402 payment landed in (before it is settled). */
  markPaymentLanded(id: string, txSignature: string): void;
  /** Settles a pending row; false when it was no longer pending (someone else settled it). */
  settlePayment(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  listPayments(owner: string, agentId: string, limit: number): PaymentRecord[];
  recentPayments(owner: string, limit: number): PaymentRecord[];
  pendingPayments(): PaymentRecord[];
  /** Whether a transaction is one of Coffer's own payments (not a deposit from outside). */
  isPaymentTransaction(txSignature: string): boolean;
}
