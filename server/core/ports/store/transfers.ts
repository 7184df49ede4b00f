/**
 * Port: moves of money. Every kind (a payment, an allocation or a return, a faucet mint or a deposit
 * found on chain, a refund) is one record of one shape with its kind, and goes through one lifecycle
 * (server/core/transfers/lifecycle.ts): written pending with its signed transaction, then settled.
 */
import type { GenerationTask } from './tasks.js';
import type { PaymentProtocol, RefundedTo, TransferStatus } from '../../../wire/answers/payments.js';
import type { Rail } from '../../../wire/rails.js';

/** `held`: a payment waiting for the owner's yes (server/core/payments/held.ts): no transaction yet, counted by the budgets. */
export type { TransferStatus };
export type TransferKind = TransferRecord['kind'];

/** A signed transaction that may or may not have reached the chain yet. */
export interface SentTransaction {
  /** Its id on chain: null only for an x402 payment not landed yet (its seller's facilitator signs last). */
  txSignature: string | null;
  /**
   * The signed wire transaction (base64), kept so a restart can rebroadcast the same bytes: while
   * pending, and after a failure (its absence then says no transaction was ever made). Null once
   * confirmed: the chain holds the transaction, and the ledger keeps no second copy.
   */
  txWire: string | null;
  /** Where its lifetime ends (the signed transfer's: PreparedTransfer's or X402Signed's), kept in `last_valid_block_height`; null where none was made. */
  lifetimeEnd: bigint | null;
}

/** What every move of money records: what moved, where it stands, and the request it answers. */
interface TransferFields extends SentTransaction {
  id: string;
  owner: string;
  /** The rail the money moves on: its wallets are the treasury's and agents' on that rail. */
  rail: Rail;
  amount: bigint;
  status: TransferStatus;
  errorCode: string | null;
  /** The Idempotency-Key it was made under; the newest row of its kind under a key answers a retry. */
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAt: number;
  settledAt: number | null;
}

/** An agent's payment to a service (Coffer-sent, or x402: signed by the agent, sent by the seller). */
export interface PaymentRecord extends TransferFields {
  kind: 'payment';
  agentId: string;
  serviceId: string;
  serviceName: string;
  recipient: string;
  /** The paid API's nonce (paid once per recipient), or the payment's id. */
  memo: string;
  description: string;
  /** Set when a refund of this payment was confirmed: it no longer counts as spent. */
  refundedAt: number | null;
  refundTxSignature: string | null;
  /** `coffer`: Coffer signs and sends, the receipt is Coffer's. `x402`: the seller's facilitator sends. */
  protocol: PaymentProtocol;
  /** The URL paid for (x402). */
  resource: string | null;
  /** x402: the header the agent retries with. */
  x402Header: { name: string; value: string } | null;
  /** x402: the agent's signature in the transaction, how the landed transaction is found. */
  payerSignature: string | null;
}

/** The treasury funding an agent (`allocation`), or an agent's USDC given back to it (`return`). */
export interface AllocationRecord extends TransferFields {
  kind: 'allocation' | 'return';
  agentId: string;
}

/** USDC that came into the treasury: minted by the sim faucet (`faucet`), or found on chain (`deposit`, confirmed at once). */
export interface DepositRecord extends TransferFields {
  kind: 'faucet' | 'deposit';
  agentId: null;
  from: string;
}

/**
 * Money given back for a payment whose work failed: sent from the treasury to the agent's wallet or,
 * when the agent was archived, kept in the treasury (nothing moves: the payment went there).
 */
export interface RefundRecord extends TransferFields {
  kind: 'refund';
  agentId: string;
  paymentId: string;
  taskId: string | null;
  destination: RefundedTo;
}

export type TransferRecord = PaymentRecord | AllocationRecord | DepositRecord | RefundRecord;
/** The record shapes that hold rows of these kinds (a faucet mint is a DepositRecord, as a deposit is). */
export type TransferOf<K extends TransferKind> = RecordOf<TransferRecord, K>;
type RecordOf<R, K> = R extends { kind: infer Kind } ? ([Extract<Kind, K>] extends [never] ? never : R) : never;

/** A payment as a policy replayed on the past judges it. */
export interface CountedPayment {
  id: string;
  serviceId: string;
  recipient: string;
  amount: bigint;
  createdAt: number;
  /** The rail it was paid on: one policy judges both alike; the owner is told which. */
  rail: Rail;
}

export interface TransferStore {
  /** Writes a move of money (pending with its signed transaction, as its lifecycle begins). */
  insertTransfer(record: TransferRecord): void;
  /**
   * Records a deposit found on chain, confirmed; false when it is recorded already (or its transaction
   * is another move's). On Base a deposit is one transfer to the treasury (`transferIndex`, its place
   * among its transaction's): another of the same transaction is a deposit of its own, and a deposit
   * may share its transaction with x402 payments run in it. A deposit with no index (Solana's, read as
   * what the account gained) keeps its transaction from other deposits.
   */
  insertChainDeposit(deposit: {
    id: string;
    owner: string;
    txSignature: string;
    transferIndex: number | null;
    amount: bigint;
    from: string;
    createdAt: number;
    rail: Rail;
  }): boolean;
  /**
   * Takes out the Solana deposit recorded for a transaction the ledger now holds as a payment of its
   * own (a payment to the treasury the Coffer before a restore made, seen first by the deposit
   * watcher); false where none is recorded for it.
   */
  takeOutSolanaDeposit(txSignature: string): boolean;
  getTransfer(id: string): TransferRecord | null;
  getPayment(id: string): PaymentRecord | null;
  /** The newest row of these kinds under that Idempotency-Key created after `since` (agentId null: the treasury's own). */
  findByIdempotencyKey<K extends TransferKind>(
    kinds: readonly K[],
    owner: string,
    agentId: string | null,
    key: string,
    since: number,
  ): TransferOf<K> | null;
  /**
   * Settles a pending row (an x402 payment's landed transaction named with it); false when it was no
   * longer pending (someone else settled it). A confirmed refund marks its payment refunded, in the
   * same write.
   */
  settleTransfer(row: TransferRecord, status: 'confirmed' | 'failed', errorCode: string | null, at: number, txSignature?: string): boolean;
  /** Every pending row, oldest first: what reconciliation settles. */
  pendingTransfers(): TransferRecord[];
  /** What the treasury has promised away on the rail: allocations and refunds sent to agents, not settled yet. */
  pendingTreasuryOutflowsTotal(owner: string, rail: Rail): bigint;
  /** Returns from this agent to the treasury not settled yet (what its wallet has promised away). */
  pendingReturnsTotal(owner: string, agentId: string, rail: Rail): bigint;
  /**
   * What this store has confirmed leaving an agent's wallet on a rail since it was opened (its
   * payments and its returns to the treasury), or the owner's treasury where `agentId` is null (its
   * allocations, and refunds sent to an agent): a running total kept in memory that only grows (the
   * data dir's lock makes this process the only one that confirms). A reading of the wallet notes it
   * before its read is sent; what it grew by since is what left the wallet after
   * (core/wallet-balance.ts, treasury/allocations.ts). By the ledger's own order, not by a clock,
   * which may be set back. A confirmation rolled back after it was counted stays counted: more,
   * never less.
   */
  confirmedOutflowsTotal(owner: string, agentId: string | null, rail: Rail): bigint;

  /**
   * Takes a held payment out (its budgets no longer count it) so that it can be reserved again under
   * the same id as it is paid: only inside that reserving write. False when it was no longer held.
   */
  releaseHeldPayment(id: string): boolean;
  /** A held payment that will never be paid (denied, expired, withdrawn, refused when approved): failed with why. False when no longer held. */
  failHeldPayment(id: string, errorCode: string, at: number): boolean;
  /** Whether the agent has a payment to this recipient that went ahead (pending or confirmed, refunded or not). */
  hasPaidRecipient(owner: string, agentId: string, recipient: string): boolean;
  /** A held, pending or confirmed payment of the agent to that recipient with that memo (a paid API's nonce). */
  findLivePaymentByMemo(owner: string, agentId: string, recipient: string, memo: string): PaymentRecord | null;
  /** A pending or confirmed x402 payment whose transaction carries this payer signature. */
  findLivePaymentByPayerSignature(payerSignature: string): PaymentRecord | null;
  listPayments(owner: string, agentId: string, limit: number): PaymentRecord[];
  /**
   * The agent's payments that count (pending and confirmed, not refunded) made at `since` or later
   * (null: all), oldest first, with what a policy judges of each: for replaying a policy on them.
   * Read as they are iterated, a page at a time: a replay holds a page, never the whole history.
   */
  countedPayments(owner: string, agentId: string, since: number | null): Iterable<CountedPayment>;
  recentPayments(owner: string, limit: number): PaymentRecord[];
  /** Whether a transaction is one of Coffer's own payments (not a deposit from outside). */
  isPaymentTransaction(txSignature: string): boolean;
  /** Confirmed deposits and faucet mints, newest first. */
  listDeposits(owner: string, limit: number): DepositRecord[];
  /** The owner's allocations and returns, newest first, whatever their status: one agent's, or (null) every agent's. */
  listAllocations(owner: string, agentId: string | null, limit: number): AllocationRecord[];
  /** The newest refund of a payment. */
  findRefundByPayment(paymentId: string): RefundRecord | null;
  /**
   * Failed tasks whose payment went to the treasury, was confirmed and was not given back: none
   * under way or done, and, unless `retryFailed`, none that failed either.
   */
  tasksOwedRefunds(retryFailed: boolean): GenerationTask[];
}
