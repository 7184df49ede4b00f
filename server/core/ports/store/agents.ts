import type { Policy } from '../../../wire/policy/policy.js';
import type { AgentStatus } from '../../../wire/answers/agents.js';

/** Port: agents and the spending policy each one carries. */
export type { AgentStatus };

export interface AgentRecord {
  owner: string;
  agentId: string;
  walletAddress: string;
  displayName: string;
  status: AgentStatus;
  /** Why it is suspended when no person stopped it (its breaker tripped: the words the owner reads); null otherwise. */
  statusReason: string | null;
  /** When its status last changed (stopped or resumed); null: never since it was made. The breaker judges spending only since. */
  statusChangedAt: number | null;
  createdAt: number;
  /** When the owner archived it (stopped for good, keys revoked, history kept); null while it is in use. */
  archivedAt: number | null;
}

export interface AgentStore {
  insertAgent(agent: AgentRecord, policy: Policy): void;
  getAgent(owner: string, agentId: string): AgentRecord | null;
  /** The owner's agents in use (archived ones are left out). */
  listAgents(owner: string): AgentRecord[];
  listArchivedAgents(owner: string): AgentRecord[];
  /** The archived agent whose wallet this is, if any (any owner of this data dir). */
  findArchivedAgentByWallet(walletAddress: string): AgentRecord | null;
  archiveAgent(owner: string, agentId: string, at: number): boolean;
  /**
   * Starts watching the money on its way into an agent's wallet (allocations and refunds to it,
   * payments to any of its `addresses`, one a rail, whoever pays): each call of the answer tells
   * whether such a move is pending now or was reserved since the watch began (whatever its state
   * now).
   */
  watchMovesInto(owner: string, agentId: string, addresses: readonly string[]): () => boolean;
  /** Sets an agent's status, why (null: a person did it; an agent resumed has no reason) and when. */
  setAgentStatus(owner: string, agentId: string, status: AgentStatus, reason: string | null, at: number): void;
  setAgentDisplayName(owner: string, agentId: string, displayName: string): void;
  getPolicy(owner: string, agentId: string): Policy;
  /** Every agent's policy of an owner by agent id; only the agents named, when `agentIds` is given (one read for a page of agents). */
  listPolicies(owner: string, agentIds?: readonly string[]): Map<string, Policy>;
  setPolicy(owner: string, agentId: string, policy: Policy, at: number): void;
}
