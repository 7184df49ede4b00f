/** Port: requests an agent makes that wait for the owner's decision. */
export type ApprovalKind = 'policy' | 'allocate' | 'resume' | 'deploy';
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'failed' | 'withdrawn';

export interface ApprovalRecord {
  id: string;
  owner: string;
  /** The agent that asked. */
  agentId: string;
  kind: ApprovalKind;
  /** The agent the request acts on (itself, or the new agent of a deploy). */
  targetAgentId: string;
  request: Record<string, unknown>;
  status: ApprovalStatus;
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
  deliveredAt: number | null;
}

export interface ApprovalStore {
  insertApproval(approval: ApprovalRecord): void;
  getApproval(id: string): ApprovalRecord | null;
  listApprovals(owner: string, status: ApprovalStatus | null, limit: number): ApprovalRecord[];
  /** Moves an approval on from `from`; false when it was no longer in that state (someone else decided). */
  transitionApproval(id: string, from: ApprovalStatus, to: ApprovalStatus, at: number): boolean;
  /** Approved requests with no outcome recorded: the process stopped while carrying them out. */
  interruptedApprovals(): ApprovalRecord[];
  recordApprovalOutcome(id: string, status: 'approved' | 'failed', result: Record<string, unknown> | null, error: string | null): void;
  markApprovalDelivered(id: string, at: number): boolean;
  expireApprovals(now: number): number;
  /** Withdraws an agent's waiting requests except asking to be resumed; answers the ids withdrawn. */
  withdrawApprovals(owner: string, agentId: string, at: number): { id: string; kind: ApprovalKind }[];
}
