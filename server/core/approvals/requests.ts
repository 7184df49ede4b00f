/**
 * The asking side of approvals: an agent's request stored for the owner, and a stopped agent's
 * requests withdrawn. Apart from the deciding side (decisions.ts), which carries requests out through
 * the table the capabilities hand in (carriers.ts): they ask through this module, and none is imported back.
 */
import { randomBytes } from 'node:crypto';
import { CofferError } from '../../wire/errors.js';
import { actorOf, type Principal } from '../auth.js';
import { audit, DAY_MS, type EngineContext } from '../context.js';
import type { ApprovalKind, ApprovalRecord, EndedApproval } from '../ports/store.js';
import { approvalView } from '../views.js';
import type { AwaitingApproval } from '../outcome.js';
import type { Approval } from '../../wire/answers/approvals.js';
import { approvalIdWords } from '../../wire/approval-id.js';

/** An agent may have this many requests waiting; more would bury the owner's inbox. */
export const MAX_PENDING_PER_AGENT = 20;

/** How long an agent's request waits for the owner before it expires (and can never be carried out). */
export const APPROVAL_TTL_MS = DAY_MS;

/**
 * Stores what an agent asked for that only the owner may grant (a looser policy, an allocation,
 * resuming itself, another agent). Nothing is applied now; the owner approves or denies.
 */
export function requestApproval(
  ctx: EngineContext,
  principal: Principal & { kind: 'agent' },
  kind: ApprovalKind,
  targetAgentId: string,
  request: Record<string, unknown>,
  /**
   * A payment's request: its held payment (payments/held.ts), written in the same write by the
   * caller, and when a yes stops being of use, where that is sooner than the request's day (a
   * seller's terms that end: null, none).
   */
  held: { paymentId: string; usefulUntil: number | null } | null = null,
  /** What it is asked against (a policy change: the policy now), kept for reading it once decided. */
  before: Record<string, unknown> | null = null,
): AwaitingApproval {
  const paymentId = held?.paymentId ?? null;
  const asker = ctx.store.getAgent(principal.owner, principal.agentId);
  if (asker?.status === 'suspended' && kind !== 'resume') {
    throw new CofferError('agent_suspended', `agent "${principal.agentId}" is stopped: it can only ask to be resumed`);
  }
  expireWaiting(ctx);
  const waiting = ctx.store.listApprovals(principal.owner, 'pending', 500).filter((a) => a.agentId === principal.agentId);
  // The same request asked again is the same request: no second inbox entry. Not a payment's: each
  // held payment is one the agent asked for (another Idempotency-Key is another payment), its own
  // row, which only its own approval ends.
  const same =
    paymentId === null &&
    waiting.find((a) => a.kind === kind && a.targetAgentId === targetAgentId && JSON.stringify(a.request) === JSON.stringify(request));
  if (same) return { kind: 'awaiting_approval', approval: approvalView(same) };
  if (waiting.length >= MAX_PENDING_PER_AGENT) {
    throw new CofferError('too_many_requests', `agent "${principal.agentId}" already has ${waiting.length} requests waiting for the owner`);
  }
  const now = ctx.clock.now();
  const approval: ApprovalRecord = {
    id: `apr_${randomBytes(12).toString('base64url')}`,
    owner: principal.owner,
    agentId: principal.agentId,
    kind,
    targetAgentId,
    request,
    before,
    paymentId,
    status: 'pending',
    result: null,
    error: null,
    errorCode: null,
    createdAt: now,
    // A request whose yes would buy nothing past a moment ends then: it expires, nothing paid.
    expiresAt: Math.min(now + APPROVAL_TTL_MS, held?.usefulUntil ?? Number.POSITIVE_INFINITY),
    decidedAt: null,
    deliveredAt: null,
  };
  ctx.store.transaction(() => {
    ctx.store.insertApproval(approval);
    audit(ctx, {
      actor: actorOf(principal),
      owner: principal.owner,
      agentId: principal.agentId,
      action: `approval.requested`,
      detail: { approvalId: approval.id, kind, request },
    });
  });
  ctx.events.emit({
    type: 'approval',
    owner: principal.owner,
    agentId: principal.agentId,
    approvalId: approval.id,
    kind,
    status: 'pending',
    request,
  });
  return { kind: 'awaiting_approval', approval: approvalView(approval) };
}

/**
 * The agent that asked takes back its own request while it waits (`coffer fetch` interrupted, an MCP
 * bridge closed by its host), or an x402 purchase approved and not bought yet: withdrawn, its held
 * payment failed, nothing paid. Without it, a yes given after the asker went away paid a Coffer
 * receipt at once that no one would present. The owner's answer and the withdrawal are one
 * conditional update each: whichever comes first stands.
 */
export function withdrawOwnRequest(ctx: EngineContext, principal: Principal, id: string): Approval {
  if (principal.kind !== 'agent') {
    throw new CofferError(
      'wrong_agent',
      'only the agent that asked withdraws its request; the owner denies it (POST /v1/approvals/:id/deny)',
    );
  }
  expireWaiting(ctx);
  const approval = ctx.store.getApproval(id);
  if (approval === null || approval.owner !== principal.owner)
    throw new CofferError('approval_not_found', `no approval ${approvalIdWords(id)}`);
  // Another agent's request: not named (requireAgentScope would say whose it is).
  if (principal.kind === 'agent' && principal.agentId !== approval.agentId) {
    throw new CofferError('wrong_agent', "this request is another agent's: only the agent that asked withdraws it");
  }
  const ended: EndedApproval = { id, owner: approval.owner, agentId: approval.agentId, kind: approval.kind, paymentId: approval.paymentId };
  ctx.store.transaction(() => {
    // Waiting, or an x402 purchase the owner approved and the agent has not come back to buy: still
    // the agent's to take back (as a kill does), its budget freed.
    if (ctx.store.withdrawApproval(id, ctx.clock.now()) === null) {
      throw new CofferError(
        'approval_decided',
        `this request is no longer waiting: ${ctx.store.getApproval(id)?.status ?? approval.status}`,
      );
    }
    endHolds(ctx, [ended], HOLD_ENDINGS.withdrawn);
    audit(ctx, {
      actor: actorOf(principal),
      owner: approval.owner,
      agentId: approval.agentId,
      action: 'approval.withdrawn',
      detail: { approvalIds: [id] },
    });
  });
  announceEnded(ctx, [ended], 'withdrawn');
  return approvalView(ctx.store.getApproval(id) ?? approval);
}

/**
 * A stopped agent's waiting requests are withdrawn, so nothing it asked for before the brake can be
 * granted by a later click in the inbox. Asking to be resumed stays: that is what a stopped agent
 * may still ask; it is withdrawn (`which: 'resume'`) once the owner resumes it, since nothing is left
 * to decide. Runs inside the caller's transaction (the kill, the resume).
 */
export function withdrawRequestsOf(
  ctx: EngineContext,
  owner: string,
  agentId: string,
  actor: string,
  which: 'all-but-resume' | 'resume' = 'all-but-resume',
): readonly EndedApproval[] {
  const withdrawn = ctx.store.withdrawApprovals(owner, agentId, ctx.clock.now(), which);
  if (withdrawn.length === 0) return withdrawn;
  endHolds(ctx, withdrawn, HOLD_ENDINGS.withdrawn);
  audit(ctx, { actor, owner, agentId, action: 'approval.withdrawn', detail: { approvalIds: withdrawn.map((a) => a.id) } });
  announceEnded(ctx, withdrawn, 'withdrawn');
  return withdrawn;
}

/**
 * Requests nobody decided within their time expire (and a held payment with its request: nothing is
 * paid, its budgets are free again). Looked for whenever requests are read or asked, and every minute
 * (the boot's minute timer), so a held payment's budget is not kept longer than its request lives.
 */
export function expireWaiting(ctx: EngineContext): void {
  const expired = ctx.store.transaction(() => {
    const ended = ctx.store.expireApprovals(ctx.clock.now());
    endHolds(ctx, ended, HOLD_ENDINGS.expired);
    // An x402 purchase approved but never made within the request's time: its budget is free again.
    ctx.store.expireUnusedHolds(ctx.clock.now());
    return ended;
  });
  announceEnded(ctx, expired, 'expired');
}

function announceEnded(ctx: EngineContext, ended: readonly EndedApproval[], status: 'withdrawn' | 'expired'): void {
  for (const { id, owner, agentId, kind } of ended) ctx.events.emit({ type: 'approval', owner, agentId, approvalId: id, kind, status });
}

/** Requests that ended without the owner's yes: their held payments fail, nothing moved. In the caller's write. */
function endHolds(ctx: EngineContext, ended: readonly EndedApproval[], code: string): void {
  const at = ctx.clock.now();
  for (const { paymentId } of ended) if (paymentId !== null) ctx.store.failHeldPayment(paymentId, code, at);
}

/** The code a held payment's request that ended without the owner's yes answers with; null for the other statuses. */
export const endedCode = (status: string): (typeof HOLD_ENDINGS)[keyof typeof HOLD_ENDINGS] | null =>
  status === 'denied'
    ? HOLD_ENDINGS.denied
    : status === 'expired'
      ? HOLD_ENDINGS.expired
      : status === 'withdrawn'
        ? HOLD_ENDINGS.withdrawn
        : null;

/** The codes a held payment that was never paid fails with, besides a refusal when approved (payments/held.ts). */
export const HOLD_ENDINGS = {
  denied: 'payment_denied',
  expired: 'approval_expired',
  withdrawn: 'approval_withdrawn',
  interrupted: 'approval_interrupted',
} as const;
