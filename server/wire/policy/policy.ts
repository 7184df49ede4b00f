/**
 * A spending policy as data: its shape, an update from the wire applied to it, and whether a change
 * only tightens it (what an agent may do to itself without the owner). The dashboard reads and edits
 * policies with these same functions; how a payment is judged by one is the engine's
 * (server/core/policy/).
 */
import { formatUsdc, parseAmount } from '../money.js';
import { budgetOf, budgetsTighten } from './budget.js';
import { expiryOf, expiryTightens } from './expiry.js';
import { breakerOf, breakerTightens } from './breaker.js';
import { askAboveOf, asksTighten } from './asks.js';
import { warningsTighten } from './warnings.js';
import { DEFAULT_WARN_AT, type PolicyUpdate } from '../schemas.js';
import type { Budget } from './budget.js';
import type { Breaker } from './breaker.js';

/** When an update is applied: a day it names ends at midnight in this time zone, and an end must be later than now. */
export interface PolicyClock {
  now: number;
  timeZone: string;
}

/**
 * Applies an update (only sent fields change). Any combination of valid limits is accepted: a payment
 * is bounded by maxPerPayment and by what is left of dailyBudget, so a budget below maxPerPayment is
 * simply the tighter bound. Refusing it would refuse the one change an incident needs (cutting the
 * budget) whenever it crosses maxPerPayment.
 */
export function mergePolicy(current: Policy, update: PolicyUpdate, at: PolicyClock): Policy {
  return {
    dailyBudget: update.dailyBudget === undefined ? current.dailyBudget : parseAmount(update.dailyBudget, 'dailyBudget'),
    maxPerPayment: update.maxPerPayment === undefined ? current.maxPerPayment : parseAmount(update.maxPerPayment, 'maxPerPayment'),
    cooldownSeconds: update.cooldownSeconds ?? current.cooldownSeconds,
    allowedServices: update.allowedServices === undefined ? current.allowedServices : [...new Set(update.allowedServices)],
    budgets: update.budgets === undefined ? current.budgets : update.budgets.map(budgetOf),
    expiresAt: update.expiresAt === undefined ? current.expiresAt : expiryOf(update.expiresAt, at.now, at.timeZone),
    warnAt: update.warnAt === undefined ? current.warnAt : [...new Set(update.warnAt)].sort((a, b) => a - b),
    breaker: update.breaker === undefined ? current.breaker : breakerOf(update.breaker),
    askAbove: update.askAbove === undefined ? current.askAbove : askAboveOf(update.askAbove),
    askNewRecipient: update.askNewRecipient ?? current.askNewRecipient,
  };
}

/**
 * A policy with these two limits and nothing more: no cooldown, every service, no budget, end or
 * breaker, warnings at 80 and 95 %, nothing held for the owner.
 */
export const limitsOnly = (dailyBudget: bigint, maxPerPayment: bigint): Policy => ({
  dailyBudget,
  maxPerPayment,
  cooldownSeconds: 0,
  allowedServices: [],
  budgets: [],
  expiresAt: null,
  warnAt: [...DEFAULT_WARN_AT],
  breaker: null,
  askAbove: null,
  askNewRecipient: false,
});

/** A new agent's policy: its deploy's fields over limitsOnly's defaults. */
export const newPolicy = (fields: PolicyUpdate & { dailyBudget: string; maxPerPayment: string }, at: PolicyClock): Policy =>
  mergePolicy(limitsOnly(0n, 0n), fields, at);

/**
 * True when `next` allows nothing that `current` forbids: limits only lowered, cooldown only raised,
 * the service list only narrowed (an empty list means every service, so it is the widest), the end
 * only brought closer, the breaker only made quicker, every warning kept (the owner is told no
 * less), and the owner asked at least as often (server/core/policy/holds.ts). Agents may apply such a change to themselves; anything else needs the owner.
 */
export function isTightening(current: Policy, next: Policy): boolean {
  if (next.dailyBudget > current.dailyBudget) return false;
  if (next.maxPerPayment > current.maxPerPayment) return false;
  if (next.cooldownSeconds < current.cooldownSeconds) return false;
  if (!budgetsTighten(current.budgets, next.budgets)) return false;
  if (current.expiresAt !== next.expiresAt && !expiryTightens(current.expiresAt, next.expiresAt)) return false;
  if (!breakerTightens(current.breaker, next.breaker)) return false;
  if (!asksTighten(current, next)) return false;
  if (!warningsTighten(current.warnAt, next.warnAt)) return false;
  if (next.allowedServices.length === 0) return current.allowedServices.length === 0;
  if (current.allowedServices.length === 0) return true;
  const allowed = new Set(current.allowedServices);
  return next.allowedServices.every((service) => allowed.has(service));
}

export interface Policy {
  dailyBudget: bigint;
  maxPerPayment: bigint;
  cooldownSeconds: number;
  allowedServices: string[];
  /** The budgets beyond the daily one (server/core/policy/budgets.ts): a payment must fit each it falls under. */
  budgets: Budget[];
  /** When the policy ends (expiry.ts): every payment after it is refused. Null: never. */
  expiresAt: number | null;
  /** The shares of a budget (percent, ascending) at which the owner is told (server/core/policy/budget-warnings.ts). */
  warnAt: number[];
  /** When the agent stops itself (breaker.ts); null: never. */
  breaker: Breaker | null;
  /** Payments above this amount wait for the owner's yes (server/core/policy/holds.ts); null: none waits for its amount. */
  askAbove: bigint | null;
  /** The first payment to a recipient the agent has never paid waits for the owner's yes. */
  askNewRecipient: boolean;
}

const DEFAULT_DAILY_BUDGET = 5_000_000n;
const DEFAULT_MAX_PER_PAYMENT = 500_000n;

/**
 * A new agent's two limits, as decimal strings: what the owner chose, and for a limit left out a
 * default that fits the other one (a 0.25 budget gets a 0.25 max, not 0.50; a 6.00 max gets a 6.00
 * budget, not 5.00). A link completed in the dashboard and `coffer deploy` start agents alike.
 */
export function startingLimits(
  dailyBudgetText: string | undefined,
  maxPerPaymentText: string | undefined,
): { dailyBudget: string; maxPerPayment: string } {
  const budget = dailyBudgetText === undefined ? null : parseAmount(dailyBudgetText, 'dailyBudget');
  const max = maxPerPaymentText === undefined ? null : parseAmount(maxPerPaymentText, 'maxPerPayment');
  const dailyBudget = budget ?? (max !== null && max > DEFAULT_DAILY_BUDGET ? max : DEFAULT_DAILY_BUDGET);
  const maxPerPayment = max ?? (dailyBudget < DEFAULT_MAX_PER_PAYMENT ? dailyBudget : DEFAULT_MAX_PER_PAYMENT);
  return { dailyBudget: formatUsdc(dailyBudget), maxPerPayment: formatUsdc(maxPerPayment) };
}
