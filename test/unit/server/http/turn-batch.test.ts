import { describe, expect, it } from 'vitest';
import { afterRequestsReadThisTurn } from '../../../../server/http/turn-batch.js';

const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('requests read in one turn go into the engine together', () => {
  it('lets every waiter of a turn go on at once, in the order they came, after what was queued before them', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('queued before'));
    const waiting = ['a', 'b', 'c'].map((name) =>
      afterRequestsReadThisTurn().then(async () => {
        order.push(`${name} goes on`);
        // Each goes on to its next step only once all of them have taken their first.
        await Promise.resolve();
        order.push(`${name} next step`);
      }),
    );
    setImmediate(() => order.push('queued after'));
    expect(order).toEqual([]);
    await Promise.all(waiting);
    await nextCheckPhase();
    expect(order).toEqual([
      'queued before',
      'a goes on',
      'b goes on',
      'c goes on',
      'a next step',
      'b next step',
      'c next step',
      'queued after',
    ]);
  });

  it('a waiter that comes once a batch has gone waits for the next check phase', async () => {
    const order: string[] = [];
    const first = afterRequestsReadThisTurn().then(() => {
      order.push('first');
      setImmediate(() => order.push('queued by the first'));
      return afterRequestsReadThisTurn().then(() => order.push('second'));
    });
    await first;
    expect(order).toEqual(['first', 'queued by the first', 'second']);
  });
});
