import { describe, expect, it } from 'vitest';
import { firstNameGivenTwice } from '../../../../server/http/json-names-once.js';

/** server/http/json-names-once.ts: a JSON object naming a field twice is told by that name. */
describe('firstNameGivenTwice', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":1,"b":{"c":1,"c":2}}', 'c'],
    ['[{"x":1},{"y":[{"z":1,"z":1}]}]', 'z'],
    ['{"a\\u0062":1,"ab":2}', 'ab'],
    ['{"q\\"":1,"q\\"":2}', 'q"'],
    ['{"a":{"b":1},"a":[]}', 'a'],
    [' { "a" : 1 , "b" : 2 , "a" : 3 } ', 'a'],
  ])('%s names %s twice', (text, name) => {
    expect(firstNameGivenTwice(text)).toBe(name);
  });

  it.each([
    '{"a":1,"b":2}',
    '{"a":{"a":1},"b":{"a":2}}',
    '[{"a":1},{"a":2}]',
    '{"a":"a","b":"a"}',
    '{"a":"{\\"a\\":1,\\"a\\":2}"}',
    '{"a":"x,\\"a\\":","b":["a","a"]}',
    '{"a":1,"A":2}',
    '[]',
    '"a"',
    '{"a":1,',
    '{"a',
    '{"\\x":1,"\\x":2}',
  ])('%s names no field twice (or is no JSON, left to the parse)', (text) => {
    expect(firstNameGivenTwice(text)).toBeNull();
  });

  it('agrees with JSON.parse on what a text holds: where it finds none, every name parsed is kept', () => {
    // A repeated name loses a value in JSON.parse: a text with none keeps as many names as it gives.
    const texts = ['{"a":[1,{"b":2,"c":{"d":[]}}],"e":"}{,:\\"","f":null}', '{"x":{"y":{"z":{"x":{"y":1}}}},"y":2}'];
    for (const text of texts) {
      expect(firstNameGivenTwice(text)).toBeNull();
      const names = (value: unknown): number =>
        typeof value !== 'object' || value === null
          ? 0
          : Object.entries(value).reduce((sum, [, inner]) => sum + names(inner), Array.isArray(value) ? 0 : Object.keys(value).length);
      expect(names(JSON.parse(text))).toBe((text.match(/"[^"\\]*(?:\\.[^"\\]*)*"\s*:/g) ?? []).length);
    }
  });
});
