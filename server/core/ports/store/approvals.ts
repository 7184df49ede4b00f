import type { ApprovalKind, ApprovalStatus } from '../../../wire/answers/approvals.js';

/** Port: requests an agent makes that wait for the owner's decision. */
export type { ApprovalKind, ApprovalStatus };

export interface ApprovalRecord {
  id: string;
  owner: string;
  /** The agent that asked. */
  agentId: string;
  kind: ApprovalKind;
  /** The agent the request acts on (itself, or the new agent of a deploy). */
  targetAgentId: string;
  request: Record<string, unknown>;
  /**
   * What the request was asked against (a policy change: the policy then), so a decided request still
   * reads "daily budget 10.00 → 100.00 USDC" once the policy moved on; null when nothing needs it.
   */
  before: Record<string, unknown> | null;
  /** A `payment` approval's held payment (a transfer with status `held` while it waits); null for the other kinds. */
  paymentId: string | null;
  status: ApprovalStatus;
  result: Record<string, unknown> | null;
  /** Why a request approved could not be carried out (`failed`): the words, and the stable code. */
  error: string | null;
  errorCode: string | null;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
  deliveredAt: number | null;
}

/** A request that ended without the owner's decision. */
export type EndedApproval = Pick<ApprovalRecord, 'id' | 'owner' | 'agentId' | 'kind' | 'paymentId'>;

export interface ApprovalStore {
  insertApproval(approval: ApprovalRecord): void;
  getApproval(id: string): ApprovalRecord | null;
  /** The approval a held payment waits for (or waited for). */
  findApprovalByPayment(paymentId: string): ApprovalRecord | null;
  listApprovals(owner: string, status: ApprovalStatus | null, limit: number): ApprovalRecord[];
  /** Moves an approval on from `from`; false when it was no longer in that state (someone else decided). */
  transitionApproval(id: string, from: ApprovalStatus, to: ApprovalStatus, at: number): boolean;
  /** Approved requests with no outcome recorded: the process stopped while carrying them out. */
  interruptedApprovals(): ApprovalRecord[];
  recordApprovalOutcome(
    id: string,
    status: 'approved' | 'failed',
    result: Record<string, unknown> | null,
    error: { code: string; message: string } | null,
  ): void;
  markApprovalDelivered(id: string, at: number): boolean;
  /** Expires what waited past its time; answers what expired (the core fails their held payments). */
  expireApprovals(now: number): EndedApproval[];
  /**
   * Held payments approved but not made by the time their request expires (an x402 purchase the agent
   * never came back for): failed `approval_expired`. Answers how many.
   */
  expireUnusedHolds(now: number): number;
  /**
   * Withdraws an agent's waiting requests: all but asking to be resumed (it was stopped), or only
   * that one (it was resumed); answers what was withdrawn. An x402 purchase approved and not made
   * yet (its payment still held: the agent buys it with fresh terms) is withdrawn with the waiting
   * ones: stopped, the agent buys nothing. (A /pay payment approved is being paid by the owner's yes.)
   */
  withdrawApprovals(owner: string, agentId: string, at: number, which: 'all-but-resume' | 'resume'): EndedApproval[];
  /** Withdraws one request on the same terms (its agent took it back); null where it is not one of those. */
  withdrawApproval(id: string, at: number): EndedApproval | null;
  /**
   * The policy an agent's waiting policy requests are asked against, once it changed: approving one
   * applies it onto the policy as it is then, so the owner must read it against that one. A decided
   * request keeps the policy it was decided on.
   */
  setWaitingPolicyBefore(owner: string, agentId: string, before: Record<string, unknown>): void;
}
