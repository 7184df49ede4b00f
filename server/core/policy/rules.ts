/**
 * The policy's rules on a payment, in the order it refuses (API.md). Pure: everything they read is
 * passed in. A policy as data (its shape, its updates, whether a change tightens it) is
 * server/wire/policy/policy.ts.
 */
import { CofferError } from '../../wire/errors.js';
import { formatUsdc } from '../../wire/money.js';
import { didYouMean } from '../../wire/did-you-mean.js';
import { heldOfItWords } from '../../wire/policy/asks.js';
import { expiredRefusal } from './expiry.js';
import type { Policy } from '../../wire/policy/policy.js';

/**
 * Every allowedServices entry must name something a payment can match: a registry service id, or a
 * recipient's address, Solana or EVM (for a service outside the registry). Anything else would be saved and
 * then allow nothing, silently: a typo must be refused when it is made.
 */
export function assertKnownServices(
  allowedServices: string[],
  isKnown: (entry: string) => boolean,
  /** The registry ids near a typed one, for "did you mean …?". */
  near: (typed: string) => string[],
): void {
  const unknown = allowedServices.find((entry) => !isKnown(entry));
  if (unknown === undefined) return;
  throw new CofferError(
    'invalid_policy',
    `allowedServices: "${unknown}" is neither a registry service id${didYouMean(unknown, near(unknown))} nor an address (Solana, or EVM for Base), so it would allow nothing; ` +
      'list registry ids (coffer services, GET /v1/services/search?q=..., or the Registry page) or the address of the recipient to pay',
  );
}

/** What a policy is judged against: what the agent spent in the rolling window, and when it last paid. */
export interface PolicyUsage {
  now: number;
  /** Confirmed and pending payments of the last 24 h (refunded ones not counted). */
  spentInWindow: bigint;
  lastPaymentAt: number | null;
  /** Of spentInWindow, the payments held for the owner's yes (counted, not paid): said apart where known. */
  heldInWindow?: bigint;
  /** The owner's time zone, which a policy's end is said in (read only to say it). */
  timeZone: () => string;
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
  const expired = expiredRefusal(policy.expiresAt, usage.now, usage.timeZone);
  if (expired !== null) return expired;
  if (!isAllowed(policy.allowedServices, ask.serviceId, ask.inRegistry, ask.recipient)) {
    // Outside the registry the name is the agent's own or the URL's host: who is paid is said too.
    const paidTo = !ask.inRegistry && ask.recipient !== undefined && ask.recipient !== ask.serviceId ? `, paid to ${ask.recipient},` : '';
    return new CofferError(
      'service_not_allowed',
      !ask.inRegistry && policy.allowedServices.includes(ask.serviceId)
        ? `"${ask.serviceId}" is not in the registry, so its name does not pin who is paid; add the recipient ${ask.recipient ?? '(none sent)'} to this agent's allowed services`
        : `service "${ask.serviceId}"${paidTo} is not one of this agent's allowed services`,
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
    const held = heldOfItWords(usage.heldInWindow ?? 0n, "the owner's");
    return new CofferError(
      'daily_budget_exceeded',
      `this payment would pass the daily budget: ${formatUsdc(usage.spentInWindow)} of ${formatUsdc(policy.dailyBudget)} USDC spent in the last 24 h on any rail${held === null ? '' : ` (${held})`}`,
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
