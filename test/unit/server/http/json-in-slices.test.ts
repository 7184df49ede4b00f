import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonInSlices } from '../../../../server/http/json-in-slices.js';

describe('a long answer serialized a slice per turn', () => {
  it('is the same text as JSON.stringify, whatever the answer holds', async () => {
    const item = fc.record(
      {
        agentId: fc.string(),
        spent: fc.option(fc.string(), { nil: undefined }),
        count: fc.oneof(fc.integer(), fc.double()),
        when: fc.option(fc.date({ noInvalidDate: true }), { nil: null }),
        nested: fc.dictionary(fc.string(), fc.jsonValue()),
      },
      { requiredKeys: ['agentId'] },
    );
    const answer = fc.dictionary(
      fc.string(),
      fc.oneof(
        fc.array(item, { maxLength: 160 }),
        fc.jsonValue(),
        fc.constant(undefined),
        fc.array(fc.constant(undefined), { maxLength: 120 }),
      ),
    );
    await fc.assert(
      fc.asyncProperty(answer, async (value) => {
        expect(await jsonInSlices(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 200 },
    );
  });

  it('lets what waits run between its slices, 50 items at most between two turns', async () => {
    const ran: string[] = [];
    // A turn of the event loop's check phase, as a payment's would be, marked each time it comes.
    let ticking = true;
    const tick = () => {
      ran.push('turn');
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const seen = (name: string) => ({
      get seen() {
        ran.push(name);
        return true;
      },
    });
    const agents = Array.from({ length: 120 }, (_, i) => seen(`item ${i}`));
    const text = await jsonInSlices({ agents, short: [seen('short')] });
    ticking = false;
    expect(JSON.parse(text).agents).toHaveLength(120);
    const runs = ran
      .join(',')
      .split('turn')
      .map((between) => between.split(',').filter((entry) => entry.startsWith('item')).length);
    // 120 items, 50 a turn: three slices, each in a turn of its own.
    expect(runs.filter((count) => count > 0)).toEqual([50, 50, 20]);
    expect(ran.indexOf('item 0')).toBeGreaterThan(ran.indexOf('turn'));
  });
});
