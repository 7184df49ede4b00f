/**
 * The kill switch: one agent, or all, stopped and resumed (the tray's, the dashboard's, `coffer kill`
 * and `coffer resume`), and the one place any stop is carried out (stopInWrite), which the breaker
 * (policy/spending-watch.ts tripBreaker) calls too. A stopped agent's payments are refused at every
 * door (agent-lookup.ts) and again in the reservation.
 */
import { refuse } from '../../wire/errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { requestApproval, withdrawRequestsOf } from '../approvals/requests.js';
import { archivedRefusal, getAgentOrThrow } from '../agent-lookup.js';
import { done, type Outcome } from '../outcome.js';
import type {
  AgentStatus,
  AgentStatusSet,
  Killed,
  KilledAll,
  Resumed,
  ResumedAll,
  StillLanding,
  Withdrawn,
} from '../../wire/answers/agents.js';
import { formatUsdc } from '../../wire/money.js';
import type { EndedApproval } from '../ports/store.js';
import { iso } from '../../wire/views.js';

/** Requests withdrawn, counted as a stop's answer says them: the held payments among them apart. */
function counted(ended: readonly EndedApproval[]): Withdrawn {
  const heldPayments = ended.filter((approval) => approval.paymentId !== null).length;
  return { requests: ended.length - heldPayments, heldPayments };
}

const NONE: Withdrawn = { requests: 0, heldPayments: 0 };

/**
 * What a stop cannot take back: x402 payments of these agents signed and handed out (their header
 * given) and not landed yet. A seller holding one may still settle it until it ends (on Base its
 * authorization's validBefore, in seconds; on Solana its blockhash, about a minute), and the owner
 * who pressed the brake is told so rather than "refused" alone.
 */
function stillLanding(ctx: EngineContext, owner: string, agentIds: ReadonlySet<string>): StillLanding {
  const handedOut = ctx.store
    .pendingTransfers()
    .filter(
      (row) =>
        row.kind === 'payment' && row.owner === owner && agentIds.has(row.agentId) && row.protocol === 'x402' && row.x402Header !== null,
    );
  const baseEnds = handedOut.flatMap((row) => (row.rail === 'base' && row.lifetimeEnd !== null ? [Number(row.lifetimeEnd) * 1000] : []));
  return {
    payments: handedOut.length,
    amount: formatUsdc(handedOut.reduce((sum, row) => sum + row.amount, 0n)),
    until: baseEnds.length === 0 ? null : iso(Math.max(...baseEnds)),
    agents: [...new Set(handedOut.flatMap((row) => (row.agentId === null ? [] : [row.agentId])))].sort(),
  };
}

/**
 * An agent stopped, inside the caller's write: the one place a stop is carried out, by the brake
 * (one agent, or all) and the breaker (policy/spending-watch.ts). Suspended (with why, where the
 * breaker stopped it), written in the audit as `action` (null: the caller writes one entry for
 * several), and what it asked for withdrawn, so nothing asked before the brake is granted by a later
 * click (asking to be resumed aside: withdrawRequestsOf). The caller tells the dashboard once its
 * write commits.
 */
export function stopInWrite(
  ctx: EngineContext,
  owner: string,
  agentId: string,
  stop: { actor: string; action: string | null; reason: string | null },
): readonly EndedApproval[] {
  ctx.store.setAgentStatus(owner, agentId, 'suspended', stop.reason, ctx.clock.now());
  if (stop.action !== null) {
    audit(ctx, {
      actor: stop.actor,
      owner,
      agentId,
      action: stop.action,
      ...(stop.reason === null ? {} : { detail: { reason: stop.reason } }),
    });
  }
  return withdrawRequestsOf(ctx, owner, agentId, stop.actor);
}

function setStatus(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  status: AgentStatus,
  actor: string,
): AgentStatusSet & { withdrawn: Withdrawn } {
  return ctx.store.transaction(() => {
    const agent = getAgentOrThrow(ctx, principal.owner, agentId);
    const said = { agentId, status, was: agent.status, ...(agent.archivedAt === null ? {} : { archivedAt: iso(agent.archivedAt) }) };
    if (agent.status === status) return { ...said, withdrawn: NONE };
    let withdrawn: readonly EndedApproval[];
    if (status === 'suspended') withdrawn = stopInWrite(ctx, principal.owner, agentId, { actor, action: 'agent.kill', reason: null });
    else {
      ctx.store.setAgentStatus(principal.owner, agentId, status, null, ctx.clock.now());
      audit(ctx, { actor, owner: principal.owner, agentId, action: 'agent.resume' });
      // Resumed: its request to be resumed is moot.
      withdrawn = withdrawRequestsOf(ctx, principal.owner, agentId, actor, 'resume');
    }
    ctx.events.emit({ type: 'agent', owner: principal.owner, agentId, status });
    return { ...said, withdrawn: counted(withdrawn) };
  });
}

/** Kill tightens, so an agent may kill itself; idempotent. */
export function killAgent(ctx: EngineContext, principal: Principal, agentId: string, actor = actorOf(principal)): Killed {
  requireAgentScope(principal, agentId);
  const stopped = setStatus(ctx, principal, agentId, 'suspended', actor);
  return { ...stopped, stillLanding: stillLanding(ctx, principal.owner, new Set([agentId])) };
}

/** Resume loosens: an agent's own request waits for the owner; the owner's applies at once (idempotent). */
export function resumeAgent(ctx: EngineContext, principal: Principal, agentId: string, actor = actorOf(principal)): Outcome<Resumed> {
  requireAgentScope(principal, agentId);
  const agent = getAgentOrThrow(ctx, principal.owner, agentId);
  refuse(archivedRefusal(agent));
  if (principal.kind === 'agent') {
    // Not stopped: nothing to ask the owner (a yes to it would change nothing).
    if (agent.status === 'active') return done({ agentId, status: 'active', was: 'active' });
    // Stopped by its breaker: why, carried for the owner to read as they decide (a person's stop has none).
    return requestApproval(ctx, principal, 'resume', agentId, agent.statusReason === null ? {} : { stoppedBecause: agent.statusReason });
  }
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  const { withdrawn: _resumeRequest, ...resumed } = setStatus(ctx, principal, agentId, 'active', actor);
  return done(resumed);
}

/** Suspends every agent of the owner in one transaction. */
export function killAll(ctx: EngineContext, principal: Principal, actor = actorOf(principal)): KilledAll {
  requireOwner(principal);
  return ctx.store.transaction(() => {
    const suspended: string[] = [];
    const withdrawn: EndedApproval[] = [];
    for (const agent of ctx.store.listAgents(principal.owner)) {
      if (agent.status === 'suspended') continue;
      withdrawn.push(...stopInWrite(ctx, principal.owner, agent.agentId, { actor, action: null, reason: null }));
      suspended.push(agent.agentId);
    }
    audit(ctx, { actor, owner: principal.owner, action: 'agent.kill_all', detail: { suspended } });
    for (const agentId of suspended) ctx.events.emit({ type: 'agent', owner: principal.owner, agentId, status: 'suspended' });
    const stopped = new Set(ctx.store.listAgents(principal.owner).map((agent) => agent.agentId));
    return { suspended, withdrawn: counted(withdrawn), stillLanding: stillLanding(ctx, principal.owner, stopped) };
  });
}

/**
 * The counterpart of killAll: resumes every stopped agent of the owner in one transaction (owner
 * only: an agent's own request to resume waits for the owner, one by one).
 */
export function resumeAll(ctx: EngineContext, principal: Principal, actor = actorOf(principal)): ResumedAll {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
  return ctx.store.transaction(() => {
    const resumed: string[] = [];
    // A breaker's stop is undone with the rest: said, with its why, so the owner is not surprised by it.
    const breakerStops: ResumedAll['breakerStops'] = [];
    for (const agent of ctx.store.listAgents(principal.owner)) {
      if (agent.status === 'active') continue;
      ctx.store.setAgentStatus(principal.owner, agent.agentId, 'active', null, ctx.clock.now());
      withdrawRequestsOf(ctx, principal.owner, agent.agentId, actor, 'resume');
      resumed.push(agent.agentId);
      if (agent.statusReason !== null) breakerStops.push({ agentId: agent.agentId, reason: agent.statusReason });
    }
    audit(ctx, { actor, owner: principal.owner, action: 'agent.resume_all', detail: { resumed } });
    for (const agentId of resumed) ctx.events.emit({ type: 'agent', owner: principal.owner, agentId, status: 'active' });
    return { resumed, breakerStops };
  });
}
