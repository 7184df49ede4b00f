/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), with the two changes
 * SQLite's `porter` tokenizer makes (step 2's "bli" → "ble" and "logi" → "log"): the registry's
 * catalog search stems every word with that tokenizer (server/store/schema.ts, FTS5 `tokenize='porter
 * unicode61'`), so the Bazaar's listings, searched in memory, are matched by the same stems
 * ("stocks" finds "Stock quotes", "translation" finds "Translate"). Words of other than a-z, or of
 * fewer than 3 letters, stay as they are, as SQLite leaves them.
 */

const isConsonant = (word: string, i: number): boolean => {
  const c = word[i];
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  if (c === 'y') return i === 0 || !isConsonant(word, i - 1);
  return true;
};

/** m: the number of vowel-consonant sequences in `stem` ([C](VC)^m[V]). */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i += 1;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i += 1;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i += 1;
    m += 1;
  }
  return m;
}

const hasVowel = (stem: string): boolean => Array.from(stem).some((_, i) => !isConsonant(stem, i));
const endsDoubleConsonant = (word: string): boolean =>
  word.length >= 2 && word[word.length - 1] === word[word.length - 2] && isConsonant(word, word.length - 1);
/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (word: string): boolean => {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1];
  return isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && last !== 'w' && last !== 'x' && last !== 'y';
};

/** Replaces the first suffix of `rules` the word ends with, when its stem passes `when`; answers null when none ends it. */
function replaceSuffix(word: string, rules: readonly (readonly [string, string])[], when: (stem: string) => boolean): string | null {
  for (const [suffix, replacement] of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, word.length - suffix.length);
      return when(stem) ? stem + replacement : word;
    }
  }
  return null;
}

const STEP2 = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
] as const;
const STEP3 = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
] as const;
const STEP4 = [
  'ement',
  'ance',
  'ence',
  'able',
  'ible',
  'ment',
  'ant',
  'ent',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
  'ion',
  'al',
  'er',
  'ic',
  'ou',
] as const;

/** Longest first within each step, as the algorithm matches the longest suffix. */
const byLength = <T extends readonly [string, string]>(rules: readonly T[]) => [...rules].sort((a, b) => b[0].length - a[0].length);
const STEP2_RULES = byLength(STEP2);
const STEP3_RULES = byLength(STEP3);
const STEP4_SUFFIXES = [...STEP4].sort((a, b) => b.length - a.length);

export function porterStem(input: string): string {
  if (input.length < 3 || !/^[a-z]+$/.test(input)) return input;
  let word = input;

  // Step 1a
  if (word.endsWith('sses')) word = word.slice(0, -2);
  else if (word.endsWith('ies')) word = word.slice(0, -2);
  else if (word.endsWith('ss')) {
    // unchanged
  } else if (word.endsWith('s')) word = word.slice(0, -1);

  // Step 1b
  let extra = false;
  if (word.endsWith('eed')) {
    if (measure(word.slice(0, -3)) > 0) word = word.slice(0, -1);
  } else if (word.endsWith('ed') && hasVowel(word.slice(0, -2))) {
    word = word.slice(0, -2);
    extra = true;
  } else if (word.endsWith('ing') && hasVowel(word.slice(0, -3))) {
    word = word.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (word.endsWith('at') || word.endsWith('bl') || word.endsWith('iz')) word += 'e';
    else if (endsDoubleConsonant(word) && !/[lsz]$/.test(word)) word = word.slice(0, -1);
    else if (measure(word) === 1 && endsCvc(word)) word += 'e';
  }

  // Step 1c
  if (word.endsWith('y') && hasVowel(word.slice(0, -1))) word = `${word.slice(0, -1)}i`;

  // Steps 2 and 3
  word = replaceSuffix(word, STEP2_RULES, (stem) => measure(stem) > 0) ?? word;
  word = replaceSuffix(word, STEP3_RULES, (stem) => measure(stem) > 0) ?? word;

  // Step 4
  const suffix = STEP4_SUFFIXES.find((ending) => word.endsWith(ending));
  if (suffix !== undefined) {
    const stem = word.slice(0, word.length - suffix.length);
    if (measure(stem) > 1 && (suffix !== 'ion' || /[st]$/.test(stem))) word = stem;
  }

  // Step 5a
  if (word.endsWith('e')) {
    const stem = word.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) word = stem;
  }
  // Step 5b
  if (measure(word) > 1 && endsDoubleConsonant(word) && word.endsWith('l')) word = word.slice(0, -1);
  return word;
}
