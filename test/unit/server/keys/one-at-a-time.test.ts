import { describe, expect, it } from 'vitest';
import { oneAtATime } from '../../../../server/keys/one-at-a-time.js';

describe('oneAtATime', () => {
  it('runs concurrent calls one at a time, in order, each answered its own result or failure', async () => {
    const inTurn = oneAtATime();
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const call = (i: number) =>
      inTurn(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, (7 - i) % 3));
        running -= 1;
        order.push(i);
        if (i === 2) throw new Error('the third fails');
        return i * 10;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map(call));
    expect(most).toBe(1);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      0,
      10,
      'the third fails',
      30,
      40,
    ]);
  });
});
