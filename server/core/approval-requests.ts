/**
 * The asking side of approvals: an agent's request stored for the owner, and a stopped agent's
 * requests withdrawn. Apart from the deciding side (approvals.ts), which carries requests out through
 * agents and allocations: those modules ask through this one, so none of them imports the other back.
 */
import { randomBytes } from 'node:crypto';
import { CofferError } from './errors.js';
import { actorOf, type Principal } from './auth.js';
import { audit, DAY_MS, type EngineContext } from './context.js';
import type { ApprovalKind, ApprovalRecord } from './ports/store.js';
import { approvalView } from './views.js';
import type { AwaitingApproval } from './outcome.js';

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
): AwaitingApproval {
  const asker = ctx.store.getAgent(principal.owner, principal.agentId);
  if (asker?.status === 'suspended' && kind !== 'resume') {
    throw new CofferError('agent_suspended', `agent "${principal.agentId}" is stopped: it can only ask to be resumed`);
  }
  ctx.store.expireApprovals(ctx.clock.now());
  const waiting = ctx.store.listApprovals(principal.owner, 'pending', 500).filter((a) => a.agentId === principal.agentId);
  // The same request asked again is the same request: no second inbox entry.
  const same = waiting.find(
    (a) => a.kind === kind && a.targetAgentId === targetAgentId && JSON.stringify(a.request) === JSON.stringify(request),
  );
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
    status: 'pending',
    result: null,
    error: null,
    createdAt: now,
    expiresAt: now + APPROVAL_TTL_MS,
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
 * A stopped agent's waiting requests are withdrawn, so nothing it asked for before the brake can be
 * granted by a later click in the inbox. Asking to be resumed stays: that is what a stopped agent
 * may still ask. Runs inside the caller's transaction (the kill).
 */
export function withdrawRequestsOf(ctx: EngineContext, owner: string, agentId: string, actor: string): void {
  const withdrawn = ctx.store.withdrawApprovals(owner, agentId, ctx.clock.now());
  if (withdrawn.length === 0) return;
  audit(ctx, { actor, owner, agentId, action: 'approval.withdrawn', detail: { approvalIds: withdrawn.map((a) => a.id) } });
  for (const { id, kind } of withdrawn) {
    ctx.events.emit({ type: 'approval', owner, agentId, approvalId: id, kind, status: 'withdrawn' });
  }
}
