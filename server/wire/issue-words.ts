import type { z } from 'zod';

/** What a value of each of zod's expected types is, in words. */
const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a JSON object',
};

/** zod's own phrasing of a problem, which a rule's own message never starts with. */
const ZODS_OWN = /^(Invalid input|Invalid option|Too small|Too big)\b/;

/**
 * A problem in the words Coffer's own rules use ("is required", "must be text", "must be one of …"),
 * so that a field without a message of its own reads like one with ("Service is required", not
 * "Service: Invalid input: expected string, received undefined"); a rule's own message is kept.
 */
export function issueWords(issue: z.core.$ZodIssue): string {
  if (!ZODS_OWN.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      // zod reports no input by default; its message names what it received.
      if (issue.message.endsWith('received undefined')) return 'is required';
      return TYPE_WORDS[issue.expected] === undefined ? issue.message : `must be ${TYPE_WORDS[issue.expected]}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return sizeWords('at least', issue.origin, Number(issue.minimum)) ?? issue.message;
    case 'too_big':
      return sizeWords('at most', issue.origin, Number(issue.maximum)) ?? issue.message;
    default:
      return issue.message;
  }
}

function sizeWords(bound: 'at least' | 'at most', origin: string, size: number): string | null {
  if (origin === 'string') return bound === 'at least' && size === 1 ? 'must not be empty' : `must be ${bound} ${size} characters`;
  if (origin === 'array') return `must hold ${bound} ${size} item${size === 1 ? '' : 's'}`;
  if (origin === 'number' || origin === 'int' || origin === 'bigint') return `must be ${bound} ${size}`;
  return null;
}
