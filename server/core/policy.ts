import { CofferError } from './errors.js';
import { parseAmount } from './money.js';
import type { Policy } from './ports/store.js';
import type { PolicyUpdate } from './schemas.js';

/**
 * Applies an update (only sent fields change). Any combination of valid limits is accepted: a payment
 * is bounded by maxPerPayment and by what is left of dailyBudget, so a budget below maxPerPayment is
 * simply the tighter bound. Refusing it would refuse the one change an incident needs (cutting the
 * budget) whenever it crosses maxPerPayment.
 */
export function mergePolicy(current: Policy, update: PolicyUpdate): Policy {
  const next: Policy = {
    dailyBudget: update.dailyBudget === undefined ? current.dailyBudget : parseAmount(update.dailyBudget, 'dailyBudget'),
    maxPerPayment:
      update.maxPerPayment === undefined ? current.maxPerPayment : parseAmount(update.maxPerPayment, 'maxPerPayment'),
    cooldownSeconds: update.cooldownSeconds ?? current.cooldownSeconds,
    allowedServices: update.allowedServices === undefined ? current.allowedServices : [...new Set(update.allowedServices)],
  };
  return next;
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
