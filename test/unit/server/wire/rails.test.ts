import { describe, expect, it } from 'vitest';
import { railFirst } from '../../../../server/wire/rails.js';

describe('railFirst', () => {
  const entries = [
    { rail: 'sol' as const, id: 1 },
    { rail: 'base' as const, id: 2 },
    { rail: 'sol' as const, id: 3 },
    { rail: 'base' as const, id: 4 },
  ];

  it('puts the entries on the rail named first, each group in its own order', () => {
    expect(railFirst(entries, 'base').map(({ id }) => id)).toEqual([2, 4, 1, 3]);
    expect(railFirst(entries, 'sol').map(({ id }) => id)).toEqual([1, 3, 2, 4]);
  });

  it('keeps the order where no rail is named, and leaves the list it was given as it was', () => {
    expect(railFirst(entries, null).map(({ id }) => id)).toEqual([1, 2, 3, 4]);
    railFirst(entries, 'base');
    expect(entries.map(({ id }) => id)).toEqual([1, 2, 3, 4]);
  });
});
