/** Port: what every money movement row (payment, allocation, deposit, refund) shares. */
export type TransferStatus = 'pending' | 'confirmed' | 'failed';

/** A signed transaction that may or may not have reached the chain yet. */
export interface SentTransaction {
  txSignature: string | null;
  /** The signed wire transaction (base64), kept so a restart can rebroadcast the same bytes. */
  txWire: string | null;
  lastValidBlockHeight: bigint | null;
}
