/**
 * Budgets beyond the daily one (issue 25): each is at most an amount, or at most a number of payments,
 * over a window (budget-windows.ts) for the payments in its scope: every payment, one registry
 * service's, or one recipient's. A payment
 * must fit every budget it falls under. Pure decisions, as policy.ts's: what a budget has spent is
 * read by the caller from the ledger and passed in.
 */
import { CofferError, type Refusal } from './errors.js';
import { formatUsdc, parseAmount } from './money.js';
import type { BudgetBody } from './schemas.js';
import type { BudgetWindow } from './budget-windows.js';

export type BudgetScope = { kind: 'all' } | { kind: 'service'; serviceId: string } | { kind: 'recipient'; address: string };

/** At most `amount` micro-USDC, or at most `count` payments (exactly one of the two is set). */
export interface Budget {
  amount: bigint | null;
  count: number | null;
  window: BudgetWindow;
  scope: BudgetScope;
}

/** A payment as a budget sees it. */
export interface BudgetedPayment {
  serviceId: string;
  /** Whether serviceId is a registry service (only then does its id say who is paid). */
  inRegistry: boolean;
  recipient: string | undefined;
  amount: bigint;
}

/**
 * Whether a payment counts against a budget: every payment does against an unscoped one; a service's
 * budget holds the payments to that registry service (a name outside the registry is the agent's own
 * label and pins nothing, as for allowedServices); a recipient's, every payment to that address,
 * whatever it is called.
 */
export function inScope(scope: BudgetScope, payment: Pick<BudgetedPayment, 'serviceId' | 'inRegistry' | 'recipient'>): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'service':
      return payment.inRegistry && payment.serviceId === scope.serviceId;
    case 'recipient':
      return payment.recipient === scope.address;
  }
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

/** What the payments in a budget's scope and window add up to: their amount and how many they are (pending and confirmed, not refunded). */
export interface Spent {
  amount: bigint;
  payments: number;
}

/**
 * A budget, what its scope has spent in its window now, where that window begins (null: its lifetime)
 * and when it starts afresh (null: at no set time).
 */
export interface BudgetUsage {
  budget: Budget;
  /**
   * What its window spent; on the payment path, for a budget its scope's whole spending keeps far
   * from its limit and the first warning share, that whole spending: a bound that judges the same
   * (budget-usage.ts usagesFor).
   */
  spent: Spent;
  from: number | null;
  resetsAt: number | null;
}

/** Whether one more payment of `amount` stays within a budget that has spent `spent`. */
export const fits = (budget: Budget, spent: Spent, amount: bigint): boolean =>
  budget.count !== null ? spent.payments + 1 <= budget.count : spent.amount + amount <= (budget.amount ?? 0n);

/** What a budget has spent, said as its limit is: "1.50 USDC", "30 made". */
const spentWords = (budget: Budget, spent: Spent) =>
  budget.count !== null ? `${spent.payments} made` : `${formatUsdc(spent.amount)} USDC spent`;

/**
 * The first budget a payment would pass, in the order the budgets are listed, as a refusal that names
 * it, what it has spent and when it frees: a calendar window at its reset (with Retry-After), a
 * rolling one as its payments age out, a lifetime budget never. Null when the payment fits every
 * budget it falls under.
 */
export function budgetRefusal(usages: BudgetUsage[], payment: BudgetedPayment, now: number): Refusal {
  for (const { budget, spent, resetsAt } of usages) {
    if (!inScope(budget.scope, payment) || fits(budget, spent, payment.amount)) continue;
    const frees =
      resetsAt !== null
        ? `it starts afresh at ${new Date(resetsAt).toISOString()}`
        : budget.window === 'lifetime'
          ? 'it never starts afresh'
          : 'it frees as its payments grow older than its window';
    return new CofferError(
      'budget_exceeded',
      `this payment would pass the budget of ${describeBudget(budget)}: ${spentWords(budget, spent)}; ${frees}`,
      resetsAt === null ? {} : { retryAfterSeconds: Math.max(1, Math.ceil((resetsAt - now) / 1000)) },
    );
  }
  return null;
}

/** A budget from the wire (schemas.ts budgetSchema). */
export function budgetOf(body: BudgetBody): Budget {
  const scope: BudgetScope =
    body.service !== undefined
      ? { kind: 'service', serviceId: body.service }
      : body.recipient !== undefined
        ? { kind: 'recipient', address: body.recipient }
        : { kind: 'all' };
  return {
    amount: body.amount === undefined ? null : parseAmount(body.amount, 'budgets'),
    count: body.count ?? null,
    window: body.window,
    scope,
  };
}

/** A budget's scope as the wire says it: `service`, `recipient`, or neither (every payment). */
export const scopeView = (scope: BudgetScope): { service?: string; recipient?: string } =>
  scope.kind === 'service' ? { service: scope.serviceId } : scope.kind === 'recipient' ? { recipient: scope.address } : {};

/** A budget as every door shows it: the wire's own shape. */
export const budgetView = (budget: Budget) => ({
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
