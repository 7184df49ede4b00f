import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backgroundLogFlusher } from '../../../../server/store/log-flusher.js';

/** A flush that ends when told to, counting how many began. */
function heldFlushes() {
  const ends: (() => void)[] = [];
  let began = 0;
  const flush = () => {
    began += 1;
    return new Promise<void>((resolve) => ends.push(resolve));
  };
  const endOne = async () => {
    ends.shift()?.();
    // The flusher's own continuations (its catch, then finally) run before the next look.
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
  };
  return { flush, endOne, began: () => began };
}

describe('backgroundLogFlusher', () => {
  it('runs one flush at a time: commits made while one runs get one more after it, not one each', async () => {
    const held = heldFlushes();
    const flushSoon = backgroundLogFlusher('log', held.flush);
    flushSoon();
    expect(held.began()).toBe(1);
    flushSoon();
    flushSoon();
    flushSoon();
    expect(held.began()).toBe(1);
    await held.endOne();
    expect(held.began()).toBe(2);
    await held.endOne();
    expect(held.began()).toBe(2);
    flushSoon();
    expect(held.began()).toBe(3);
  });

  it('goes on after a flush that failed', async () => {
    let calls = 0;
    const flushSoon = backgroundLogFlusher('log', async () => {
      calls += 1;
      throw new Error('ENOENT');
    });
    flushSoon();
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    flushSoon();
    expect(calls).toBe(2);
  });

  describe('on real files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-flush-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('flushes a file that is there and shrugs at one that is not, throwing at no one', async () => {
      const file = join(dir, 'coffer.db-wal');
      writeFileSync(file, 'frames');
      const rejections: unknown[] = [];
      const record = (reason: unknown) => rejections.push(reason);
      process.on('unhandledRejection', record);
      try {
        backgroundLogFlusher(file)();
        backgroundLogFlusher(join(dir, 'missing-wal'))();
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        process.off('unhandledRejection', record);
      }
      expect(rejections).toEqual([]);
    });
  });
});
