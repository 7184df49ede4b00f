/**
 * What payingFetch answers: the response, the payment made for it, and the settlement Coffer reports.
 */
import { isRail } from '../../wire/rails.js';
import type { Rail } from '../../wire/rails.js';

/** A payment made for a call: Coffer's own (a receipt in X-Payment) or x402 (the seller's facilitator sent it). */
export interface PaymentMade {
  protocol: 'coffer' | 'x402';
  paymentId: string;
  /** Null for an x402 payment whose transaction Coffer has not seen yet. */
  txSignature: string | null;
  amount: string;
  /** `confirmed`, or `pending` for an x402 payment whose transaction Coffer has not seen yet. */
  status: string;
  /** The header the paid request carried. */
  header: { name: string; value: string };
  /** The rail it was paid on. */
  rail: Rail;
  /** That rail's network as Coffer names it (`isTestMoney` says whether its USDC is test money); null where an older Coffer said none. */
  network: string | null;
  /** Set where this payment tripped the agent's breaker: it is made, and the agent is stopped now for `reason`. */
  agentStopped?: { reason: string };
}

/** What a payment's answer said of its agent stopped by it (an older Coffer says nothing), carried into what payingFetch reports. */
export function stoppedOf(said: unknown): Pick<PaymentMade, 'agentStopped'> {
  const reason = (said as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? { agentStopped: { reason } } : {};
}

export interface PaidResponse {
  response: Response;
  /** The payment made for this call, when one was made. */
  payment: PaymentMade | null;
  /**
   * The payment as Coffer has it once the seller's answer was reported to it (x402: `confirmed`
   * with its transaction when the seller settled it). The response never waits for this; a caller
   * that wants Coffer's word (a command printing what was paid) awaits it. Never rejects.
   */
  settlement: Promise<PaymentMade | null>;
  /**
   * Set when the seller let the agent in on its earlier purchase (x402 Sign-In-With-X): the wallet
   * Coffer proved it with. Nothing was paid for this call.
   */
  signedIn?: { address: string };
}

export const unpaid = (response: Response): PaidResponse => ({ response, payment: null, settlement: Promise.resolve(null) });

/** A rail as Coffer answered it (an older Coffer says none: it paid on Solana). */
export const railOf = (said: unknown): Rail => (isRail(said) ? said : 'sol');
/** A network as Coffer answered it; null where it said none. */
export const networkOf = (said: unknown): string | null => (typeof said === 'string' && said !== '' ? said : null);
