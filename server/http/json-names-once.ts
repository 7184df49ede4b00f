/**
 * The first name an object of a JSON text gives twice, or null where each object names each field
 * once (or the text is no JSON: its parse judges it). RFC 8259 leaves a repeated name to the reader:
 * JSON.parse keeps the last, so `{"amount":"0.01","amount":"0.5"}` paid 0.5 where a reader of the
 * first (a log, a proxy, a person) saw 0.01. Names are compared as they read, escapes undone
 * (`"daily\u0042udget"` is `dailyBudget`); the same name in another object is another field.
 */
export function firstNameGivenTwice(text: string): string | null {
  // One entry per open object (the names it gave) or array (null), innermost last.
  const open: (Set<string> | null)[] = [];
  let nameComes = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      const end = closingQuoteOf(text, at);
      if (end === -1) return null;
      const names = open.at(-1);
      if (nameComes && names) {
        const name = stringAt(text, at, end);
        if (name === null) return null;
        if (names.has(name)) return name;
        names.add(name);
      }
      nameComes = false;
      at = end;
    } else if (char === '{') {
      open.push(new Set());
      nameComes = true;
    } else if (char === '[') {
      open.push(null);
    } else if (char === '}' || char === ']') {
      open.pop();
    } else if (char === ',') {
      nameComes = open.at(-1) instanceof Set;
    }
  }
  return null;
}

/** Where the string opened at `start` closes: the next quote not escaped, or -1. */
function closingQuoteOf(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    if (text[at] === '\\') at++;
    else if (text[at] === '"') return at;
  }
  return -1;
}

/** The string between two quotes as it reads, or null where its escapes are not JSON's. */
function stringAt(text: string, start: number, end: number): string | null {
  const inner = text.slice(start + 1, end);
  if (!inner.includes('\\')) return inner;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return null;
  }
}
