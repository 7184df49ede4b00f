import { CofferError } from './errors.js';
import { formatUsdc, parseAmount } from './money.js';
import { budgetOf, budgetsTighten } from './budgets.js';
import { expiredRefusal, expiryOf, expiryTightens } from './expiry.js';
import { breakerOf, breakerTightens } from './breaker.js';
import { askAboveOf, asksTighten } from './holds.js';
import type { Policy } from './ports/store.js';
import { DEFAULT_WARN_AT, type PolicyUpdate } from './schemas.js';

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
 * less), and the owner asked at least as often (holds.ts). Agents may apply such a change to themselves; anything else needs the owner.
 */
export function isTightening(current: Policy, next: Policy): boolean {
  if (next.dailyBudget > current.dailyBudget) return false;
  if (next.maxPerPayment > current.maxPerPayment) return false;
  if (next.cooldownSeconds < current.cooldownSeconds) return false;
  if (!budgetsTighten(current.budgets, next.budgets)) return false;
  if (current.expiresAt !== next.expiresAt && !expiryTightens(current.expiresAt, next.expiresAt)) return false;
  if (!breakerTightens(current.breaker, next.breaker)) return false;
  if (!asksTighten(current, next)) return false;
  if (!current.warnAt.every((share) => next.warnAt.includes(share))) return false;
  if (next.allowedServices.length === 0) return current.allowedServices.length === 0;
  if (current.allowedServices.length === 0) return true;
  const allowed = new Set(current.allowedServices);
  return next.allowedServices.every((service) => allowed.has(service));
}

/**
 * Every allowedServices entry must name something a payment can match: a registry service id, or a
 * recipient's Solana address (for a service outside the registry). Anything else would be saved and
 * then allow nothing, silently: a typo must be refused when it is made.
 */
export function assertKnownServices(allowedServices: string[], isKnown: (entry: string) => boolean): void {
  const unknown = allowedServices.find((entry) => !isKnown(entry));
  if (unknown === undefined) return;
  throw new CofferError(
    'invalid_policy',
    `allowedServices: "${unknown}" is neither a registry service id nor a Solana address, so it would allow nothing; ` +
      'list registry ids (GET /v1/services/search?q=..., or the Registry page) or the address of the recipient to pay',
  );
}

/** What a policy is judged against: what the agent spent in the rolling window, and when it last paid. */
export interface PolicyUsage {
  now: number;
  /** Confirmed and pending payments of the last 24 h (refunded ones not counted). */
  spentInWindow: bigint;
  lastPaymentAt: number | null;
}

/** A payment as the policy sees it. */
export interface PaymentAsk {
  serviceId: string;
  /** Whether serviceId is a registry service (only then does its id name who is paid). */
  inRegistry: boolean;
  recipient: string | undefined;
  amount: bigint;
}

/** The order in which a policy refuses (API.md): the first rule a payment breaks is the one said. */
export const POLICY_RULES = [
  'policy_expired',
  'service_not_allowed',
  'max_per_payment_exceeded',
  'cooldown_active',
  'daily_budget_exceeded',
] as const;

/**
 * The policy's decision on a payment: its first refusal in POLICY_RULES order, or null when the
 * policy allows it (the balance is the reservation's to check). Pure: everything it reads is passed in.
 */
export function firstRefusal(policy: Policy, usage: PolicyUsage, ask: PaymentAsk): CofferError | null {
  const expired = expiredRefusal(policy.expiresAt, usage.now);
  if (expired !== null) return expired;
  if (!isAllowed(policy.allowedServices, ask.serviceId, ask.inRegistry, ask.recipient)) {
    return new CofferError(
      'service_not_allowed',
      !ask.inRegistry && policy.allowedServices.includes(ask.serviceId)
        ? `"${ask.serviceId}" is not in the registry, so its name does not pin who is paid; add the recipient ${ask.recipient ?? '(none sent)'} to this agent's allowed services`
        : `service "${ask.serviceId}" is not one of this agent's allowed services`,
    );
  }
  if (ask.amount > policy.maxPerPayment) {
    return new CofferError(
      'max_per_payment_exceeded',
      `${formatUsdc(ask.amount)} USDC is over this agent's max per payment of ${formatUsdc(policy.maxPerPayment)} USDC`,
    );
  }
  const { lastPaymentAt, now } = usage;
  if (policy.cooldownSeconds > 0 && lastPaymentAt !== null && now - lastPaymentAt < policy.cooldownSeconds * 1000) {
    const retryAfterSeconds = Math.max(1, Math.ceil((lastPaymentAt + policy.cooldownSeconds * 1000 - now) / 1000));
    return new CofferError('cooldown_active', `cooldown active: next payment allowed in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
  if (usage.spentInWindow + ask.amount > policy.dailyBudget) {
    return new CofferError(
      'daily_budget_exceeded',
      `this payment would pass the daily budget: ${formatUsdc(usage.spentInWindow)} of ${formatUsdc(policy.dailyBudget)} USDC spent in the last 24 h`,
    );
  }
  return null;
}

/**
 * allowedServices holds registry service ids and recipient addresses. A registry service is allowed
 * by its id; anything else only by its recipient's address, since an unlisted name is the agent's
 * own label and does not say who gets the money. An empty list allows everything.
 */
export function isAllowed(allowed: string[], serviceId: string, inRegistry: boolean, recipient: string | undefined): boolean {
  if (allowed.length === 0) return true;
  return (recipient !== undefined && allowed.includes(recipient)) || (inRegistry && allowed.includes(serviceId));
}
