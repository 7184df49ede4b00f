/**
 * A policy change tried on an agent's last 30 days, in words (POST /v1/agents/:id/policy/what-if's
 * answer): the same sentences in the dashboard's policy editor and Approvals, and in `coffer policy
 * --what-if`.
 */
import type { PolicyWhatIf } from '../answers/policy.js';
import { readableUsdc, tryParseUsdc } from '../money.js';

/**
 * What a policy change would have refused, in words (POST /v1/agents/:id/policy/what-if). The codes
 * are the pay path's refusals a policy can make (server/core/policy/rules.ts POLICY_RULES, then budgets),
 * each said as "N over the daily budget"; an unknown code is said as its own words.
 */
const CODE_WORDS: Record<string, string> = {
  policy_expired: 'after the policy’s end',
  service_not_allowed: 'to a service not allowed',
  max_per_payment_exceeded: 'over the max per payment',
  cooldown_active: 'within the cooldown',
  daily_budget_exceeded: 'over the daily budget',
  budget_exceeded: 'over a budget',
};

/** The order a policy judges in: among equal counts, the rule it checks first comes first. */
const CODE_ORDER = Object.keys(CODE_WORDS);

export const refusalCodeWords = (code: string): string => CODE_WORDS[code] ?? code.replaceAll('_', ' ');

const paymentsWord = (n: number): string => `${n.toLocaleString('en-US')} payment${n === 1 ? '' : 's'}`;

/** "31 over a budget, 6 over the max per payment": the most first, then in the policy's order. */
export function byCodeWords(byCode: Readonly<Record<string, number>>): string {
  const rank = (code: string) => (CODE_ORDER.includes(code) ? CODE_ORDER.indexOf(code) : CODE_ORDER.length);
  return Object.entries(byCode)
    .filter(([, n]) => n > 0)
    .sort(([a, m], [b, n]) => n - m || rank(a) - rank(b) || a.localeCompare(b))
    .map(([code, n]) => `${n.toLocaleString('en-US')} ${refusalCodeWords(code)}`)
    .join(', ');
}

/**
 * The answer in one sentence: "Over the last 30 days (412 payments) this would have refused 37
 * (4.20 USDC): 31 over a budget, 6 over the max per payment", or "… would have refused none of the
 * 412 payments", or that there was nothing to try it on.
 */
export function whatIfWords(whatIf: Pick<PolicyWhatIf, 'payments' | 'wouldRefuse'>): string {
  const { payments, wouldRefuse } = whatIf;
  if (payments === 0) return 'The agent made no payments in the last 30 days: nothing to try this change on.';
  if (wouldRefuse.payments === 0)
    return payments === 1
      ? 'Over the last 30 days this would not have refused its one payment.'
      : `Over the last 30 days this would have refused none of the ${paymentsWord(payments)}.`;
  const amount = readableUsdc(tryParseUsdc(wouldRefuse.amount) ?? 0n);
  const codes = byCodeWords(wouldRefuse.byCode);
  return (
    `Over the last 30 days (${paymentsWord(payments)}) this would have refused ${wouldRefuse.payments.toLocaleString('en-US')}` +
    ` (${amount} USDC)${codes ? `: ${codes}` : ''}.`
  );
}

/** Why a payment would have waited for the owner (server/core/policy/holds.ts's codes). */
const HOLD_WORDS: Record<string, string> = {
  ask_above: 'above the ask-above amount',
  new_recipient: 'to a new recipient',
};

/**
 * What a change that asks the owner first would have held, in one sentence: "3 of those it let through
 * (15.00 USDC) would have waited for your yes: 2 above the amount you are asked above, 1 to a new
 * recipient" (the owner's yes, said to an agent), or that none would have; null when it holds none and `asks` is false (the change asks
 * nothing, so there is nothing to say).
 */
export function holdWords(
  whatIf: Pick<PolicyWhatIf, 'payments' | 'wouldHold'>,
  asks: boolean,
  decider: 'you' | 'the owner' = 'you',
): string | null {
  const { payments, wouldHold } = whatIf;
  const yes = decider === 'you' ? 'your yes' : "the owner's yes";
  if (payments === 0) return null;
  if (wouldHold.payments === 0) return asks ? `None of them would have waited for ${yes}.` : null;
  const amount = readableUsdc(tryParseUsdc(wouldHold.amount) ?? 0n);
  const reasons = Object.entries(wouldHold.byCode)
    .filter(([, n]) => n > 0)
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([code, n]) => `${n.toLocaleString('en-US')} ${HOLD_WORDS[code] ?? code.replaceAll('_', ' ')}`)
    .join(', ');
  const count = wouldHold.payments.toLocaleString('en-US');
  return `${count} of those it let through (${amount} USDC) would have waited for ${yes}${reasons ? `: ${reasons}` : ''}.`;
}

/**
 * Whether a policy change asks the owner first (a threshold, or new recipients asked about): then what
 * it would have held is said even where it holds none.
 */
export function asksOwner(update: { askAbove?: unknown; askNewRecipient?: unknown }): boolean {
  return (update.askAbove ?? null) !== null || update.askNewRecipient === true;
}

/**
 * A change that would have refused and held none of the payments it was tried on, plainly: "It would
 * have refused none of its 412 payments and held none."; null where it refuses or holds some, or there
 * were no payments to try it on (whatIfWords says so).
 */
export function unchangedWords(whatIf: Pick<PolicyWhatIf, 'payments' | 'wouldRefuse' | 'wouldHold'>): string | null {
  const { payments, wouldRefuse, wouldHold } = whatIf;
  if (payments === 0 || wouldRefuse.payments > 0 || wouldHold.payments > 0) return null;
  return payments === 1
    ? 'It would have neither refused nor held its one payment.'
    : `It would have refused none of its ${paymentsWord(payments)} and held none.`;
}
