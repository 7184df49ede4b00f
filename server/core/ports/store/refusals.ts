/** Port: the latest payments the policy refused, kept for the owner to see. */
import type { Rail } from '../../../wire/rails.js';

/** A payment the policy refused (nothing was reserved or sent). */
export interface RefusalRecord {
  owner: string;
  agentId: string;
  service: string;
  /** As the agent asked, normalised to USDC with its decimals. */
  amount: string;
  /** The rail it was asked on; null for a refusal kept before Coffer kept its rail (schema 9). */
  rail: Rail | null;
  code: string;
  message: string;
  at: number;
}

export interface RefusalStore {
  /**
   * Records a refused payment and keeps only the owner's latest `keep.perOwner`, of which the
   * refused payment's agent's latest `keep.perAgent` at most.
   */
  recordRefusal(refusal: RefusalRecord, keep: { perOwner: number; perAgent: number }): void;
  recentRefusals(owner: string, limit: number): RefusalRecord[];
}
