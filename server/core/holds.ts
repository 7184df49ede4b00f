/**
 * Which payments wait for the owner's yes: those above the policy's `askAbove`, and (when the policy
 * says `askNewRecipient`) the first to a recipient the agent never paid. Only a payment every hard
 * limit allows is held (payments.ts asks after the policy, the price cap and the balance); a held
 * payment counts against the budgets while it waits (held-payments.ts). Pure.
 */
import { CofferError } from './errors.js';
import { formatUsdc, tryParseUsdc } from './money.js';
import type { Policy } from './ports/store.js';

/** Why a payment waits, for the agent (its code) and the owner (the words). */
export interface HoldReason {
  code: 'ask_above' | 'new_recipient';
  message: string;
}

/**
 * Whether the owner must say yes to this payment first, and why; null when it may go now.
 * `paidBefore` tells whether the agent has a payment to this recipient that counted (not only held).
 */
export function holdReason(
  policy: Pick<Policy, 'askAbove' | 'askNewRecipient'>,
  amount: bigint,
  paidBefore: () => boolean,
): HoldReason | null {
  if (policy.askAbove !== null && amount > policy.askAbove) {
    return {
      code: 'ask_above',
      message: `${formatUsdc(amount)} USDC is above ${formatUsdc(policy.askAbove)} USDC: above that, the policy waits for the owner's yes`,
    };
  }
  if (policy.askNewRecipient && !paidBefore()) {
    return { code: 'new_recipient', message: "the agent never paid this recipient: its first payment waits for the owner's yes" };
  }
  return null;
}

/** The wire's threshold as the policy keeps it ("0" asks for every payment). */
export const askAboveOf = (text: string | null): bigint | null => (text === null ? null : (tryParseUsdc(text) ?? 0n));

/** True when `next` asks the owner at least whenever `current` did: a threshold only lowered, new recipients still asked. */
export const asksTighten = (current: Policy, next: Policy): boolean =>
  (current.askAbove === null || (next.askAbove !== null && next.askAbove <= current.askAbove)) &&
  (!current.askNewRecipient || next.askNewRecipient);

/**
 * A threshold set above the largest payment allowed would never ask: refused when it is set (an update
 * that only lowers maxPerPayment is never refused for it, so the cut an incident needs always goes through).
 */
export function assertAskWithinMax(next: Policy): void {
  if (next.askAbove === null || next.askAbove <= next.maxPerPayment) return;
  throw new CofferError(
    'invalid_policy',
    `Ask above (${formatUsdc(next.askAbove)} USDC) is above the max per payment (${formatUsdc(next.maxPerPayment)} USDC), so no payment would ever be asked: set it at or below the max per payment, or none`,
  );
}
