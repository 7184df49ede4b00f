/**
 * What an agent's budgets have spent now, read from the ledger's figures for their scopes (never its
 * history): for the payment path (payments/judge.ts) and the policy answer (update.ts).
 */
import type { ContextWith } from '../context.js';
import type { MetaStore, SpendStore } from '../ports/store.js';
import type { Policy } from '../../wire/policy/policy.js';
import { windowSpan } from '../../wire/policy/windows.js';
import { type BudgetUsage, type BudgetedPayment } from './budgets.js';
import { inScope, scopeView, type Budget, type BudgetScope } from '../../wire/policy/budget.js';
import type { Spent } from '../ports/store/spend.js';
import { formatUsdc } from '../../wire/money.js';
import { iso } from '../../wire/views.js';
import { timeZoneOf } from '../settings.js';
import { budgetStanding, dailyStanding, percentUsed, sharesReached } from './budget-warnings.js';
import type { BudgetNow } from '../../wire/answers/policy.js';
import type { TightestBudget } from '../../wire/answers/agents.js';

type BudgetContext = ContextWith<MetaStore & SpendStore>;

function usageOf(ctx: BudgetContext, owner: string, agentId: string, budget: Budget, now: number, timeZone: string): BudgetUsage {
  const { from, resetsAt } = windowSpan(budget.window, now, timeZone);
  return { budget, spent: ctx.store.budgetSpent(owner, agentId, budget.scope, from), from, resetsAt };
}

/**
 * What each budget a payment falls under has spent now, as the payment is judged; nothing is read for
 * a payment no budget holds. A window never holds more than its scope spent in all (one row the
 * ledger keeps per scope), so a budget that total keeps, with this payment, below its limit and the
 * owner's first warning share is judged by that total: neither the refusal nor the warnings can
 * tell it from its window's own figure, and the window is not read.
 */
export function usagesFor(
  ctx: BudgetContext,
  owner: string,
  agentId: string,
  policy: Pick<Policy, 'budgets' | 'warnAt'>,
  payment: BudgetedPayment,
): BudgetUsage[] {
  const holding = policy.budgets.filter((budget) => inScope(budget.scope, payment));
  if (holding.length === 0) return [];
  const now = ctx.clock.now();
  const timeZone = timeZoneOf(ctx);
  const lowestShare = BigInt(Math.min(100, ...policy.warnAt));
  const totals = new Map<string, Spent>();
  const totalOf = (scope: BudgetScope) => {
    const key = JSON.stringify(scope);
    let total = totals.get(key);
    if (total === undefined) totals.set(key, (total = ctx.store.budgetSpent(owner, agentId, scope, null)));
    return total;
  };
  return holding.map((budget) => {
    const total = totalOf(budget.scope);
    const bound =
      budget.count !== null
        ? BigInt(total.payments + 1) * 100n < BigInt(budget.count) * lowestShare
        : (total.amount + payment.amount) * 100n < (budget.amount ?? 0n) * lowestShare;
    if (!bound) return usageOf(ctx, owner, agentId, budget, now, timeZone);
    return { budget, spent: total, ...windowSpan(budget.window, now, timeZone) };
  });
}

/** Each budget as the policy answer shows it: what it holds, what was spent, what remains, when it starts afresh. */
export function budgetsNow(ctx: BudgetContext, owner: string, agentId: string, budgets: Budget[]): BudgetNow[] {
  const now = ctx.clock.now();
  const timeZone = timeZoneOf(ctx);
  return budgets.map((budget) => {
    const usage = usageOf(ctx, owner, agentId, budget, now, timeZone);
    const { spent } = usage;
    const resetsAt = usage.resetsAt === null ? null : iso(usage.resetsAt);
    const { window } = budget;
    if (budget.count !== null) {
      const { count } = budget;
      return { count, window, ...scopeView(budget.scope), made: spent.payments, remaining: Math.max(0, count - spent.payments), resetsAt };
    }
    const limit = budget.amount ?? 0n;
    return {
      amount: formatUsdc(limit),
      window,
      ...scopeView(budget.scope),
      spent: formatUsdc(spent.amount),
      remaining: formatUsdc(spent.amount >= limit ? 0n : limit - spent.amount),
      resetsAt,
    };
  });
}

/**
 * The budget nearest its limit now, the daily one included (by the share used): what the dashboard's
 * agent row shows as its bar, and whether it has reached the owner's first warning share.
 */
export function tightestBudget(ctx: BudgetContext, owner: string, agentId: string, policy: Policy, spent24h: bigint): TightestBudget {
  const now = ctx.clock.now();
  // The owner's time zone is read only for an agent with budgets: a dashboard of 1,000 agents read it 1,000 times.
  const standings = [dailyStanding(policy.dailyBudget, spent24h, now)];
  if (policy.budgets.length > 0) {
    const timeZone = timeZoneOf(ctx);
    for (const budget of policy.budgets) standings.push(budgetStanding(usageOf(ctx, owner, agentId, budget, now, timeZone)));
  }
  const tightest = standings.reduce((a, b) => (percentUsed(b) > percentUsed(a) ? b : a));
  return {
    budget: tightest.words,
    used: tightest.counts === 'amount' ? `${formatUsdc(tightest.used)} USDC` : `${tightest.used} payments`,
    percent: percentUsed(tightest),
    warned: sharesReached(tightest, policy.warnAt.slice(0, 1)).length > 0,
  };
}
