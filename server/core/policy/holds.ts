/**
 * Which payments wait for the owner's yes: those above the policy's `askAbove`, and (when the policy
 * says `askNewRecipient`) the first to a recipient the agent never paid. Only a payment every hard
 * limit allows is held (payments/judge.ts asks after the policy, the price cap and the balance); a held
 * payment counts against the budgets while it waits (payments/held.ts). Pure.
 */
import { formatUsdc } from '../../wire/money.js';
import type { Policy } from '../../wire/policy/policy.js';

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
      // Above nothing is every payment: said so, not as a threshold of 0.00.
      message:
        policy.askAbove === 0n
          ? "the policy asks the owner's yes before every payment"
          : `${formatUsdc(amount)} USDC is above ${formatUsdc(policy.askAbove)} USDC: above that, the policy waits for the owner's yes`,
    };
  }
  if (policy.askNewRecipient && !paidBefore()) {
    return { code: 'new_recipient', message: "the agent never paid this recipient: its first payment waits for the owner's yes" };
  }
  return null;
}
