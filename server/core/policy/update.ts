import { CofferError, refuse } from '../../wire/errors.js';
import { FRESH_FOR, actorOf, requireAgentScope, requireFreshSignIn, type Principal } from '../auth.js';
import { audit, type EngineContext } from '../context.js';
import { dailyWindow } from '../../wire/policy/windows.js';
import { requestApproval } from '../approvals/requests.js';
import { archivedRefusal, getAgentOrThrow } from '../agent-lookup.js';
import { done, type Outcome } from '../outcome.js';
import { formatUsdc } from '../../wire/money.js';
import { assertAskWithinMax } from '../../wire/policy/asks.js';
import { dayEndingAt } from '../../wire/policy/expiry.js';
import { assertKnownServices } from './rules.js';
import { isTightening, mergePolicy, type PolicyClock } from '../../wire/policy/policy.js';
import { isSolanaAddress } from '../../wire/rails.js';
import { isEvmAddress } from '../../wire/rails.js';
import type { Policy } from '../../wire/policy/policy.js';
import type { PolicyUpdate } from '../../wire/schemas.js';
import { iso, policyView } from '../../wire/views.js';
import type { Budget } from '../../wire/policy/budget.js';
import { budgetsNow } from './budget-usage.js';
import { timeZoneOf } from '../settings.js';
import { nearServiceIds } from '../registry/registry.js';
import { didYouMean } from '../../wire/did-you-mean.js';
import type { PolicyResponse } from '../../wire/answers/policy.js';
import type { AgentRecord } from '../ports/store.js';

export const policyClock = (ctx: EngineContext): PolicyClock => ({ now: ctx.clock.now(), timeZone: timeZoneOf(ctx) });

/** What an allowedServices entry may name: a registry service, or a recipient's address on either rail. */
export const isKnownService = (ctx: EngineContext, entry: string): boolean =>
  isSolanaAddress(entry) || isEvmAddress(entry) || ctx.store.getService(entry) !== null;

/** A policy answer: the policy, and what counts against its daily budget now (the last 24 h, pending included). */
function policyAnswer(ctx: EngineContext, agent: AgentRecord, policy: Policy): PolicyResponse {
  const { owner, agentId } = agent;
  const timeZone = timeZoneOf(ctx);
  const since = dailyWindow(ctx.clock.now()).after;
  const [spent, held] = [ctx.store.spentSince(owner, agentId, since), ctx.store.heldSince(owner, agentId, since)];
  // Pending ones are minutes old (an authorization lasts an hour at most): of the 24 h, but bounded by
  // them, so one stuck older never reads as more than was spent.
  const pending = ctx.store.pendingPaymentsTotal(owner, agentId);
  return {
    agentId,
    policy: policyView(policy),
    spent24h: formatUsdc(spent),
    held24h: formatUsdc(held),
    pending24h: formatUsdc(pending < spent - held ? pending : spent - held),
    // Each budget now (what was spent, what remains, when it starts afresh); left out when there are none.
    ...(policy.budgets.length === 0 ? {} : { budgets: budgetsNow(ctx, owner, agentId, policy.budgets) }),
    ...endsOnOf(policy, timeZone),
    timeZone,
    // An archived agent's policy is kept as it was, and limits nothing: it pays nothing any more.
    ...(agent.archivedAt === null ? {} : { archivedAt: iso(agent.archivedAt) }),
  };
}

/** The day a policy ends on, as the owner typed it, where its end is the end of a day in their time zone. */
function endsOnOf(policy: Policy, timeZone: string): { endsOn?: string } {
  const day = policy.expiresAt === null ? null : dayEndingAt(policy.expiresAt, timeZone);
  return day === null ? {} : { endsOn: day };
}

/**
 * A service's budget must name a registry service: an unlisted name is only the agent's own label for
 * whomever it pays, which it may call otherwise at will, so no payment is that service's. A scope a
 * budget in force (`kept`) already names passes: a later catalog that no longer lists its service
 * leaves the budget holding the payments under its id, and the owner changing another budget keeps it.
 */
export function assertPayableScopes(ctx: EngineContext, budgets: Budget[], kept: Budget[] = []): void {
  const named = new Set(kept.flatMap(({ scope }) => (scope.kind === 'service' ? [scope.serviceId] : [])));
  for (const { scope } of budgets) {
    if (scope.kind === 'service' && !named.has(scope.serviceId) && ctx.store.getService(scope.serviceId) === null) {
      throw new CofferError(
        'invalid_policy',
        `budgets: "${scope.serviceId}" is not a registry service${didYouMean(scope.serviceId, nearServiceIds(ctx, scope.serviceId))}, so no payment is that service's; name a registry service id, or scope it to the recipient's address`,
      );
    }
  }
}

export function readPolicy(ctx: EngineContext, principal: Principal, agentId: string): PolicyResponse {
  requireAgentScope(principal, agentId);
  const agent = getAgentOrThrow(ctx, principal.owner, agentId);
  return policyAnswer(ctx, agent, ctx.store.getPolicy(principal.owner, agentId));
}

/** A policy with an update applied, checked as a save checks it (services and budgets' scopes that name something payable). */
export function nextPolicy(ctx: EngineContext, current: Policy, update: PolicyUpdate): Policy {
  const next = mergePolicy(current, update, policyClock(ctx));
  if (update.allowedServices !== undefined)
    assertKnownServices(
      next.allowedServices,
      (entry) => isKnownService(ctx, entry),
      (typed) => nearServiceIds(ctx, typed),
    );
  if (update.budgets !== undefined) assertPayableScopes(ctx, next.budgets, current.budgets);
  if (update.askAbove !== undefined) assertAskWithinMax(next);
  return next;
}

export function updatePolicy(ctx: EngineContext, principal: Principal, agentId: string, update: PolicyUpdate): Outcome<PolicyResponse> {
  requireAgentScope(principal, agentId);
  return ctx.store.transaction(() => {
    const agent = getAgentOrThrow(ctx, principal.owner, agentId);
    // Archived, it pays nothing: a change would limit nothing, and the policy it was archived with stays its record.
    refuse(archivedRefusal(agent));
    const current = ctx.store.getPolicy(principal.owner, agentId);
    const next = nextPolicy(ctx, current, update);
    // An agent may only tighten its own policy at once; loosening waits for the owner.
    if (principal.kind === 'agent' && !isTightening(current, next)) {
      // An end is kept as the time it resolved to, so the owner judges (and later applies) that time.
      const asked =
        update.expiresAt === undefined ? update : { ...update, expiresAt: next.expiresAt === null ? null : iso(next.expiresAt) };
      return requestApproval(ctx, principal, 'policy', agentId, { ...asked }, null, { ...policyView(current) });
    }
    if (!isTightening(current, next)) requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.money);
    ctx.store.setPolicy(principal.owner, agentId, next, ctx.clock.now());
    // A waiting request to loosen it is carried out onto this policy if approved: the owner reads it against this one.
    ctx.store.setWaitingPolicyBefore(principal.owner, agentId, { ...policyView(next) });
    // The owner's change of what is told (limits, shares, the end) is told afresh; an agent's own
    // tightening is not, or it could have the owner told again and again.
    if (principal.kind === 'owner' && TOLD_OF.some((field) => update[field] !== undefined))
      ctx.store.forgetNotices(principal.owner, agentId);
    audit(ctx, {
      actor: actorOf(principal),
      owner: principal.owner,
      agentId,
      action: 'policy.update',
      detail: { before: policyView(current), after: policyView(next) },
    });
    ctx.events.emit({ type: 'policy', owner: principal.owner, agentId });
    return done(policyAnswer(ctx, agent, next));
  });
}

/** The policy's fields the owner is told about (budget warnings, the end). */
const TOLD_OF = ['dailyBudget', 'budgets', 'warnAt', 'expiresAt'] as const;
