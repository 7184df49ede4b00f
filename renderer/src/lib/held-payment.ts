/**
 * A payment the agent's policy held for the owner's yes (an approval of kind `payment`): what it asks,
 * why, and where each budget it falls under stands before and after it. A held payment already counts
 * against its budgets (GET policy's `spent` includes it), so "after" is what they hold now and
 * "before" is that without it; approved, it is judged again as a payment made now.
 */
import { windowSpan, type BudgetWindow } from '../../../server/wire/policy/windows.js';
import { budgetWords } from './policy-words.js';
import { readableUsdc, tryParseUsdc } from './money.js';
import type { Approval, PolicyResponse } from '../api/types.js';

/** What a held payment asks, read from its approval's request (null when it is not one). */
export interface HeldPayment {
  service: string;
  amount: bigint;
  recipient: string;
  /** Where it would be paid: `base` on Base; `sol` also for a request from before rails were recorded. */
  rail: 'sol' | 'base';
  description: string | null;
  reason: { code: string; message: string } | null;
  /** What it buys beyond the call, in words ("an image: sdxl, 1k, “a lighthouse”"), or null. */
  purchase: string | null;
}

export function heldPaymentOf(approval: Pick<Approval, 'kind' | 'request'>): HeldPayment | null {
  if (approval.kind !== 'payment') return null;
  const { service, amount, recipient, rail, description, reason } = approval.request;
  const micro = typeof amount === 'string' ? tryParseUsdc(amount) : null;
  if (typeof service !== 'string' || typeof recipient !== 'string' || micro === null) return null;
  const why = reason as { code?: unknown; message?: unknown } | undefined;
  const bought = approval.request.purchase as { kind?: unknown; modelId?: unknown; resolution?: unknown; prompt?: unknown } | undefined;
  return {
    service,
    amount: micro,
    recipient,
    rail: rail === 'base' ? 'base' : 'sol',
    description: typeof description === 'string' && description.trim() !== '' ? description : null,
    reason: typeof why?.code === 'string' && typeof why.message === 'string' ? { code: why.code, message: why.message } : null,
    purchase:
      bought === undefined
        ? null
        : bought.kind === 'image'
          ? `an image: ${String(bought.modelId)}, ${String(bought.resolution)}, “${String(bought.prompt)}”`
          : String(bought.kind),
  };
}

/** One budget the payment falls under: what it allows, and what it holds before and after the payment. */
export type BudgetStep = { words: string } & (
  { counts: 'amount'; before: bigint; after: bigint; limit: bigint } | { counts: 'payments'; before: number; after: number; limit: number }
);

type BudgetNow = NonNullable<PolicyResponse['budgets']>[number];

/**
 * The daily budget and each budget of the policy that this payment falls under (an unscoped one, one
 * for its service, one for its recipient), before and after it. `heldAt` is when it was held (the
 * approval's creation): a window that no longer reaches back to it (an hour's, a calendar day's after
 * midnight) holds none of it now, and approved, it counts there as made now.
 */
export function budgetSteps(
  payment: Pick<HeldPayment, 'service' | 'recipient' | 'amount'>,
  answer: PolicyResponse,
  heldAt: number,
  now: number,
  timeZone: string,
): BudgetStep[] {
  const holds = (window: BudgetWindow) => {
    const { from } = windowSpan(window, now, timeZone);
    return from === null || heldAt >= from;
  };
  const amountStep = (words: string, window: BudgetWindow, spent: string, limit: string): BudgetStep => {
    const before = clamp((tryParseUsdc(spent) ?? 0n) - (holds(window) ? payment.amount : 0n));
    return { words, counts: 'amount', before, after: before + payment.amount, limit: tryParseUsdc(limit) ?? 0n };
  };
  const steps = [
    amountStep(
      `${readableUsdc(tryParseUsdc(answer.policy.dailyBudget) ?? 0n)} USDC in any 24 hours (daily budget)`,
      '24h',
      answer.spent24h,
      answer.policy.dailyBudget,
    ),
  ];
  for (const budget of answer.budgets ?? []) {
    if (!fallsUnder(budget, payment)) continue;
    const words = budgetWords(budget);
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

/** Whether the payment counts against a budget: every payment against an unscoped one, else its service's or its recipient's. */
function fallsUnder(budget: BudgetNow, payment: Pick<HeldPayment, 'service' | 'recipient'>): boolean {
  if (budget.service !== undefined) return budget.service === payment.service;
  if (budget.recipient !== undefined) return budget.recipient === payment.recipient;
  return true;
}

/** A step in words: "0.25 → 4.25 of 10.00 USDC", "1 → 2 of 5 payments". */
export function stepWords(step: BudgetStep): string {
  if (step.counts === 'payments') return `${step.before} → ${step.after} of ${step.limit} payment${step.limit === 1 ? '' : 's'}`;
  return `${readableUsdc(step.before)} → ${readableUsdc(step.after)} of ${readableUsdc(step.limit)} USDC`;
}

/** The share of its limit a step reaches after the payment, 0..1 and beyond (a limit of nothing is full). */
export function shareAfter(step: BudgetStep): number {
  if (step.counts === 'payments') return step.limit > 0 ? step.after / step.limit : 1;
  return step.limit > 0n ? Number((step.after * 10_000n) / step.limit) / 10_000 : 1;
}

/** Past its limit after the payment: approving it would be refused by this budget. */
export const passesLimit = (step: BudgetStep): boolean => step.after > step.limit;

/**
 * How a decided request ended, in words, for the history. A payment says whether it was paid (and
 * which payment it is) or why not: nothing was paid unless it says so. Other kinds say their error.
 */
export function outcomeWords(approval: Pick<Approval, 'kind' | 'status' | 'request' | 'result' | 'error'>): string | null {
  if (approval.kind !== 'payment') return approval.error ?? null;
  switch (approval.status) {
    case 'approved': {
      const asked = heldPaymentOf(approval);
      return approvedPayment(approval, asked === null ? 'it' : `${readableUsdc(asked.amount)} USDC`).words;
    }
    case 'failed':
      return `Approved, but not paid: ${approval.error ?? 'it failed'}`;
    case 'denied':
      return 'You denied it: nothing was paid';
    case 'expired':
      return 'Nobody answered in time: nothing was paid';
    case 'withdrawn':
      // By a stop of the agent, or by the agent itself (its command interrupted), before your answer or
      // after a yes to an x402 purchase not yet bought: the record says not which.
      return 'Withdrawn (the agent was stopped, or stopped waiting): nothing was paid';
    default:
      return null;
  }
}

/**
 * What the owner's yes to a held payment came to, as its approval's `result` says, about `what` ("4.00
 * USDC", or with whom): paid (a payment, or an image whose task is then made), on its way, or (an x402
 * purchase) approved for the agent to buy now with the seller's fresh terms, paid once. `pill` is its
 * word in the history's column.
 */
export function approvedPayment(
  approval: Pick<Approval, 'result'>,
  what: string,
): { pill: 'paid' | 'sending' | 'approved'; words: string } {
  const result = (approval.result ?? {}) as { paymentId?: unknown; status?: unknown; taskId?: unknown; protocol?: unknown };
  if (typeof result.paymentId !== 'string') return { pill: 'approved', words: `Approved ${what}` };
  const payment = `(payment ${result.paymentId})`;
  if (typeof result.taskId === 'string')
    return { pill: 'paid', words: `Paid ${what} ${payment}: its image is made as task ${result.taskId}` };
  if (result.status === 'confirmed') return { pill: 'paid', words: `Paid ${what} ${payment}` };
  if (result.status === 'pending') return { pill: 'sending', words: `Approved: sending ${what} ${payment}` };
  if (result.protocol === 'x402') {
    return { pill: 'approved', words: `Approved ${what}: the agent now buys it with the seller's fresh terms, paid once ${payment}` };
  }
  return { pill: 'approved', words: `Approved ${what} ${payment}` };
}
