import { afterEach, describe, expect, it, vi } from 'vitest';
import { startMinuteTimer } from '../../../../server/boot/minute-timer.js';
import type { Engine } from '../../../../server/core/engine.js';

describe('the minute timer', () => {
  afterEach(() => vi.useRealTimers());

  it('looks soon after start and then every interval (requests expired, expiries told, then backups), never two runs at once, says a failure, and stop() waits for a run under way', async () => {
    vi.useFakeTimers();
    let runs = 0;
    let reminders = 0;
    let expiries = 0;
    let release: () => void = () => undefined;
    const engine = {
      expireWaiting: () => {
        expiries += 1;
      },
      remindOfExpiries: () => {
        reminders += 1;
        return 0;
      },
      runDueBackups: () => {
        runs += 1;
        return new Promise<{ written: number; failed: number }>((resolve) => {
          release = () => resolve({ written: 0, failed: 1 });
        });
      },
    } as unknown as Engine;
    const said: string[] = [];
    const timer = startMinuteTimer(engine, (message) => said.push(message), 60_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect([reminders, runs]).toEqual([1, 1]);
    // The run is still going: the next tick does not start another.
    await vi.advanceTimersByTimeAsync(60_000);
    expect([reminders, runs]).toEqual([1, 1]);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(said).toEqual([expect.stringMatching(/a scheduled backup failed/)]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect([expiries, reminders, runs]).toEqual([2, 2, 2]);
    let stopped = false;
    const stopping = timer.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(runs).toBe(2);
  });
});
