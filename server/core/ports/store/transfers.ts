/** Port: what every money movement row (payment, allocation, deposit, refund) shares. */
export type TransferStatus = 'pending' | 'confirmed' | 'failed';

/** A signed transaction that may or may not have reached the chain yet. */
export interface SentTransaction {
  txSignature: string | null;
  /** The signed wire transaction (base64), kept so a restart can rebroadcast the same bytes. */
  txWire: string | null;
  lastValidBlockHeight: bigint | null;
}

/** A movement's state, and how a retry with the same Idempotency-Key finds it (payments, allocations, deposits). */
export interface ReplayableTransfer extends SentTransaction {
  status: TransferStatus;
  errorCode: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAt: number;
  settledAt: number | null;
}
