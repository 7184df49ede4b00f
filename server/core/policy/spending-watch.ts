/**
 * What follows a payment or a refusal besides the money (issue 25, points 4 and 5): the owner told as
 * budgets pass their warning shares, and the breaker judged, which stops the agent with its reason.
 * The decisions are budget-warnings.ts's and breaker.ts's; this module reads what they judge, records
 * what was told and acts. Nothing here may undo or fail a payment: the money has moved.
 */
import type { EngineContext } from '../context.js';
import { stopInWrite } from '../agents/kill-switch.js';
import { type BudgetUsage, type BudgetedPayment } from './budgets.js';
import { inScope } from '../../wire/policy/budget.js';
import {
  budgetStanding,
  dailyStanding,
  sharesReached,
  standingsAfter,
  warningSubject,
  warningWords,
  type BudgetStanding,
} from './budget-warnings.js';
import { MINUTE_MS, refusalsTrip, spendingTrip } from './breaker.js';
import type { AgentRecord } from '../ports/store.js';
import type { Policy } from '../../wire/policy/policy.js';

/** What a payment's reservation judged it against: the policy and what its budgets had spent before it. */
export interface PolicyReading {
  now: number;
  policy: Policy;
  /** What counted against the daily budget before this payment. */
  spentInWindow: bigint;
  /** The budgets this payment fell under, with what each had spent before it. */
  usages: BudgetUsage[];
}

/** The actor the audit log names when the breaker stops an agent. */
const BREAKER = 'breaker';

/**
 * After a payment was reserved (it counts now): the owner warned of each budget it took past a share,
 * and the agent stopped if its breaker's spending rule trips. Answers the reason where this payment
 * stopped the agent (for its answer to say), else null. A failure here is logged, never thrown.
 */
export function watchPayment(ctx: EngineContext, agent: AgentRecord, payment: BudgetedPayment, reading: PolicyReading): string | null {
  try {
    warnOfBudgets(
      ctx,
      agent,
      standingsAfter({ limit: reading.policy.dailyBudget, spentBefore: reading.spentInWindow, now: reading.now }, reading.usages, payment),
      reading,
    );
    const { spending } = reading.policy.breaker ?? { spending: null };
    if (spending === null) return null;
    const reason = spendingTrip(
      reading.policy.breaker,
      // Only what was spent since the owner last resumed it: the spending that tripped it before does not trip it again.
      recentSpend(ctx, agent, payment, reading, Math.max(reading.now - spending.minutes * MINUTE_MS, agent.statusChangedAt ?? 0)),
    );
    return reason !== null && tripBreaker(ctx, agent.owner, agent.agentId, reason) ? reason : null;
  } catch (error) {
    ctx.log(`coffer: the warnings and breaker after a payment of ${agent.agentId} failed: ${String(error)}`);
    return null;
  }
}

/**
 * After a payment was refused (`agent_suspended` aside: a stopped agent has nothing left to stop):
 * the agent stopped if its breaker's refusal rule trips. Refusals are counted in this process's
 * memory (each one, even a retry loop's repeats that the refusal log writes once), from the owner's
 * last resume on. Answers the reason where this refusal stopped the agent (for its answer to say), else null.
 */
export function watchRefusal(ctx: EngineContext, owner: string, agentId: string): string | null {
  try {
    const key = `${owner}|${agentId}`;
    const { breaker } = ctx.store.getPolicy(owner, agentId);
    const rule = breaker?.refusals ?? null;
    if (rule === null) {
      ctx.state.recentRefusals.delete(key);
      return null;
    }
    // A refusal answered while the agent is stopped (a payment on its way when it stopped) is not
    // counted, and neither is one from before the owner last resumed it: as with spending, a resumed
    // agent is judged on what it does from then on.
    const agent = ctx.store.getAgent(owner, agentId);
    if (agent === null || agent.status !== 'active') return null;
    const now = ctx.clock.now();
    const since = Math.max(now - rule.minutes * MINUTE_MS, agent.statusChangedAt ?? 0);
    const times = [...(ctx.state.recentRefusals.get(key) ?? []).filter((at) => at > since), now];
    ctx.state.recentRefusals.set(key, times);
    const reason = refusalsTrip(breaker, times.length);
    if (reason === null) return null;
    ctx.state.recentRefusals.delete(key);
    return tripBreaker(ctx, owner, agentId, reason) ? reason : null;
  } catch (error) {
    ctx.log(`coffer: the breaker after a refused payment of ${agentId} failed: ${String(error)}`);
    return null;
  }
}

/** Each budget past a share not yet told in its window: recorded as told, then announced, the highest share once. */
function warnOfBudgets(ctx: EngineContext, agent: AgentRecord, standings: BudgetStanding[], reading: PolicyReading): void {
  const { warnAt } = reading.policy;
  if (warnAt.length === 0) return;
  const { owner, agentId } = agent;
  const untold = (standing: BudgetStanding) =>
    sharesReached(standing, warnAt).filter((share) => {
      const at = ctx.store.noticeToldAt(owner, agentId, warningSubject(standing, share));
      return at === null || (standing.from !== null && at < standing.from);
    });
  // Most payments take no budget to a share not told yet: they read little and write nothing. What
  // is told is decided again inside the write, so two payments at once tell it once.
  const reaching = standings.filter((standing) => untold(standing).length > 0);
  if (reaching.length === 0) return;
  const told = ctx.store.transaction(() =>
    reaching.flatMap((standing) => {
      const fresh = untold(standing);
      for (const share of fresh) ctx.store.recordNotice(owner, agentId, warningSubject(standing, share), reading.now);
      return fresh.length === 0 ? [] : [warningWords(agentId, standing)];
    }),
  );
  for (const message of told) ctx.events.emit({ type: 'warning', owner, agentId, about: 'budget', message });
}

/** What the payments under each amount budget this payment fell under (the daily one included) spent since `since`. */
function recentSpend(
  ctx: EngineContext,
  agent: AgentRecord,
  payment: BudgetedPayment,
  reading: PolicyReading,
  since: number,
): BudgetStanding[] {
  const { owner, agentId } = agent;
  return [
    dailyStanding(reading.policy.dailyBudget, ctx.store.spentSince(owner, agentId, since), reading.now),
    ...reading.usages
      .filter(({ budget }) => budget.amount !== null && inScope(budget.scope, payment))
      // `since + 1`: from the same first payment on as spentSince's "created after `since`".
      .map(({ budget, from }) => budgetStanding({ budget, spent: ctx.store.budgetSpent(owner, agentId, budget.scope, since + 1), from })),
  ];
}

/**
 * The breaker stops the agent: suspended with its reason (shown wherever the agent is), its waiting
 * requests withdrawn, the owner told. Only the owner resumes it (an agent's own request waits for
 * them). An agent already stopped, or archived, is left as it is.
 */
export function tripBreaker(ctx: EngineContext, owner: string, agentId: string, reason: string): boolean {
  const tripped = ctx.store.transaction(() => {
    const agent = ctx.store.getAgent(owner, agentId);
    if (agent === null || agent.status === 'suspended' || agent.archivedAt !== null) return false;
    stopInWrite(ctx, owner, agentId, { actor: BREAKER, action: 'agent.breaker', reason });
    return true;
  });
  if (tripped) ctx.events.emit({ type: 'agent', owner, agentId, status: 'suspended', reason });
  return tripped;
}
