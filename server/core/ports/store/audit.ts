/** Port: the append-only audit log of what owners and agents did. */
export interface AuditEntry {
  at: number;
  actor: string;
  owner: string;
  agentId: string | null;
  action: string;
  detail: Record<string, unknown>;
}

export interface AuditStore {
  appendAudit(entry: AuditEntry): void;
  listAudit(owner: string, limit: number): AuditEntry[];
}
