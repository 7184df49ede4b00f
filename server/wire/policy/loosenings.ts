/**
 * What a change of an agent's policy loosens, in words: what the owner is asked to confirm before
 * their change is saved, in the dashboard (its LoosenDialog) and by `coffer policy` alike. (An
 * agent's own loosening is not asked here: the server holds it for the owner's yes, policy.ts.)
 */
import { DEFAULT_WARN_AT, type BreakerBody, type BudgetBody, type PolicyUpdate } from '../schemas.js';
import type { Policy } from '../answers/policy.js';
import { readableUsdc, tryParseUsdc } from '../money.js';
import { budgetOf, budgetsTighten, describeBudget } from './budget.js';
import { breakerOf, breakerTightens, describeBreaker, type Breaker } from './breaker.js';
import { expiryOf } from './expiry.js';
import { askAboveOf } from './asks.js';
import { warningsTighten } from './warnings.js';

/**
 * A policy's end in words, in a time zone, as each door says ends: the end of a day as that day ("the
 * end of 2026-12-31", or the dashboard's "the end of Dec 31, 2026"), not as the next midnight.
 */
export type EndWords = (iso: string, timeZone: string) => string;

/** How many times `next` is `current`, in words ("200,000,000×"), or null when it is not more. */
export function timesMore(current: bigint, next: bigint): string | null {
  if (next <= current || current <= 0n) return null;
  const tenths = (next * 10n) / current;
  const whole = (tenths / 10n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return tenths % 10n === 0n || tenths >= 1000n ? `${whole}×` : `${whole}.${tenths % 10n}×`;
}

/** Warning shares as read: "80 % and 95 %", "50 %, 80 % and 95 %", or "never". */
export function sharesWords(shares: readonly number[]): string {
  if (shares.length === 0) return 'never';
  const words = shares.map((share) => `${share} %`);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

/** The moment an end names (a day: its end in `timeZone`); expiry.ts's own reading, with no "now" to be past. */
const endInstant = (expiresAt: string | null, timeZone: string) => expiryOf(expiresAt, Number.NEGATIVE_INFINITY, timeZone);
const sortedUnique = <T extends string | number>(list: readonly T[]) => [...new Set(list)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * What the treasury holds on both rails, in micro-USDC: the figure a daily budget (one across rails)
 * is held to. `amount` is its Solana wallet's; Base's is left out where it is off or was not read.
 */
export const treasuryHolds = (treasury: { amount: string; balances?: { base: string | null } }): bigint => {
  // An older Coffer's answer has no `balances`: its Solana amount is all it says.
  const base = treasury.balances?.base ?? null;
  return BigInt(treasury.amount) + (base === null ? 0n : (tryParseUsdc(base) ?? 0n));
};

/** Loosening by this factor or more is confirmed before it is saved. */
const LARGE_FACTOR = 10n;

/**
 * What in an update loosens the policy, in words, for a confirmation: a limit raised tenfold or more
 * ("Daily budget 5.00 → 1,000,000,000.00 USDC: 200,000,000× the current budget"), a daily budget
 * above what the treasury holds, every service allowed where only some were; and whatever the server
 * itself counts as loosening among the newer limits: a budget removed or raised, an end moved later
 * or removed, a breaker removed or made slower, a warning share dropped, the owner asked less often
 * (a higher threshold or none, new recipients no longer asked).
 */
export function loosenings(current: Policy, update: PolicyUpdate, treasuryMicro: bigint | null, timeZone: string, end: EndWords): string[] {
  const reasons: string[] = [];
  const limits = [
    ['Daily budget', 'budget', current.dailyBudget, update.dailyBudget],
    ['Max per payment', 'limit', current.maxPerPayment, update.maxPerPayment],
  ] as const;
  for (const [label, noun, before, after] of limits) {
    const was = tryParseUsdc(before);
    const next = after === undefined ? null : tryParseUsdc(after);
    if (was === null || next === null || next < was * LARGE_FACTOR) continue;
    reasons.push(`${label} ${readableUsdc(was)} → ${readableUsdc(next)} USDC: ${timesMore(was, next)} the current ${noun}.`);
  }
  const budget = update.dailyBudget === undefined ? null : tryParseUsdc(update.dailyBudget);
  if (budget !== null && treasuryMicro !== null && budget > treasuryMicro) {
    reasons.push(`A daily budget of ${readableUsdc(budget)} USDC is more than the treasury holds (${readableUsdc(treasuryMicro)} USDC).`);
  }
  if (update.allowedServices?.length === 0 && current.allowedServices.length > 0) {
    reasons.push(`Any service may be paid, not only the ${current.allowedServices.length} picked.`);
  }
  if (update.budgets !== undefined) reasons.push(...budgetLoosenings(current.budgets ?? [], update.budgets));
  if (update.expiresAt !== undefined) reasons.push(...endLoosening(current.expiresAt ?? null, update.expiresAt, timeZone, end));
  if (update.breaker !== undefined) reasons.push(...breakerLoosenings(current.breaker ?? null, update.breaker));
  reasons.push(...askLoosenings(current, update));
  const shares = update.warnAt;
  if (shares !== undefined) {
    const was = current.warnAt ?? DEFAULT_WARN_AT;
    if (!warningsTighten(was, shares)) reasons.push(`Warn at ${sharesWords(was)} → ${sharesWords(sortedUnique(shares))}.`);
  }
  return reasons;
}

/**
 * Each budget in force that the new list no longer holds as tightly (budget.ts's own rule, budget by
 * budget): removed, or raised (named with the smallest of its kind, window and scope in the new list).
 */
function budgetLoosenings(current: readonly BudgetBody[], next: readonly BudgetBody[]): string[] {
  const nextBudgets = next.map(budgetOf);
  return current.flatMap((body) => {
    const held = budgetOf(body);
    if (budgetsTighten([held], nextBudgets)) return [];
    const sameKind = nextBudgets
      .filter(
        (b) =>
          b.window === held.window &&
          (b.count === null) === (held.count === null) &&
          JSON.stringify(b.scope) === JSON.stringify(held.scope),
      )
      .sort((a, b) => {
        const [x, y] = [a.amount ?? BigInt(a.count ?? 0), b.amount ?? BigInt(b.count ?? 0)];
        return x < y ? -1 : x > y ? 1 : 0;
      });
    const raised = sameKind[0];
    return [`Budget ${describeBudget(held)} → ${raised === undefined ? 'removed' : describeBudget(raised)}.`];
  });
}

/** An end moved later, or removed (a policy that never ends is the loosest), its times in the owner's zone. */
function endLoosening(current: string | null, next: string | null, timeZone: string, end: EndWords): string[] {
  if (current === null) return [];
  const was = Date.parse(current);
  const at = endInstant(next, timeZone);
  if (at !== null && at <= was) return [];
  return [`End: ${end(current, timeZone)} → ${at === null ? 'never' : `${end(new Date(at).toISOString(), timeZone)} (later)`}.`];
}

/** Each way the breaker trips that it no longer does as soon (breaker.ts's own rule, part by part): removed or slowed. */
function breakerLoosenings(current: BreakerBody | null, next: BreakerBody | null): string[] {
  const before = breakerOf(current);
  const after = breakerOf(next);
  if (before === null) return [];
  const parts: Breaker[] = [
    { refusals: before.refusals, spending: null },
    { refusals: null, spending: before.spending },
  ];
  return parts.flatMap((held) => {
    if (held.refusals === null && held.spending === null) return [];
    if (breakerTightens(held, after)) return [];
    const kept: Breaker = {
      refusals: held.refusals === null ? null : (after?.refusals ?? null),
      spending: held.spending === null ? null : (after?.spending ?? null),
    };
    const gone = kept.refusals === null && kept.spending === null;
    return [`Breaker: ${describeBreaker(held)} → ${gone ? 'removed' : `${describeBreaker(kept)} (trips later)`}.`];
  });
}

/**
 * The owner asked less often than now (asks.ts's own rule, asksTighten): a threshold raised or
 * removed, new recipients no longer asked.
 */
function askLoosenings(current: Policy, update: PolicyUpdate): string[] {
  const reasons: string[] = [];
  const was = askAboveOf(current.askAbove ?? null);
  if (was !== null && update.askAbove !== undefined) {
    const next = askAboveOf(update.askAbove);
    if (next === null) reasons.push(`Ask me above ${readableUsdc(was)} USDC → never: no payment waits for its amount.`);
    else if (next > was) reasons.push(`Ask me above ${readableUsdc(was)} → ${readableUsdc(next)} USDC: fewer payments wait for your yes.`);
  }
  if (current.askNewRecipient === true && update.askNewRecipient === false) {
    reasons.push('A first payment to a new recipient no longer waits for your yes.');
  }
  return reasons;
}
