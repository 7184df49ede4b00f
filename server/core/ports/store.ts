/**
 * The storage port. Synchronous on purpose: a reservation (policy checks + pending row) must run inside
 * one serialised write transaction with no await in between, so concurrent payments cannot overspend.
 * Times are epoch milliseconds; money is bigint micro-USDC.
 */
export type AgentStatus = 'active' | 'suspended';
export type TransferStatus = 'pending' | 'confirmed' | 'failed';

export interface OwnerRecord {
  address: string;
  createdAt: number;
}

export interface AgentRecord {
  owner: string;
  agentId: string;
  walletAddress: string;
  displayName: string;
  status: AgentStatus;
  createdAt: number;
  /** When the owner archived it (stopped for good, keys revoked, history kept); null while it is in use. */
  archivedAt: number | null;
}

export interface Policy {
  dailyBudget: bigint;
  maxPerPayment: bigint;
  cooldownSeconds: number;
  allowedServices: string[];
}

export type KeyScope = { kind: 'owner'; owner: string } | { kind: 'agent'; owner: string; agentId: string };

/** A signed transaction that may or may not have reached the chain yet. */
export interface SentTransaction {
  txSignature: string | null;
  /** The signed wire transaction (base64), kept so a restart can rebroadcast the same bytes. */
  txWire: string | null;
  lastValidBlockHeight: bigint | null;
}

export interface PaymentRecord extends SentTransaction {
  id: string;
  owner: string;
  agentId: string;
  serviceId: string;
  serviceName: string;
  recipient: string;
  amount: bigint;
  memo: string;
  description: string;
  status: TransferStatus;
  errorCode: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAt: number;
  settledAt: number | null;
  /** Set when a refund of this payment was confirmed: it no longer counts as spent. */
  refundedAt: number | null;
  refundTxSignature: string | null;
  /** `coffer`: Coffer signs and sends, the receipt is Coffer's. `x402`: the seller's facilitator sends. */
  protocol: 'coffer' | 'x402';
  /** The URL paid for (x402). */
  resource: string | null;
  /** x402: the header the agent retries with, once signed. */
  x402Header: { name: string; value: string } | null;
  /** x402: the agent's signature in the transaction, how the landed transaction is found. */
  payerSignature: string | null;
}

/** What signing an x402 payment records on its pending row (txSignature stays unknown until it lands). */
export interface X402Signature {
  txWire: string;
  payerSignature: string;
  /** A block height after which the transaction can no longer land. */
  lastValidBlockHeight: bigint;
  header: { name: string; value: string };
}

export interface AllocationRecord extends SentTransaction {
  id: string;
  owner: string;
  agentId: string;
  amount: bigint;
  status: TransferStatus;
  errorCode: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAt: number;
  settledAt: number | null;
  /** An allocation funds the agent (`to_agent`); a return gives its USDC back (`to_treasury`). */
  direction: 'to_agent' | 'to_treasury';
}

/** Money given back to an agent's wallet from the treasury for a payment whose work failed. */
export interface RefundRecord extends SentTransaction {
  id: string;
  owner: string;
  agentId: string;
  paymentId: string;
  taskId: string | null;
  amount: bigint;
  status: TransferStatus;
  errorCode: string | null;
  createdAt: number;
  settledAt: number | null;
}

/** USDC that came into the treasury: found on chain (confirmed at once), or minted by the sim faucet. */
export interface DepositRecord extends SentTransaction {
  id: string;
  owner: string;
  amount: bigint;
  from: string;
  source: 'faucet' | 'chain';
  status: TransferStatus;
  errorCode: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAt: number;
  settledAt: number | null;
}

/** A transfer into the treasury the deposit watcher found on chain. */
export interface ChainDeposit {
  id: string;
  owner: string;
  txSignature: string;
  amount: bigint;
  from: string;
  createdAt: number;
}

export interface AuditEntry {
  at: number;
  actor: string;
  owner: string;
  agentId: string | null;
  action: string;
  detail: Record<string, unknown>;
}

export interface ServiceRecord {
  id: string;
  name: string;
  description: string;
  category: string;
  /** Resolution prices ("1k", "2k", "4k") as decimal strings; empty for per-call APIs. */
  pricing: Record<string, string>;
  /** Price of one call as a decimal string, for per-call APIs. */
  pricePerCall: string | null;
  endpoint: string;
  source: 'svc-native' | 'model-registry' | 'x402-marketplace';
  payTo: string;
  network: string;
}

export interface ModelRecord {
  id: string;
  displayName: string;
  provider: string;
  description: string;
  pricing: Record<string, string>;
  enabled: boolean;
}

export interface AgentSpendTotals {
  lifetimeSpent: bigint;
  lifetimePayments: number;
  spentSince: bigint;
  lastPaymentAt: number | null;
}

export type TaskStatus = 'queued' | 'generating' | 'success' | 'failed';

export interface GenerationTask {
  id: string;
  owner: string;
  agentId: string;
  modelId: string;
  resolution: string;
  prompt: string;
  status: TaskStatus;
  estimatedCost: bigint;
  cost: bigint | null;
  paymentId: string;
  resultUrl: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

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

/** A payment the policy refused (nothing was reserved or sent). */
export interface RefusalRecord {
  owner: string;
  agentId: string;
  service: string;
  /** As the agent asked, normalised to USDC with its decimals. */
  amount: string;
  code: string;
  message: string;
  at: number;
}

export interface LinkSessionRecord {
  tokenHash: string;
  code: string;
  client: Record<string, unknown>;
  status: 'pending' | 'completed' | 'delivered';
  owner: string | null;
  agentId: string | null;
  createdAt: number;
  expiresAt: number;
  lastPolledAt: number | null;
  completedAt: number | null;
  /** When the owner first opened its page (then it never gives way to newer requests). */
  openedAt: number | null;
}

export interface Store {
  /** Runs fn inside one serialised write transaction (BEGIN IMMEDIATE); fn must not await. */
  transaction<T>(fn: () => T): T;

  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;

  insertOwner(owner: OwnerRecord): void;
  getOwner(address: string): OwnerRecord | null;
  listOwners(): OwnerRecord[];

  insertApiKey(hash: string, scope: KeyScope, createdAt: number): void;
  deleteApiKeys(scope: KeyScope): void;
  findApiKey(hash: string): KeyScope | null;

  insertAgent(agent: AgentRecord, policy: Policy): void;
  getAgent(owner: string, agentId: string): AgentRecord | null;
  /** The owner's agents in use (archived ones are left out). */
  listAgents(owner: string): AgentRecord[];
  listArchivedAgents(owner: string): AgentRecord[];
  archiveAgent(owner: string, agentId: string, at: number): boolean;
  setAgentStatus(owner: string, agentId: string, status: AgentStatus): void;
  setAgentDisplayName(owner: string, agentId: string, displayName: string): void;
  getPolicy(owner: string, agentId: string): Policy;
  /** Every agent's policy of an owner, by agent id (one read for a page of agents). */
  listPolicies(owner: string): Map<string, Policy>;
  setPolicy(owner: string, agentId: string, policy: Policy, at: number): void;

  insertPayment(payment: PaymentRecord): void;
  getPayment(id: string): PaymentRecord | null;
  /** A pending or confirmed payment of the agent to that recipient with that memo (a paid API's nonce). */
  findLivePaymentByMemo(owner: string, agentId: string, recipient: string, memo: string): PaymentRecord | null;
  findPaymentByIdempotencyKey(owner: string, agentId: string, key: string, since: number): PaymentRecord | null;
  /** False when the row is no longer pending (then nothing may be sent for it). */
  markPaymentSent(id: string, sent: SentTransaction): boolean;
  /** Records an x402 payment's signed transaction on its pending row; false when it is no longer pending. */
  markX402Signed(id: string, signed: X402Signature): boolean;
  /** A pending or confirmed x402 payment whose transaction carries this payer signature. */
  findLivePaymentByPayerSignature(payerSignature: string): PaymentRecord | null;
  /** Records the id of the transaction an x402 payment landed in (before it is settled). */
  markPaymentLanded(id: string, txSignature: string): void;
  /** Settles a pending row; false when it was no longer pending (someone else settled it). */
  settlePayment(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  /** Sum of pending and confirmed payments of an agent created after `since` (a payment exactly 24 h old is out). */
  spentSince(owner: string, agentId: string, since: number): bigint;
  /** Sum of pending payments of an agent (money reserved but not yet moved on chain). */
  pendingPaymentsTotal(owner: string, agentId: string): bigint;
  lastPaymentAt(owner: string, agentId: string): number | null;
  listPayments(owner: string, agentId: string, limit: number): PaymentRecord[];
  recentPayments(owner: string, limit: number): PaymentRecord[];
  /** Records a refused payment and keeps only the owner's latest `keep`. */
  recordRefusal(refusal: RefusalRecord, keep: number): void;
  recentRefusals(owner: string, limit: number): RefusalRecord[];
  pendingPayments(): PaymentRecord[];
  spendTotals(owner: string, since: number): Map<string, AgentSpendTotals>;

  insertAllocation(allocation: AllocationRecord): void;
  getAllocation(id: string): AllocationRecord | null;
  /** The newest allocation to that agent under that Idempotency-Key created after `since`. */
  findAllocationByIdempotencyKey(owner: string, agentId: string, key: string, since: number): AllocationRecord | null;
  markAllocationSent(id: string, sent: SentTransaction): boolean;
  /** Settles a pending row; false when it was no longer pending (someone else settled it). */
  settleAllocation(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  /** Allocations to agents not settled yet (what the treasury has promised away). */
  pendingAllocationsTotal(owner: string): bigint;
  /** Returns from this agent to the treasury not settled yet (what its wallet has promised away). */
  pendingReturnsTotal(owner: string, agentId: string): bigint;
  pendingAllocations(): AllocationRecord[];

  /** Records a deposit found on chain; false when its signature is recorded already. */
  insertChainDeposit(deposit: ChainDeposit): boolean;
  /** Reserves a faucet mint as a pending deposit (signed and sent after). */
  insertFaucetDeposit(deposit: DepositRecord): void;
  getDeposit(id: string): DepositRecord | null;
  findDepositByIdempotencyKey(owner: string, key: string, since: number): DepositRecord | null;
  markDepositSent(id: string, sent: SentTransaction): boolean;
  /** Settles a pending row; false when it was no longer pending (someone else settled it). */
  settleDeposit(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  pendingDeposits(): DepositRecord[];
  /** Confirmed deposits, newest first. */
  listDeposits(owner: string, limit: number): DepositRecord[];

  appendAudit(entry: AuditEntry): void;
  listAudit(owner: string, limit: number): AuditEntry[];

  insertRefund(refund: RefundRecord): void;
  getRefund(id: string): RefundRecord | null;
  /** The newest refund of a payment. */
  findRefundByPayment(paymentId: string): RefundRecord | null;
  markRefundSent(id: string, sent: SentTransaction): boolean;
  /** Settles a refund; a confirmed one also marks its payment refunded (one commit). */
  /** Settles a pending row; false when it was no longer pending (someone else settled it). */
  settleRefund(id: string, status: 'confirmed' | 'failed', errorCode: string | null, at: number): boolean;
  pendingRefunds(): RefundRecord[];
  /**
   * Failed tasks whose payment went to the treasury, was confirmed and was not given back: none
   * under way or done, and, unless `retryFailed`, none that failed either.
   */
  tasksOwedRefunds(retryFailed: boolean): GenerationTask[];
  /** Whether a transaction is one of Coffer's own payments (not a deposit from outside). */
  isPaymentTransaction(txSignature: string): boolean;

  insertTask(task: GenerationTask): void;
  getTask(owner: string, agentId: string, id: string): GenerationTask | null;
  findTaskByPayment(paymentId: string): GenerationTask | null;
  updateTask(id: string, change: Pick<GenerationTask, 'status' | 'cost' | 'resultUrl' | 'error' | 'updatedAt'>): void;
  openTasks(): GenerationTask[];
  /** An agent's tasks, newest first. */
  listTasks(owner: string, agentId: string, limit: number): GenerationTask[];

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

  insertLinkSession(session: LinkSessionRecord): void;
  /** Keeps at most `keep` sessions waiting at `now`: the oldest the owner has not opened go first. */
  trimWaitingLinkSessions(now: number, keep: number): void;
  /** Sessions waiting for the owner at `now`, newest first. */
  listWaitingLinkSessions(now: number, limit: number): LinkSessionRecord[];
  /** Forgets waiting sessions: those whose id (the token hash's first 16 characters) is listed, or all. */
  clearWaitingLinkSessions(ids: string[] | null): number;
  markLinkSessionOpened(tokenHash: string, at: number): void;
  /** Forgets sessions that expired before `before` (used, completed or not). */
  pruneLinkSessions(before: number): void;
  getLinkSession(tokenHash: string): LinkSessionRecord | null;
  touchLinkSession(tokenHash: string, at: number): void;
  completeLinkSession(tokenHash: string, owner: string, agentId: string, at: number): boolean;
  markLinkSessionDelivered(tokenHash: string): boolean;
  /** Undoes a claim whose deploy failed, so the owner can try again. */
  reopenLinkSession(tokenHash: string): void;

  /** Ranked matches; `total` counts them up to a cap (`totalIsCapped` beyond). */
  searchServices(query: string, limit: number): { results: ServiceRecord[]; total: number; totalIsCapped: boolean };
  getService(id: string): ServiceRecord | null;
  servicesPaidTo(payTo: string): ServiceRecord[];
  listModels(): ModelRecord[];
  getModel(id: string): ModelRecord | null;
}
