/**
 * Record-to-response shapes shared by every door, each held to the wire type it answers with
 * (server/wire/answers); the wire's own views are server/wire/views.ts.
 */
import { formatUsdc } from '../wire/money.js';
import type { AgentRecord, ApprovalRecord, PaymentRecord, RefusalRecord } from './ports/store.js';
import { iso } from '../wire/views.js';
import type { AgentView } from '../wire/answers/agents.js';
import type { Approval } from '../wire/answers/approvals.js';
import type { Activity, PaymentRefund, Refusal, SpendRecord } from '../wire/answers/payments.js';

/** An agent as every door shows it; `baseWallet`: its account on the Base rail (rail-wallets.ts). */
export const agentView = (agent: AgentRecord, baseWallet: string | null): AgentView => ({
  agentId: agent.agentId,
  walletAddress: agent.walletAddress,
  wallets: { sol: agent.walletAddress, base: baseWallet },
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
const refundOf = (payment: PaymentRecord): { refund?: PaymentRefund } =>
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

/**
 * On a held payment the owner approved (`approvedAt`: when; null where its request still waits): an
 * x402 purchase the agent has not bought yet stays held, no longer the owner's to answer.
 */
const approvalOf = (payment: PaymentRecord, approvedAt: number | null): { approvedAt?: string } =>
  payment.status === 'held' && approvedAt !== null ? { approvedAt: iso(approvedAt) } : {};

/** Why a failed payment failed, on failed ones only. */
const failureOf = (payment: PaymentRecord): { errorCode?: string } =>
  payment.status === 'failed' && payment.errorCode !== null ? { errorCode: payment.errorCode } : {};

export const spendRecordView = (payment: PaymentRecord, approvedAt: number | null = null): SpendRecord => ({
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
  rail: payment.rail,
  ...failureOf(payment),
  ...approvalOf(payment, approvedAt),
  ...refundOf(payment),
});

/** Clock time in the machine's local time zone: the dashboard is read on this machine. */
const clockTime = (ms: number): string => {
  const date = new Date(ms);
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
};

const ACTIVITY_STATUS = { confirmed: 'approved', held: 'held', pending: 'pending', failed: 'failed', refunded: 'refunded' } as const;

export const activityView = (payment: PaymentRecord, approvedAt: number | null = null): Activity => ({
  id: payment.id,
  agent: payment.agentId,
  venue: payment.serviceName,
  amount: formatUsdc(payment.amount),
  rail: payment.rail,
  time: clockTime(payment.createdAt),
  status: ACTIVITY_STATUS[shownStatus(payment)],
  timestamp: iso(payment.createdAt),
  txSignature: payment.txSignature,
  protocol: payment.protocol,
  resource: payment.resource,
  recipient: payment.recipient,
  ...failureOf(payment),
  ...approvalOf(payment, approvedAt),
});

/** A refused payment; `venue` names the service as the activity does (its registry name, else what the agent sent). */
export const refusalView = (refusal: RefusalRecord, registryName: string | null): Refusal => ({
  agent: refusal.agentId,
  service: refusal.service,
  venue: registryName ?? refusal.service,
  amount: refusal.amount,
  currency: 'USDC' as const,
  rail: refusal.rail,
  code: refusal.code,
  message: refusal.message,
  timestamp: iso(refusal.at),
});

/** A request waiting for (or decided by) the owner, as every door shows it. */
export const approvalView = (approval: ApprovalRecord): Approval => ({
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
