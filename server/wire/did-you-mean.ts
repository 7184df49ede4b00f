/**
 * What a mistyped name most likely meant, when one is close enough to say so: the fewest edits, a
 * swap of two neighbouring letters counting as one ("stauts", "demo-wether"), at most a third of the
 * name's length. One rule for every door: commands and options (CLI), agents and services (the engine),
 * a request's fields (the wire's schemas, so the dashboard says it too). Pure: it runs in the browser.
 */
import damerauLevenshtein from 'damerau-levenshtein';

/** The most edits a name may be from what was typed and still be suggested. */
const nearEnough = (name: string): number => Math.max(1, Math.floor(name.length / 3));

export function closestOf(typed: string, candidates: Iterable<string>): string | null {
  const wanted = typed.toLowerCase();
  let best: { name: string; steps: number } | null = null;
  for (const name of candidates) {
    if (name === typed) continue;
    const lowered = name.toLowerCase();
    // No fewer edits than the lengths differ by: a name too long or short to be near is not compared.
    // (The comparison takes time and memory by the product of the lengths: a 60 kB field name sent to
    // /v1 took the server's whole heap, helper 176.)
    if (Math.abs(wanted.length - lowered.length) > nearEnough(name)) continue;
    const steps = damerauLevenshtein(wanted, lowered).steps;
    if (best === null || steps < best.steps) best = { name, steps };
  }
  return best !== null && best.steps <= nearEnough(best.name) ? best.name : null;
}

/** " (did you mean \"alpha\"?)" when a close name exists, else nothing: to end a not-found message with. */
export const didYouMean = (typed: string, candidates: Iterable<string>): string => {
  const meant = closestOf(typed, candidates);
  return meant === null ? '' : ` (did you mean "${meant}"?)`;
};
