/**
 * The warning shares of a policy ("warn at 80 % and 95 % of a budget"): when a change to them tightens,
 * so an agent may make it itself, and when it loosens, so the owner is asked (loosenings.ts).
 */

/**
 * True when `next` warns the owner at least as often as `current`, and each time no later: every share
 * of `current` matched with one of `next` at or below it. Sorted, that is the k-th lowest of `next` at
 * or below the k-th lowest of `current`, for each of `current` ("80, 95 → 50, 90" warns earlier: it
 * tightens; "→ 85, 95" warns later the first time and "→ 50" once: they loosen).
 */
export function warningsTighten(current: readonly number[], next: readonly number[]): boolean {
  const ascending = (shares: readonly number[]) => [...new Set(shares)].sort((a, b) => a - b);
  const [before, after] = [ascending(current), ascending(next)];
  return after.length >= before.length && before.every((share, k) => after[k]! <= share);
}
