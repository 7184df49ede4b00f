/**
 * When a policy asks the owner before paying (issue 26), as data: `askAbove` read from the wire,
 * checked against the max per payment, and compared. Which payment is then held is the engine's to
 * judge (server/core/policy/holds.ts).
 */
import { CofferError } from '../errors.js';
import { formatUsdc, tryParseUsdc } from '../money.js';

/** What of a policy says when the owner is asked (policy.ts Policy holds these fields). */
interface Asks {
  askAbove: bigint | null;
  askNewRecipient: boolean;
}

/** The wire's threshold as the policy keeps it ("0" asks for every payment). */
export const askAboveOf = (text: string | null): bigint | null => (text === null ? null : (tryParseUsdc(text) ?? 0n));

/** True when `next` asks the owner at least whenever `current` did: a threshold only lowered, new recipients still asked. */
export const asksTighten = (current: Asks, next: Asks): boolean =>
  (current.askAbove === null || (next.askAbove !== null && next.askAbove <= current.askAbove)) &&
  (!current.askNewRecipient || next.askNewRecipient);

/**
 * A threshold set above the largest payment allowed would never ask: refused when it is set (an update
 * that only lowers maxPerPayment is never refused for it, so the cut an incident needs always goes through).
 */
export function assertAskWithinMax(next: Pick<Asks, 'askAbove'> & { maxPerPayment: bigint }): void {
  if (next.askAbove === null || next.askAbove <= next.maxPerPayment) return;
  throw new CofferError(
    'invalid_policy',
    `Ask above (${formatUsdc(next.askAbove)} USDC) is above the max per payment (${formatUsdc(next.maxPerPayment)} USDC), so no payment would ever be asked: set it at or below the max per payment, or none`,
  );
}

/**
 * What of a sum spent waits for the owner's yes, in words ("0.50 of it held for your yes, not paid"),
 * said apart wherever a spent sum counts held payments, so "spent" is not read as paid; null where
 * nothing is held. `whose`: the owner spoken to, or of.
 */
/**
 * Of a sum spent, what is signed or sent and not settled yet, in words ("0.18 of it signed or sent,
 * not settled yet"); null where nothing is. Counted against the budget, it may still lapse unsettled.
 */
export function pendingOfItWords(pending: bigint, format: (micro: bigint) => string = formatUsdc): string | null {
  return pending > 0n ? `${format(pending)} of it signed or sent, not settled yet` : null;
}

export function heldOfItWords(held: bigint, whose: 'your' | "the owner's", format: (micro: bigint) => string = formatUsdc): string | null {
  return held > 0n ? `${format(held)} of it held for ${whose} yes, not paid` : null;
}
