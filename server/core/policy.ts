import { CofferError } from './errors.js';
import { parseAmount } from './money.js';
import type { Policy } from './ports/store.js';
import type { PolicyUpdate } from './schemas.js';

/** Applies an update (only sent fields change) and checks the result is coherent. */
export function mergePolicy(current: Policy, update: PolicyUpdate): Policy {
  const next: Policy = {
    dailyBudget: update.dailyBudget === undefined ? current.dailyBudget : parseAmount(update.dailyBudget, 'dailyBudget'),
    maxPerPayment:
      update.maxPerPayment === undefined ? current.maxPerPayment : parseAmount(update.maxPerPayment, 'maxPerPayment'),
    cooldownSeconds: update.cooldownSeconds ?? current.cooldownSeconds,
    allowedServices: update.allowedServices === undefined ? current.allowedServices : [...new Set(update.allowedServices)],
  };
  assertCoherent(next);
  return next;
}

export function assertCoherent(policy: Policy): void {
  if (policy.maxPerPayment > policy.dailyBudget) {
    throw new CofferError('invalid_policy', 'maxPerPayment cannot be larger than dailyBudget');
  }
}

/**
 * True when `next` allows nothing that `current` forbids: limits only lowered, cooldown only raised,
 * the service list only narrowed (an empty list means every service, so it is the widest).
 * Agents may apply such a change to themselves; anything else needs the owner.
 */
export function isTightening(current: Policy, next: Policy): boolean {
  if (next.dailyBudget > current.dailyBudget) return false;
  if (next.maxPerPayment > current.maxPerPayment) return false;
  if (next.cooldownSeconds < current.cooldownSeconds) return false;
  if (next.allowedServices.length === 0) return current.allowedServices.length === 0;
  if (current.allowedServices.length === 0) return true;
  const allowed = new Set(current.allowedServices);
  return next.allowedServices.every((service) => allowed.has(service));
}
