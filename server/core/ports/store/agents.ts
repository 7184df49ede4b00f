import type { Policy } from '../../../wire/policy/policy.js';
import type { AgentStatus } from '../../../wire/answers/agents.js';
import type { Rail } from '../../../wire/rails.js';

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

/** The Idempotency-Key an agent was deployed under, and the digest of what that deploy asked. */
export interface DeployKey {
  key: string;
  requestHash: string;
}

export interface AgentStore {
  /** `deployedUnder`: the Idempotency-Key of the deploy that makes it, where it had one. */
  insertAgent(agent: AgentRecord, policy: Policy, deployedUnder?: DeployKey | null): void;
  /** The key an agent was deployed under; null where its deploy had none (or there is no such agent). */
  deployKeyOf(owner: string, agentId: string): DeployKey | null;
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
  /**
   * Whether the ledger ever had USDC on its way into the agent's wallet on that rail (pending or
   * confirmed, given back since or not): an allocation or a refund to it there, or a payment by any
   * owner's agent to its `address` there. What tells that a wallet on a rail Coffer cannot read now
   * may hold money.
   */
  hasMovedInto(owner: string, agentId: string, rail: Rail, address: string): boolean;
  /** Sets an agent's status, why (null: a person did it; an agent resumed has no reason) and when. */
  setAgentStatus(owner: string, agentId: string, status: AgentStatus, reason: string | null, at: number): void;
  setAgentDisplayName(owner: string, agentId: string, displayName: string): void;
  getPolicy(owner: string, agentId: string): Policy;
  /** Every agent's policy of an owner by agent id; only the agents named, when `agentIds` is given (one read for a page of agents). */
  listPolicies(owner: string, agentIds?: readonly string[]): Map<string, Policy>;
  setPolicy(owner: string, agentId: string, policy: Policy, at: number): void;
}
