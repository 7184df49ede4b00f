/**
 * Where each budget a held payment falls under stands before and after it. A held payment already
 * counts against its budgets (GET policy's `spent` includes it), so "after" is what they hold now and
 * "before" is that without it; approved, it is judged again as a payment made now. Said alike by the
 * dashboard's approval card and `coffer approvals`.
 */
import { windowSpan, type BudgetWindow } from './windows.js';
import { budgetOf, describeBudget, inScope, scopeOf } from './budget.js';
import { readableUsdc, tryParseUsdc } from '../money.js';
import type { PolicyResponse } from '../answers/policy.js';

/** What of a held payment its budgets are judged by. */
export interface HeldAsk {
  service: string;
  recipient: string;
  /** Micro-USDC. */
  amount: bigint;
}

/** What a held payment's approval request asks (its service, recipient and amount); null where it is no payment's. */
export function heldAskOf(request: Record<string, unknown>): HeldAsk | null {
  const { service, recipient, amount } = request;
  const micro = typeof amount === 'string' ? tryParseUsdc(amount) : null;
  if (typeof service !== 'string' || typeof recipient !== 'string' || micro === null) return null;
  return { service, recipient, amount: micro };
}

/**
 * One budget the payment falls under: what it allows, and what it holds before and after the payment;
 * for the daily budget, `heldBefore`: how much of `before` is other payments held for the owner's yes
 * (not paid: an owner seeing only a sum larger than what was paid could not tell why).
 */
export type BudgetStep = { words: string } & (
  | { counts: 'amount'; before: bigint; after: bigint; limit: bigint; heldBefore?: bigint }
  | { counts: 'payments'; before: number; after: number; limit: number }
);

/**
 * The daily budget and each budget of the policy that this payment falls under (an unscoped one, one
 * for its service, one for its recipient), before and after it. `heldAt` is when it was held (the
 * approval's creation): a window that no longer reaches back to it (an hour's, a calendar day's after
 * midnight) holds none of it now, and approved, it counts there as made now.
 */
export function budgetSteps(payment: HeldAsk, answer: PolicyResponse, heldAt: number, now: number, timeZone: string): BudgetStep[] {
  const holds = (window: BudgetWindow) => {
    const { from } = windowSpan(window, now, timeZone);
    return from === null || heldAt >= from;
  };
  const amountStep = (words: string, window: BudgetWindow, spent: string, limit: string): BudgetStep => {
    const before = clamp((tryParseUsdc(spent) ?? 0n) - (holds(window) ? payment.amount : 0n));
    return { words, counts: 'amount', before, after: before + payment.amount, limit: tryParseUsdc(limit) ?? 0n };
  };
  const daily = amountStep(
    `${readableUsdc(tryParseUsdc(answer.policy.dailyBudget) ?? 0n)} USDC in any 24 hours (daily budget)`,
    '24h',
    answer.spent24h,
    answer.policy.dailyBudget,
  );
  // The other held payments in the daily figure: all held less this one (an older Coffer says none).
  const otherHeld = clamp((tryParseUsdc(answer.held24h ?? '0') ?? 0n) - (holds('24h') ? payment.amount : 0n));
  const steps: BudgetStep[] = [otherHeld > 0n && daily.counts === 'amount' ? { ...daily, heldBefore: otherHeld } : daily];
  for (const budget of answer.budgets ?? []) {
    if (!inScope(scopeOf(budget), { serviceId: payment.service, recipient: payment.recipient })) continue;
    const words = describeBudget(budgetOf(budget));
    if ('count' in budget) {
      const before = Math.max(0, budget.made - (holds(budget.window) ? 1 : 0));
      steps.push({ words, counts: 'payments', before, after: before + 1, limit: budget.count });
    } else {
      steps.push(amountStep(words, budget.window, budget.spent, budget.amount));
    }
  }
  return steps;
}

const clamp = (micro: bigint) => (micro < 0n ? 0n : micro);

/** A step in words: "0.25 → 4.25 of 10.00 USDC", "1 → 2 of 5 payments". */
export function stepWords(step: BudgetStep): string {
  if (step.counts === 'payments') return `${step.before} → ${step.after} of ${step.limit} payment${step.limit === 1 ? '' : 's'}`;
  const held = step.heldBefore === undefined ? '' : ` (${readableUsdc(step.heldBefore)} of it other payments held for your yes)`;
  return `${readableUsdc(step.before)}${held} → ${readableUsdc(step.after)} of ${readableUsdc(step.limit)} USDC`;
}

/** The share of its limit a step reaches after the payment, 0..1 and beyond (a limit of nothing is full). */
export function shareAfter(step: BudgetStep): number {
  if (step.counts === 'payments') return step.limit > 0 ? step.after / step.limit : 1;
  return step.limit > 0n ? Number((step.after * 10_000n) / step.limit) / 10_000 : 1;
}

/** Past its limit after the payment: approving it would be refused by this budget. */
export const passesLimit = (step: BudgetStep): boolean => step.after > step.limit;
