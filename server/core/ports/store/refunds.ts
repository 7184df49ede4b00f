/** Port: refunds of payments whose paid work failed, and which failed tasks are still owed one. */
import type { GenerationTask } from './tasks.js';
import type { SentTransaction, TransferStatus } from './transfers.js';

/**
 * Money given back for a payment whose work failed: sent from the treasury to the agent's wallet or,
 * when the agent was archived, kept in the treasury (nothing moves: the payment went there).
 */
export interface RefundRecord extends SentTransaction {
  id: string;
  destination: 'agent' | 'treasury';
  owner: string;
  agentId: string;
  paymentId: string;
  taskId: string | null;
  amount: bigint;
  status: TransferStatus;
  errorCode: string | null;
  createdAt: number;
  settledAt: number | null;
}

export interface RefundStore {
  insertRefund(refund: RefundRecord): void;
  getRefund(id: string): RefundRecord | null;
  /** The newest refund of a payment. */
  findRefundByPayment(paymentId: string): RefundRecord | null;
  markRefundSent(id: string, sent: SentTransaction): boolean;
  /**
   * Settles a pending row; false when it was no longer pending (someone else settled it). A confirmed
   * refund also marks its payment refunded (one commit).
   */
  settleRefund(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  pendingRefunds(): RefundRecord[];
  /**
   * Failed tasks whose payment went to the treasury, was confirmed and was not given back: none
   * under way or done, and, unless `retryFailed`, none that failed either.
   */
  tasksOwedRefunds(retryFailed: boolean): GenerationTask[];
}
