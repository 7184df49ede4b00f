/**
 * The warning shares of a policy ("warn at 80 % and 95 % of a budget"): when a change to them tightens,
 * so an agent may make it itself, and when it loosens, so the owner is asked (loosenings.ts).
 */

/**
 * True when `next` keeps every share of `current`: the owner is told no less. Moving a share lower is
 * no tightening: a payment that passes several shares at once warns once, at the higher (spending-
 * watch.ts), so "80, 95 → 50, 90" can leave the owner one warning where there were two, and "→ 1, 2"
 * would leave none near the end of a budget.
 */
export function warningsTighten(current: readonly number[], next: readonly number[]): boolean {
  return current.every((share) => next.includes(share));
}
