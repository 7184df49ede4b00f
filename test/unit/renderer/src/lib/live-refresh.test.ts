import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FALLBACK_REFRESH_MS, LIVE_REFRESH_DELAY_MS, STREAM_RETRY_MS, followServer } from '../../../../../renderer/src/lib/live-refresh.js';

/** A stand-in for the event stream: what was opened, and the callbacks to play the server's part. */
function fakeServer() {
  const streams: {
    url: string;
    onEvent: (type: string, data: unknown) => void;
    onDown: (status: number | null) => void;
    onOpen: () => void;
    closed: boolean;
  }[] = [];
  const open = (
    url: string,
    onEvent: (type: string, data: unknown) => void,
    onDown: (status: number | null) => void,
    onOpen = () => {},
  ) => {
    const stream = { url, onEvent, onDown, onOpen, closed: false };
    streams.push(stream);
    return () => {
      stream.closed = true;
    };
  };
  const refresh = vi.fn(async () => undefined);
  const lostConnection = vi.fn();
  const noteWarning = vi.fn();
  const stop = followServer({ open, eventsUrl: () => '/v1/events', refresh, lostConnection, noteWarning });
  return { streams, refresh, lostConnection, noteWarning, stop };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the dashboard follows the server', () => {
  it('a burst of live events is one refresh, a moment later; events that change no figure are ignored', () => {
    const { streams, refresh } = fakeServer();
    expect(streams.map((s) => s.url)).toEqual(['/v1/events']);
    streams[0]!.onEvent('payment', {});
    streams[0]!.onEvent('approval', {});
    streams[0]!.onEvent('deposit', {});
    vi.advanceTimersByTime(LIVE_REFRESH_DELAY_MS - 1);
    expect(refresh).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(refresh).toHaveBeenCalledTimes(1);
    streams[0]!.onEvent('heartbeat', {});
    vi.advanceTimersByTime(LIVE_REFRESH_DELAY_MS);
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('a warning’s words are noted as they came (a malformed one is not), and it refreshes too', () => {
    const { streams, refresh, noteWarning } = fakeServer();
    streams[0]!.onEvent('warning', {
      agentId: 'alpha',
      about: 'budget',
      message: 'alpha used 80% of its budget',
      at: '2026-11-23T12:00:00Z',
    });
    streams[0]!.onEvent('warning', { about: 'budget' });
    expect(noteWarning).toHaveBeenCalledTimes(1);
    expect(noteWarning).toHaveBeenCalledWith({
      agentId: 'alpha',
      about: 'budget',
      message: 'alpha used 80% of its budget',
      at: '2026-11-23T12:00:00Z',
    });
    vi.advanceTimersByTime(LIVE_REFRESH_DELAY_MS);
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('a dropped stream marks the figures stale, refreshes, opens again after a pause, and refreshes once open', () => {
    const { streams, refresh, lostConnection } = fakeServer();
    streams[0]!.onDown(null);
    expect(lostConnection).toHaveBeenCalledTimes(1);
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(STREAM_RETRY_MS - 1);
    expect(streams).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(streams).toHaveLength(2);
    streams[1]!.onOpen();
    expect(refresh).toHaveBeenCalledTimes(2);
  });

  it('polls slowly all the while, and stopping closes the stream and every timer', () => {
    const { streams, refresh, stop } = fakeServer();
    vi.advanceTimersByTime(FALLBACK_REFRESH_MS);
    expect(refresh).toHaveBeenCalledTimes(1);
    streams[0]!.onEvent('payment', {});
    streams[0]!.onDown(null);
    stop();
    expect(streams[0]!.closed).toBe(true);
    const calls = refresh.mock.calls.length;
    vi.advanceTimersByTime(FALLBACK_REFRESH_MS + STREAM_RETRY_MS);
    expect(refresh).toHaveBeenCalledTimes(calls);
    expect(streams).toHaveLength(1);
  });
});
