/**
 * What a mistyped name most likely meant, when one is close enough to say so: the fewest edits, a
 * swap of two neighbouring letters counting as one ("stauts", "demo-wether"), at most a third of the
 * name's length. One rule for every door: commands and options (CLI), agents and services (the engine),
 * a request's fields (the wire's schemas, so the dashboard says it too). Pure: it runs in the browser.
 */
import damerauLevenshtein from 'damerau-levenshtein';

export function closestOf(typed: string, candidates: Iterable<string>): string | null {
  const wanted = typed.toLowerCase();
  let best: { name: string; steps: number } | null = null;
  for (const name of candidates) {
    if (name === typed) continue;
    const steps = damerauLevenshtein(wanted, name.toLowerCase()).steps;
    if (best === null || steps < best.steps) best = { name, steps };
  }
  return best !== null && best.steps <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : null;
}

/** " (did you mean \"alpha\"?)" when a close name exists, else nothing: to end a not-found message with. */
export const didYouMean = (typed: string, candidates: Iterable<string>): string => {
  const meant = closestOf(typed, candidates);
  return meant === null ? '' : ` (did you mean "${meant}"?)`;
};
