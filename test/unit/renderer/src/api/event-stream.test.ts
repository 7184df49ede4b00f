import { afterEach, describe, expect, it, vi } from 'vitest';
import { openEventStream } from '../../../../../renderer/src/api/event-stream.js';
import { warningOf } from '../../../../../renderer/src/state/store.js';

afterEach(() => vi.unstubAllGlobals());

/** A server that answers the stream with these chunks, then ends it. */
function serving(chunks: string[]) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })),
  );
}

const warning = {
  type: 'warning',
  owner: 'EQLv',
  agentId: 'researcher',
  about: 'budget',
  message: 'researcher has used 82 % of its budget of 50.00 USDC a month (41.00 USDC spent)',
  at: '2026-11-23T12:00:00.000Z',
};

describe('the event stream hands on each event with its data', () => {
  it('a warning split across chunks arrives whole, beside the events the dashboard refreshes on', async () => {
    const text = `retry: 2000\n\n: connected\n\nid: 1\nevent: payment\ndata: {"type":"payment","agentId":"researcher"}\n\nid: 2\nevent: warning\ndata: ${JSON.stringify(warning)}\n\n`;
    serving([text.slice(0, 90), text.slice(90, 150), text.slice(150)]);
    const events: [string, unknown][] = [];
    const down = new Promise<number | null>((resolve) => openEventStream('/v1/events', (type, data) => events.push([type, data]), resolve));
    expect(await down).toBe(200);
    expect(events).toEqual([
      ['payment', { type: 'payment', agentId: 'researcher' }],
      ['warning', warning],
    ]);
    expect(warningOf(events[1]![1])).toEqual({ agentId: 'researcher', about: 'budget', message: warning.message, at: warning.at });
  });

  it('data that is not JSON is undefined; a warning missing its words is none', async () => {
    serving(['event: policy\ndata: {not json\n\n']);
    const events: [string, unknown][] = [];
    await new Promise((resolve) => openEventStream('/v1/events', (type, data) => events.push([type, data]), resolve));
    expect(events).toEqual([['policy', undefined]]);
    expect(warningOf(undefined)).toBeNull();
    expect(warningOf({ ...warning, message: 42 })).toBeNull();
    expect(warningOf({ ...warning, about: 'weather' })).toBeNull();
  });
});
