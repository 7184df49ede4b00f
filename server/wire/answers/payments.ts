/**
 * The /v1 answers about payments: a payment and its receipt, an x402 payment, a payment as an agent's
 * history and the dashboard's activity show it, and a payment the policy refused.
 */
import type { Rail } from '../rails.js';

/** `held`: waiting for the owner's yes (no transaction yet); `pending`: sent, not settled yet. */
export type TransferStatus = 'held' | 'pending' | 'confirmed' | 'failed';

/** `coffer`: Coffer signs and sends, the receipt is Coffer's; `x402`: the agent signs, the seller's facilitator sends. */
export type PaymentProtocol = 'coffer' | 'x402';

/** Where a refund went: back to the agent's wallet, or kept in the treasury (the agent was archived). */
export type RefundedTo = 'agent' | 'treasury';

/** An HTTP header to send: an x402 payment's, or a sign-in's. */
export type HttpHeader = {
  name: string;
  value: string;
};

/** POST /v1/agents/:id/pay, paid: the payment, and `xPaymentHeader`, the receipt the agent sends to the paid API. */
export type Payment = {
  paymentId: string;
  txSignature: string;
  amount: string;
  currency: 'USDC';
  status: TransferStatus;
  timestamp: string;
  xPaymentHeader: string;
  service: string;
  recipient: string;
  payer: string;
  memo: string;
  network: string;
  /** The rail it was paid on (the recipient's): `payer` is the agent's wallet there. */
  rail: Rail;
} & AgentStoppedByIt;

/**
 * Present only on the answer to the payment that tripped its agent's breaker (its spending rule): the
 * payment is made, and the agent is now stopped for `reason` (its `statusReason`) until the owner resumes it.
 */
export type AgentStoppedByIt = { agentStopped?: { reason: string } };

/** POST /v1/agents/:id/x402, signed: the header to retry the request with, and where the payment stands. */
export type X402Payment = {
  paymentId: string;
  status: TransferStatus;
  amount: string;
  currency: 'USDC';
  service: string;
  recipient: string;
  /** The rail it is paid on (`sol`, `base`), and that rail's network as Coffer names it. */
  rail: Rail;
  network: string;
  /** The URL paid for. */
  resource: string | null;
  timestamp: string;
  /** Null until the seller's facilitator landed the transaction. */
  txSignature: string | null;
  header: HttpHeader | null;
} & AgentStoppedByIt;

/** POST /v1/agents/:id/x402/:paymentId/settlement: the payment as it stands once the seller's answer was read. */
export type X402Settlement = X402Payment;

/** POST /v1/agents/:id/x402/sign-in: the SIGN-IN-WITH-X header, signed by the agent's wallet. */
export type X402SignIn = {
  header: HttpHeader;
  address: string;
  chainId: string;
};

/** The refund of a payment whose work failed: its whole amount, given back (it no longer counts as spent). */
export type PaymentRefund = {
  amount: string;
  to: RefundedTo;
  /** Null when kept in the treasury (nothing moved). */
  txSignature: string | null;
  timestamp: string;
};

/** A payment in an agent's spend history; `refunded` once its money came back. */
export type SpendRecord = {
  id: string;
  service: string;
  serviceId: string;
  amount: string;
  currency: 'USDC';
  status: TransferStatus | 'refunded';
  timestamp: string;
  description: string;
  recipient: string;
  txSignature: string | null;
  protocol: PaymentProtocol;
  resource: string | null;
  /** The rail it was paid on: `sol`, or `base` for USDC on Base. */
  rail: Rail;
  /** Why a failed payment failed (`payment_denied`, `approval_expired`, `dropped`, ...): only on failed ones. */
  errorCode?: string;
  /**
   * On a held payment the owner approved that the agent has not bought yet (an x402 purchase, bought
   * when the agent asks the seller again): when the owner said yes. It no longer waits for the owner.
   */
  approvedAt?: string;
  refund?: PaymentRefund;
};

export type SpendHistory = {
  payments: SpendRecord[];
};

/** A payment's state in the dashboard's activity (`approved`: confirmed). */
export type ActivityStatus = 'approved' | 'held' | 'pending' | 'failed' | 'refunded';

/** A payment in the dashboard's recent activity; `venue` is the service's name, `time` the local clock time. */
export type Activity = {
  id: string;
  agent: string;
  venue: string;
  amount: string;
  rail: Rail;
  time: string;
  status: ActivityStatus;
  timestamp: string;
  txSignature: string | null;
  protocol: PaymentProtocol;
  resource: string | null;
  recipient: string;
  /** Why a failed payment failed: only on failed ones, as in the spend history. */
  errorCode?: string;
  /** On a held payment the owner approved, not bought yet: when, as in the spend history. */
  approvedAt?: string;
};

/** A payment the policy refused; `venue` names the service as the activity does (its registry name, else what the agent sent). */
export type Refusal = {
  agent: string;
  service: string;
  venue: string;
  amount: string;
  currency: 'USDC';
  /** The rail it was asked on; null for one kept before Coffer kept its rail. */
  rail: Rail | null;
  code: string;
  message: string;
  timestamp: string;
};
