import { formatUsdc } from './money.js';
import { budgetView } from './budgets.js';
import { breakerView } from './breaker.js';
import { DEFAULT_WARN_AT } from './schemas.js';
import type { AgentRecord, ApprovalRecord, PaymentRecord, Policy, RefusalRecord } from './ports/store.js';

/** Record-to-response shapes shared by every door. */
export const iso = (ms: number): string => new Date(ms).toISOString();

export const policyView = (policy: Policy) => {
  const view: {
    dailyBudget: string;
    maxPerPayment: string;
    cooldownSeconds: number;
    allowedServices: string[];
    budgets?: ReturnType<typeof budgetView>[];
    expiresAt?: string;
    warnAt?: number[];
    breaker?: ReturnType<typeof breakerView>;
    askAbove?: string;
    askNewRecipient?: true;
  } = {
    dailyBudget: formatUsdc(policy.dailyBudget),
    maxPerPayment: formatUsdc(policy.maxPerPayment),
    cooldownSeconds: policy.cooldownSeconds,
    allowedServices: [...policy.allowedServices],
  };
  // Only what a policy holds beyond the seed's four fields is said: a policy without any of it
  // answers as it always has. (Set one by one, not spread: spreads made each view a dictionary,
  // garbage a dashboard of many agents pays for.)
  if (policy.budgets.length > 0) view.budgets = policy.budgets.map(budgetView);
  if (policy.expiresAt !== null) view.expiresAt = iso(policy.expiresAt);
  if (!sameShares(policy.warnAt, DEFAULT_WARN_AT)) view.warnAt = [...policy.warnAt];
  if (policy.breaker !== null) view.breaker = breakerView(policy.breaker);
  if (policy.askAbove !== null) view.askAbove = formatUsdc(policy.askAbove);
  if (policy.askNewRecipient) view.askNewRecipient = true;
  return view;
};

const sameShares = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((share, i) => share === b[i]);
export type PolicyView = ReturnType<typeof policyView>;

export const agentView = (agent: AgentRecord) => ({
  agentId: agent.agentId,
  walletAddress: agent.walletAddress,
  createdAt: iso(agent.createdAt),
  displayName: agent.displayName,
  status: agent.status,
  // Why it stopped, when no person stopped it (its breaker tripped).
  ...(agent.status === 'suspended' && agent.statusReason !== null ? { statusReason: agent.statusReason } : {}),
  ...(agent.archivedAt === null ? {} : { archivedAt: iso(agent.archivedAt) }),
});

/** A payment's state as shown: `refunded` once the money came back to the agent (it no longer counts as spent). */
const shownStatus = (payment: PaymentRecord) => (payment.refundedAt !== null ? ('refunded' as const) : payment.status);

/**
 * The refund of a refunded payment: its whole amount, given back on chain to the agent's wallet, or
 * kept in the treasury (no transaction) when the agent had been archived.
 */
const refundOf = (payment: PaymentRecord) =>
  payment.refundedAt === null
    ? {}
    : {
        refund: {
          amount: formatUsdc(payment.amount),
          to: payment.refundTxSignature === null ? ('treasury' as const) : ('agent' as const),
          txSignature: payment.refundTxSignature,
          timestamp: iso(payment.refundedAt),
        },
      };

export const spendRecordView = (payment: PaymentRecord) => ({
  id: payment.id,
  service: payment.serviceName,
  serviceId: payment.serviceId,
  amount: formatUsdc(payment.amount),
  currency: 'USDC' as const,
  status: shownStatus(payment),
  timestamp: iso(payment.createdAt),
  description: payment.description,
  recipient: payment.recipient,
  txSignature: payment.txSignature,
  protocol: payment.protocol,
  resource: payment.resource,
  ...refundOf(payment),
});

/** Clock time in the machine's local time zone: the dashboard is read on this machine. */
export const clockTime = (ms: number): string => {
  const date = new Date(ms);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
};

const ACTIVITY_STATUS = { confirmed: 'approved', held: 'held', pending: 'pending', failed: 'failed', refunded: 'refunded' } as const;

export const activityView = (payment: PaymentRecord) => ({
  id: payment.id,
  agent: payment.agentId,
  venue: payment.serviceName,
  amount: formatUsdc(payment.amount),
  rail: 'sol' as const,
  time: clockTime(payment.createdAt),
  status: ACTIVITY_STATUS[shownStatus(payment)],
  timestamp: iso(payment.createdAt),
  txSignature: payment.txSignature,
  protocol: payment.protocol,
  resource: payment.resource,
  recipient: payment.recipient,
});

/** A refused payment; `venue` names the service as the activity does (its registry name, else what the agent sent). */
export const refusalView = (refusal: RefusalRecord, registryName: string | null) => ({
  agent: refusal.agentId,
  service: refusal.service,
  venue: registryName ?? refusal.service,
  amount: refusal.amount,
  currency: 'USDC' as const,
  code: refusal.code,
  message: refusal.message,
  timestamp: iso(refusal.at),
});

/** Where a first start stands (server/boot/first-start.ts), as the setup page sees it. */
export interface FirstStartStatus {
  /** The network Coffer was started for (null: none named; a new treasury is on sim). */
  network: string | null;
  dataDir: string;
  /** `waiting` until the owner chose; then what they chose, and Coffer starts. */
  state: 'waiting' | 'new' | 'restored';
  /** What was restored, in a line. */
  restored: string | null;
}

/** A backup file the first-start page sent, as its header describes it. */
export interface BackupFileReceived {
  network: string;
  createdAt: string;
  bytes: number;
}

/** A request waiting for (or decided by) the owner, as every door shows it. */
export const approvalView = (approval: ApprovalRecord) => ({
  approvalId: approval.id,
  status: approval.status,
  kind: approval.kind,
  agentId: approval.agentId,
  targetAgentId: approval.targetAgentId,
  request: approval.request,
  ...(approval.paymentId === null ? {} : { paymentId: approval.paymentId }),
  // What a policy request was asked against: the words of a decided one keep the old values.
  ...(approval.before === null ? {} : { before: approval.before }),
  createdAt: iso(approval.createdAt),
  expiresAt: iso(approval.expiresAt),
  decidedAt: approval.decidedAt === null ? null : iso(approval.decidedAt),
  ...(approval.result ? { result: approval.result } : {}),
  ...(approval.error ? { error: approval.error, errorCode: approval.errorCode ?? 'internal' } : {}),
});
export type ApprovalView = ReturnType<typeof approvalView>;
