import { CofferError } from '../../wire/errors.js';
import { FRESH_FOR, requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import type { ApprovalRecord, ApprovalStatus } from '../ports/store.js';
import { approvalView } from '../views.js';
import type { ApprovalCarriers, ApprovalOutcome } from './carriers.js';
import { expireWaiting, HOLD_ENDINGS } from './requests.js';
import type { Approval, ApprovalRead, Approvals, Decided } from '../../wire/answers/approvals.js';
import { approvalIdWords } from '../../wire/approval-id.js';

/**
 * Approvals a stopped process was carrying out: approved, with no outcome recorded. A held payment's
 * fate is read from its row, which the reconciliation that runs before this settled: paid (the
 * approval answers the payment) or not (failed, saying so). For the other kinds, whether the work was
 * done cannot be told for sure (an agent of that name may have been made by someone else), so each is
 * recorded as failed with what the owner should check, and nothing is handed out: no key goes to an
 * asking agent from a deploy that was not seen through. The money side of an allocation, if any, was
 * settled by that reconciliation too.
 */
export async function recoverInterruptedApprovals(ctx: EngineContext, carriers: ApprovalCarriers): Promise<number> {
  const interrupted = ctx.store.interruptedApprovals();
  for (const approval of interrupted) {
    const outcome: ApprovalOutcome =
      approval.kind === 'payment'
        ? await carriers.interruptedPayment(ctx, approval)
        : {
            status: 'failed' as const,
            result: null,
            error: {
              code: 'approval_interrupted',
              message:
                approval.kind === 'deploy'
                  ? `Coffer stopped while creating agent "${approval.targetAgentId}"; no key was handed over. If the agent exists, issue it a key from its page.`
                  : 'Coffer stopped while carrying this out; it may have been applied in part: check the agent (balance, policy, status) before approving it again.',
            },
          };
    ctx.store.transaction(() => {
      ctx.store.recordApprovalOutcome(approval.id, outcome.status, outcome.result, outcome.error);
      audit(ctx, {
        actor: 'system',
        owner: approval.owner,
        agentId: approval.agentId,
        action: 'approval.recovered',
        detail: { approvalId: approval.id, kind: approval.kind, status: outcome.status },
      });
    });
  }
  return interrupted.length;
}

export function listApprovals(ctx: EngineContext, principal: Principal, status: ApprovalStatus | null): Approvals {
  requireOwner(principal);
  expireWaiting(ctx);
  return { approvals: ctx.store.listApprovals(principal.owner, status, 200).map(approvalView) };
}

function getApprovalOrThrow(ctx: EngineContext, owner: string, id: string): ApprovalRecord {
  expireWaiting(ctx);
  const approval = ctx.store.getApproval(id);
  if (approval === null || approval.owner !== owner) throw new CofferError('approval_not_found', `no approval ${approvalIdWords(id)}`);
  return approval;
}

/**
 * The owner's view of one request, or the asking agent's. The agent that asked for another agent
 * collects that agent's API key here, once, after approval: the key is minted at that moment, so no
 * secret ever waits in storage.
 */
export function readApproval(ctx: EngineContext, carriers: ApprovalCarriers, principal: Principal, id: string): ApprovalRead {
  const approval = readableApproval(ctx, principal, id);
  const view = approvalView(approval);
  if (principal.kind !== 'agent' || approval.kind !== 'deploy' || approval.status !== 'approved' || approval.deliveredAt !== null)
    return view;
  // Only once the deploy is done and recorded, only for the agent this approval created, and never to
  // a requester that has been stopped since.
  const created = (approval.result?.agent as { walletAddress?: string } | undefined)?.walletAddress;
  const target = ctx.store.getAgent(approval.owner, approval.targetAgentId);
  const requester = ctx.store.getAgent(approval.owner, approval.agentId);
  if (created === undefined || target?.walletAddress !== created || requester?.status !== 'active') return view;
  return ctx.store.transaction(() => {
    if (!ctx.store.markApprovalDelivered(approval.id, ctx.clock.now())) return view;
    return { ...view, apiKey: carriers.issueAgentKey(ctx, approval.owner, approval.targetAgentId) };
  });
}

/**
 * Waits until the request is decided (and carried out), or `waitSeconds` or the request runs out, or
 * Coffer stops, or `gone` says its caller went away, whichever comes first; then the caller reads it
 * (readApproval), asked anew: a key revoked while it waited is refused then, and handed no new
 * agent's key (helper 201). Security invariant: a wait ends with its caller, holding nothing after:
 * one that ran its minute after its caller left held its request and a listener on every event, and
 * one key aborting waits in a loop took the server past 1 GB (helper 201).
 */
export async function waitForDecision(
  ctx: EngineContext,
  principal: Principal,
  id: string,
  waitSeconds: number,
  gone?: AbortSignal,
): Promise<void> {
  const approval = readableApproval(ctx, principal, id);
  if (!undecided(approval) || waitSeconds <= 0) return;
  await decisionOf(ctx, approval.id, Math.min(waitSeconds * 1000, Math.max(0, approval.expiresAt - ctx.clock.now()) + 1), gone);
}

/** The request, where the caller may read it: the owner's, or the asking agent's own. */
function readableApproval(ctx: EngineContext, principal: Principal, id: string): ApprovalRecord {
  const approval = getApprovalOrThrow(ctx, principal.owner, id);
  if (principal.kind === 'agent' && principal.agentId !== approval.agentId) {
    throw new CofferError('wrong_agent', 'this approval belongs to another agent');
  }
  return approval;
}

/**
 * Every long poll answered now, each with its request as it stands (Coffer stopping): the server's
 * stop waits for requests in flight, and a poll left to run its minute held the stop until its
 * connection was cut (15 s), the agent then told Coffer did not answer.
 */
export function endDecisionWaits(ctx: EngineContext): void {
  for (const finish of [...ctx.state.decisionWaits]) finish();
}

/** Waiting for the owner, or approved and still being carried out. */
const undecided = (approval: ApprovalRecord) =>
  approval.status === 'pending' || (approval.status === 'approved' && approval.result === null && approval.error === null);

/** Resolves once the request is decided and announced (announceDecision, expiry, withdrawal), after `ms`, or once `gone` aborts. */
function decisionOf(ctx: EngineContext, approvalId: string, ms: number, gone?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (gone?.aborted === true) return resolve();
    const finish = () => {
      clearTimeout(timer);
      unsubscribe();
      gone?.removeEventListener('abort', finish);
      ctx.state.decisionWaits.delete(finish);
      resolve();
    };
    ctx.state.decisionWaits.add(finish);
    gone?.addEventListener('abort', finish, { once: true });
    // A wait answers one request; it holds no process up: a Coffer stopping (SIGTERM) ended 60 s after
    // its last line while an agent waited on a decision.
    const timer = setTimeout(finish, ms);
    timer.unref();
    const unsubscribe = ctx.events.subscribe((event) => {
      if (event.type === 'approval' && event.approvalId === approvalId && event.status !== 'pending') finish();
    });
  });
}

/**
 * Carries out an approved request exactly as asked, once: the pending -> approved step is one
 * conditional update, so two approvals racing (two clicks, two windows) run it once; a denied or
 * expired request never runs.
 */
export async function approve(ctx: EngineContext, carriers: ApprovalCarriers, principal: Principal, id: string): Promise<Decided> {
  requireOwner(principal);
  const approval = getApprovalOrThrow(ctx, principal.owner, id);
  // Every request an agent waits on loosens what it can spend (or, a deploy, hands out a key): a fresh sign-in.
  requireFreshSignIn(principal, ctx.clock.now(), approval.kind === 'deploy' ? FRESH_FOR.minting : FRESH_FOR.money);
  const looking = approval.kind === 'payment' && approval.status === 'pending' ? carriers.beforePaymentYes(ctx, approval) : null;
  const look = looking === null ? null : await looking;
  // A request that ran out while the chain was read is not taken.
  if (looking !== null) expireWaiting(ctx);
  if (!ctx.store.transitionApproval(id, 'pending', 'approved', ctx.clock.now())) throw alreadyDecided(ctx, id);
  let outcome: ApprovalOutcome;
  try {
    // Carried out as the owner asked it to be, by the capability that owns its kind.
    outcome = { status: 'approved', result: await carriers.carryOut[approval.kind](ctx, approval, principal, look), error: null };
  } catch (error) {
    // A refusal is the owner's answer; anything else is ours, and the log names the approval it broke.
    if (!(error instanceof CofferError))
      ctx.log(`approval ${id} (${approval.kind} for ${approval.agentId}) failed: ${(error as Error).message}`);
    outcome = {
      status: 'failed',
      result: null,
      error: error instanceof CofferError ? { code: error.code, message: error.message } : { code: 'internal', message: 'internal error' },
    };
  }
  ctx.store.transaction(() => {
    ctx.store.recordApprovalOutcome(id, outcome.status, outcome.result, outcome.error);
    audit(ctx, {
      actor: 'owner',
      owner: principal.owner,
      agentId: approval.agentId,
      action: `approval.${outcome.status}`,
      detail: { approvalId: id, kind: approval.kind, error: outcome.error?.message ?? null },
    });
  });
  return announceDecision(ctx, approval, outcome.status);
}

/**
 * A request decided before this decision, said as it stands now (read again: one decided by another
 * process meanwhile was read pending, and said "already pending").
 */
function alreadyDecided(ctx: EngineContext, id: string): CofferError {
  // Read as stored (not through getApprovalOrThrow, whose expiry writes and announces, here inside a
  // decision's write that is then undone).
  const status = ctx.store.getApproval(id)?.status ?? 'gone';
  return new CofferError('approval_decided', status === 'failed' ? 'this request already failed' : `this request is already ${status}`);
}

export function deny(ctx: EngineContext, principal: Principal, id: string): Decided {
  requireOwner(principal);
  const approval = getApprovalOrThrow(ctx, principal.owner, id);
  const now = ctx.clock.now();
  ctx.store.transaction(() => {
    if (!ctx.store.transitionApproval(id, 'pending', 'denied', now)) throw alreadyDecided(ctx, id);
    // A denied payment is never paid: its hold ends in the same write.
    if (approval.paymentId !== null) ctx.store.failHeldPayment(approval.paymentId, HOLD_ENDINGS.denied, now);
    audit(ctx, {
      actor: 'owner',
      owner: principal.owner,
      agentId: approval.agentId,
      action: 'approval.denied',
      detail: { approvalId: id, kind: approval.kind },
    });
  });
  return announceDecision(ctx, approval, 'denied');
}

/** Tells the owner's screens how a request was decided, and answers the approval as it now stands. */
function announceDecision(ctx: EngineContext, approval: ApprovalRecord, status: 'approved' | 'failed' | 'denied'): Approval {
  const { owner, agentId, id: approvalId, kind } = approval;
  ctx.events.emit({ type: 'approval', owner, agentId, approvalId, kind, status });
  return approvalView(ctx.store.getApproval(approvalId) ?? approval);
}
