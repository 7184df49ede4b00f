/**
 * A budget as data (issue 25): at most an amount, or at most a number of payments, over a window
 * (windows.ts) for the payments in its scope: every payment, one registry service's, or one
 * recipient's. Read from the wire, shown, said in words and compared here, and which payments it
 * holds decided (inScope); which payments a budget refuses is the engine's to judge
 * (server/core/policy/budgets.ts).
 */
import { formatUsdc, parseAmount } from '../money.js';
import type { BudgetBody } from '../schemas.js';
import type { BudgetWindow } from './windows.js';
import type { BudgetScopeView, BudgetView } from '../answers/policy.js';

export type BudgetScope = { kind: 'all' } | { kind: 'service'; serviceId: string } | { kind: 'recipient'; address: string };

/** A payment as a budget's scope sees it: the service id it is recorded under, and who is paid. */
export interface ScopedPayment {
  serviceId: string;
  recipient: string | undefined;
}

/**
 * Whether a budget holds a payment, the one rule: an unscoped budget, every payment; a service's,
 * every payment recorded under that service's id (a budget names a registry service when set, and a
 * later catalog that no longer lists it leaves the id the agent's label, still held: what its `spent`
 * counts is what it judges); a recipient's, every payment to that address, whatever it is called.
 * The engine judges by it, the approval card says it, and the SQLite ledger keeps each scope's
 * spending by the same rule in SQL (server/store/sqlite/budget-spend.ts), held to it by the store
 * contract test.
 */
export function inScope(scope: BudgetScope, payment: ScopedPayment): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'service':
      return payment.serviceId === scope.serviceId;
    case 'recipient':
      return payment.recipient === scope.address;
  }
}

/** At most `amount` micro-USDC, or at most `count` payments (exactly one of the two is set). */
export interface Budget {
  amount: bigint | null;
  count: number | null;
  window: BudgetWindow;
  scope: BudgetScope;
}

/** A window in words, after an amount: "50.00 USDC a month". */
export const WINDOW_WORDS: Record<BudgetWindow, string> = {
  hour: 'in any hour',
  '24h': 'in any 24 hours',
  '7d': 'in any 7 days',
  '30d': 'in any 30 days',
  day: 'a day',
  week: 'a week',
  month: 'a month',
  lifetime: 'in all',
};

/** A budget in words: "50.00 USDC a month for demo-weather", "30 payments in any hour". */
export function describeBudget(budget: Budget): string {
  const scope =
    budget.scope.kind === 'all' ? '' : budget.scope.kind === 'service' ? ` for ${budget.scope.serviceId}` : ` to ${budget.scope.address}`;
  const limit =
    budget.count === null ? `${formatUsdc(budget.amount ?? 0n)} USDC` : `${budget.count} payment${budget.count === 1 ? '' : 's'}`;
  return `${limit} ${WINDOW_WORDS[budget.window]}${scope}`;
}

/** A budget's scope from the wire: `service`, `recipient`, or neither (every payment). */
export const scopeOf = (view: BudgetScopeView): BudgetScope =>
  view.service !== undefined
    ? { kind: 'service', serviceId: view.service }
    : view.recipient !== undefined
      ? { kind: 'recipient', address: view.recipient }
      : { kind: 'all' };

/** A budget from the wire (schemas.ts budgetSchema). */
export function budgetOf(body: BudgetBody): Budget {
  return {
    amount: body.amount === undefined ? null : parseAmount(body.amount, 'budgets'),
    count: body.count ?? null,
    window: body.window,
    scope: scopeOf(body),
  };
}

/** A budget's scope as the wire says it: `service`, `recipient`, or neither (every payment). */
export const scopeView = (scope: BudgetScope): BudgetScopeView =>
  scope.kind === 'service' ? { service: scope.serviceId } : scope.kind === 'recipient' ? { recipient: scope.address } : {};

/** A budget as every door shows it: the wire's own shape. */
export const budgetView = (budget: Budget): BudgetView => ({
  ...(budget.count === null ? { amount: formatUsdc(budget.amount ?? 0n) } : { count: budget.count }),
  window: budget.window,
  ...scopeView(budget.scope),
});

const sameScope = (a: BudgetScope, b: BudgetScope) =>
  a.kind === b.kind &&
  (a.kind !== 'service' || a.serviceId === (b as typeof a).serviceId) &&
  (a.kind !== 'recipient' || a.address === (b as typeof a).address);

/**
 * Whether `next` allows nothing `current` forbids: every budget in force stays, over the same window
 * and scope, at most as large (new budgets only add limits). Anything else loosens, and an agent's
 * request for it waits for the owner.
 */
export const budgetsTighten = (current: Budget[], next: Budget[]): boolean =>
  current.every((held) =>
    next.some(
      (kept) =>
        kept.window === held.window &&
        sameScope(kept.scope, held.scope) &&
        (held.count !== null
          ? kept.count !== null && kept.count <= held.count
          : kept.amount !== null && held.amount !== null && kept.amount <= held.amount),
    ),
  );

/**
 * A share of a budget in whole percents as said, the dashboard and the CLI alike: under one percent
 * of something used is "<1", not "0" (nothing used).
 */
export const shareWords = (percent: number, used: string): string => (percent === 0 && /[1-9]/.test(used) ? '<1' : String(percent));
