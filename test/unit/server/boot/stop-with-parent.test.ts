import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopWithParent } from '../../../../server/boot/stop-with-parent.js';

describe('stopping with the process that started this one', () => {
  afterEach(() => vi.useRealTimers());

  it('stops once when the parent pid changes (the orphan was adopted), and not while the parent lives', () => {
    vi.useFakeTimers();
    let parent = 4242;
    let stops = 0;
    stopWithParent({ ppid: () => parent, stop: () => (stops += 1), every: 200 });
    vi.advanceTimersByTime(2_000);
    expect(stops).toBe(0);
    parent = 1;
    vi.advanceTimersByTime(199);
    expect(stops).toBe(0);
    vi.advanceTimersByTime(1);
    expect(stops).toBe(1);
    // Adopted again (a subreaper that exits): still the one stop.
    parent = 7;
    vi.advanceTimersByTime(2_000);
    expect(stops).toBe(1);
  });

  it('cancelled, it never stops', () => {
    vi.useFakeTimers();
    let parent = 4242;
    let stops = 0;
    const watch = stopWithParent({ ppid: () => parent, stop: () => (stops += 1), every: 200 });
    watch.cancel();
    parent = 1;
    vi.advanceTimersByTime(2_000);
    expect(stops).toBe(0);
  });
});
