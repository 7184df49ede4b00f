/**
 * payingFetch's one error, and which of Coffer's refusals keep their own code in it.
 */
import type { PaymentInstructions } from '../payment-required.js';
import { CofferApiError } from '../../client/client-error.js';
import type { PaymentMade } from './paid-response.js';
import type { Rail } from '../../wire/rails.js';

export type PaymentErrorCode =
  /** The 402 cannot be read as terms Coffer pays: not USDC, neither x402's form nor Coffer's, unreadable terms. */
  | 'unreadable_402'
  /** An offer Coffer cannot pay (another network, scheme or asset; Coffer on the sim chain; Coffer's own 402 on another network): refused before paying. */
  | 'unsupported_offer'
  | 'price_above_registry'
  /** The 402's recipient is not the registry's address for the service it names. */
  | 'recipient_mismatch'
  | 'payment_refused'
  /** Coffer could not confirm the payment: it may be recorded and on its way, or not made at all; check before paying again. */
  | 'payment_pending'
  | 'coffer_unreachable'
  /** The URL did not answer the first request (no host, refused, no answer within answerWaitMs): nothing was paid. */
  | 'url_unreachable'
  /**
   * No HTTP request can be made as asked (not an http(s) URL, credentials in it, a header no request
   * carries, a GET or HEAD with a body, a body read once such as a ReadableStream): nothing was called.
   */
  | 'invalid_request'
  /**
   * Paid, but the paid request got no answer Coffer could give: the seller asked for payment again,
   * was not reached, or did not answer in time. `details.payment` holds the payment. Any other answer
   * to the paid call, a 500 included, is payingFetch's `response`, not this error.
   */
  | 'paid_call_failed';

/**
 * Why a paid call did not go through: the client's one error (CofferApiError) with a payment code of
 * its own, and what a caller needs beside it (the payment already made, the 402's terms).
 * `status`/`cofferCode` carry Coffer's answer when it refused.
 */
export class PaymentError extends CofferApiError {
  declare readonly code: PaymentErrorCode;
  constructor(
    code: PaymentErrorCode,
    message: string,
    readonly details: {
      status?: number;
      cofferCode?: string;
      /** Set where Coffer's refusal stopped the agent (its breaker tripped). */
      agentStopped?: { reason: string };
      instructions?: PaymentInstructions;
      payment?: PaymentMade;
      response?: Response;
      /** Short of funds on the rail paid, where the 402 is payable on this one too, as its words say: the call to offer first. */
      otherRail?: Rail;
    } = {},
  ) {
    super(details.status ?? 0, code, message, details.agentStopped);
    this.name = 'PaymentError';
  }
}

/** Coffer's refusal as a PaymentError carries it: its status and code, and whether it stopped the agent (its breaker). */
export const refusedBy = (error: CofferApiError): PaymentError['details'] => ({
  status: error.status,
  cofferCode: error.code,
  ...(error.agentStopped === undefined ? {} : { agentStopped: error.agentStopped }),
});

/** Coffer answered and refused (an HTTP answer), as opposed to not answering at all (retried). */
export const refusal = (error: unknown): error is CofferApiError =>
  error instanceof CofferApiError && error.status !== 0 && !(error instanceof PaymentError);

/** Coffer's refusals that keep their own name in a PaymentError (the rest are `payment_refused`). */
export const OWN_CODES = new Set<PaymentErrorCode>(['unsupported_offer', 'unreadable_402', 'price_above_registry', 'recipient_mismatch']);
