/**
 * What payingFetch is asked with: the agent it pays from, and how it pays.
 */
import type { Approval } from '../../wire/answers/approvals.js';
import type { Rail } from '../../wire/rails.js';

/** The agent a payingFetch pays from: its Coffer server and credentials. */
export interface PayingAgent {
  cofferUrl: string;
  owner: string;
  agentId: string;
  apiKey: string;
}

export interface PayingFetchOptions {
  agent: PayingAgent;
  /** Shown in the spend history; defaults to "METHOD URL". */
  description?: string;
  /**
   * The fetch every call goes through (Coffer's too). It must answer a call with `redirect: 'manual'`
   * as Node's does, with the redirect itself (its status and Location): payingFetch follows a seller's
   * redirects itself, to keep the payment's header to the seller it is for (seller-call.ts). One
   * seen following a redirect itself (its answer `redirected`) is refused `invalid_request`.
   */
  fetch?: typeof fetch;
  /** How often a transport failure is retried (same payment, same receipt). Default 2. */
  retries?: number;
  /**
   * How long each call to the URL waits for its answer (its status and headers, and the body of a 402
   * or 503, which payingFetch reads itself): a host that takes the call and never answers would hold
   * it for good. The first call given up is `url_unreachable`,
   * nothing paid; the paid one, `paid_call_failed` with the payment (not sent again: the seller took
   * it). Left out, no limit (as fetch); MCP `fetch_paid` gives 45 s, inside a host's own timeout.
   */
  answerWaitMs?: number;
  /**
   * Told once when the agent's policy holds the payment for the owner's yes (the request then waits,
   * with long polls, until the owner decides; denied or expired, nothing is paid: payment_refused).
   * The call's own `signal` aborted meanwhile, the request is withdrawn and the signal's reason thrown.
   */
  onHeld?: (approval: Approval) => void;
  /**
   * The request an earlier call of this purchase was held under (its `approvalId`: a process that did
   * not live to see the owner decide, an MCP bridge restarted): waited for and used, never asked
   * anew, so the owner decides once and the purchase is paid once. An x402 offer is bought under it
   * with the seller's terms as they stand now (Coffer refuses another purchase: `approval_mismatch`);
   * Coffer's own 402 was paid at the owner's yes, and that receipt is presented. A request that is
   * not this agent's, or was for another payment, is refused; nothing is paid.
   */
  approvalId?: string;
  /**
   * The rail to pay on (`sol`, `base`): an x402 offer on both rails is paid on that one, and Coffer's
   * own 402 on Base where it offers Base (`base` in its body; one that does not is refused,
   * `unsupported_offer`, nothing paid). Left out, a 402 payable on both rails (an x402 offer, or
   * Coffer's own whose body offers Base) is paid on the owner's preferred rail where the agent's wallet
   * there holds the amount, else on the rail whose wallet does, Solana first (Coffer's own on Base where
   * its Solana terms are another network's). The payment says which.
   */
  rail?: Rail;
  /**
   * How long Coffer's own 402 paid and not yet confirmed by the chain (`/pay` answered `502
   * chain_unavailable`: signed and recorded, on its way) is followed before the call gives up with
   * `payment_pending`: `/pay` is asked again under the payment's Idempotency-Key every few seconds,
   * which answers its receipt once it lands (the request is then sent with it), its refusal once it
   * cannot, or, where nothing was recorded (the chain could not even be asked to sign), makes the
   * payment then. The same key never pays twice. Default 60 s; 0 gives up at the first answer. The
   * paid request is sent again with the same receipt, for as long from the payment (four times at
   * least), while the seller answers "not yet" (`verifier_unavailable`, `transaction_not_found`).
   */
  chainWaitMs?: number;
  /** Told once when the call waits for the chain to confirm its payment (as `chainWaitMs` says). */
  onChainWait?: () => void;
}
