/** The /v1 answers about approvals: a request of an agent's that only the owner may grant, as every door shows it. */

export type ApprovalKind = 'policy' | 'allocate' | 'resume' | 'deploy' | 'payment';

/** `failed`: approved, but it could not be carried out (`error` says why); `withdrawn`: the agent was stopped or resumed meanwhile. */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'failed' | 'withdrawn';

/** A request waiting for (or decided by) the owner: the 202 body of a request that waits, and what the approval routes answer. */
export type Approval = {
  approvalId: string;
  status: ApprovalStatus;
  kind: ApprovalKind;
  /** The agent that asked. */
  agentId: string;
  /** The agent the request acts on (itself, or the new agent of a deploy). */
  targetAgentId: string;
  request: Record<string, unknown>;
  /** A `payment` request's held payment. */
  paymentId?: string;
  /** What a policy request was asked against (the policy then), so a decided one keeps its old values. */
  before?: Record<string, unknown>;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  /** What carrying it out answered (the 200 body the request would have had). */
  result?: Record<string, unknown>;
  /** Why an approved request could not be carried out, with its stable code. */
  error?: string;
  errorCode?: string;
};

export type Approvals = {
  approvals: Approval[];
};

/** GET /v1/approvals/:id; the agent that asked for a deploy collects the new agent's key here, once, after approval. */
export type ApprovalRead = Approval & {
  apiKey?: string;
};

/** POST /v1/approvals/:id/approve (or deny): the request as it now stands. */
export type Decided = Approval;
