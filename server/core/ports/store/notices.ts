/**
 * Port: what the owner was told about an agent, and when (a budget passing a share, a policy's coming
 * end), so each is told once per its period, across restarts.
 */
export interface NoticeStore {
  /** When the owner was last told `subject` about this agent; null: never. */
  noticeToldAt(owner: string, agentId: string, subject: string): number | null;
  recordNotice(owner: string, agentId: string, subject: string, at: number): void;
  /** Forgets what the owner was told about an agent (its policy changed: what it says is told afresh). */
  forgetNotices(owner: string, agentId: string): void;
}
