import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { deployAgent, manualClock, signIn } from '../helpers/coffer.js';
import { payUsdc } from '../helpers/pay.js';
import { useCoffer } from '../helpers/server-fixture.js';

/** Reads a server-sent event stream until it ends or `until` matches what was read. */
async function readStream(response: Response, until: RegExp): Promise<{ text: string; ended: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { text, ended: true };
    text += decoder.decode(value);
    if (until.test(text)) {
      await reader.cancel();
      return { text, ended: false };
    }
  }
}

describe('the event stream and its sign-in', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });

  const openStream = (session: string) =>
    fetch(`${t.url}${t.withOwner('/v1/events')}`, { headers: { authorization: `Bearer ${session}` } });
  const faucet = () => t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '1.00' } });

  it('a signed-in dashboard gets events', async () => {
    const stream = await openStream(await signIn(t));
    expect(stream.status).toBe(200);
    const reading = readStream(stream, /event: deposit/);
    await faucet();
    const { text, ended } = await reading;
    expect(ended).toBe(false);
    expect(text).toMatch(/event: deposit\ndata: .*"amount":"1.00"/);
  });

  it('each money move says its rail: a listener tells a Base payment from a Solana one (helper 183)', async () => {
    await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '5', rail: 'base' } });
    const { apiKey } = await deployAgent(t, 'railed', { dailyBudget: '5', maxPerPayment: '1' });
    const stream = await openStream(await signIn(t));
    const reading = readStream(stream, /event: return\n/);
    const moved = async (path: string, body: unknown) => expect((await t.api('POST', t.withOwner(path), { body })).status).toBe(200);
    await moved('/v1/agents/railed/allocate', { amount: '1', rail: 'base' });
    await moved('/v1/agents/railed/allocate', { amount: '1' });
    expect((await payUsdc(t, 'railed', apiKey, { service: 'demo-weather', amount: '0.01', rail: 'base' })).status).toBe(200);
    await moved('/v1/agents/railed/return', { amount: '0.5', rail: 'base' });
    const { text } = await reading;
    const events = [...text.matchAll(/event: (\w+)\ndata: (.*)\n/g)]
      .filter(([, type]) => ['allocation', 'payment', 'return'].includes(type!))
      .map(([, type, data]) => [type, (JSON.parse(data!) as { rail?: string }).rail]);
    expect(events).toEqual([
      ['allocation', 'base'],
      ['allocation', 'sol'],
      ['payment', 'base'],
      ['return', 'base'],
    ]);
  });

  it('ends when its session expires, before handing over the next event', async () => {
    const session = await signIn(t);
    const stream = await openStream(session);
    const reading = readStream(stream, /event: /);
    clock.advance(12 * 60 * 60 * 1000 + 1);
    await faucet();
    const { text, ended } = await reading;
    expect(ended).toBe(true);
    expect(text).not.toMatch(/event: /);
    // And the expired session opens no new stream.
    const again = await openStream(session);
    expect(again.status).toBe(401);
    expect((await again.json()).code).toBe('unauthorized');
  });
});

// Helpers 197 and 199: nothing bounded what an agent's key holds open. 500 event streams of one key
// (each with requests pipelined behind it) took `coffer serve` from 241 to 522 MB; each stream and
// each wait for a decision holds a connection and is asked about every event, for as long as it lasts.
describe('what an agent key holds open: event streams and waits for a decision', () => {
  const t = useCoffer();

  const openStream = (key: string) => fetch(`${t.url}${t.withOwner('/v1/events')}`, { headers: { authorization: `Bearer ${key}` } });

  it('at most 32 at once per agent key; past that 429 too_many_requests, and a closed one gives its place back', async () => {
    const agent = await deployAgent(t, 'holder', { dailyBudget: '5', maxPerPayment: '1' });
    const other = await deployAgent(t, 'other', { dailyBudget: '5', maxPerPayment: '1' });
    const asked = await t.api('POST', t.withOwner('/v1/agents/holder/policy'), { key: agent.apiKey, body: { dailyBudget: '8' } });
    expect(asked.status).toBe(202);
    const approvalId = (asked.body as { approvalId: string }).approvalId;
    // One wait for the owner's decision and 31 streams: 32 held.
    const waiting = t.api('GET', t.withOwner(`/v1/approvals/${approvalId}?wait=30`), { key: agent.apiKey });
    const streams: Response[] = [];
    for (let i = 0; i < 31; i++) streams.push(await openStream(agent.apiKey));
    expect(streams.map((stream) => stream.status)).toEqual(Array.from({ length: 31 }, () => 200));

    const refused = await openStream(agent.apiKey);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error:
        'agent "holder" already holds 32 requests open (event streams and waits for a decision), the most one agent may: close one and ask again',
      code: 'too_many_requests',
    });
    expectError(
      await t.api('GET', t.withOwner(`/v1/approvals/${approvalId}?wait=5`), { key: agent.apiKey }),
      429,
      'too_many_requests',
      /32 requests open/,
    );
    // Asked without waiting, it is answered.
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${approvalId}`), { key: agent.apiKey })).status).toBe(200);
    // Another agent, and the owner, are not held back.
    const others = [await openStream(other.apiKey), await openStream(await signIn(t))];
    expect(others.map((stream) => stream.status)).toEqual([200, 200]);

    // The wait answered (the owner decides) and a stream closed: two places back.
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/deny`))).status).toBe(200);
    expect((await waiting).status).toBe(200);
    await streams.pop()!.body!.cancel();
    await vi.waitFor(async () => {
      const again = await openStream(agent.apiKey);
      if (again.status === 200) streams.push(again);
      expect(again.status).toBe(200);
    });
    streams.push(await openStream(agent.apiKey));
    expect(streams.at(-1)!.status).toBe(200);
    expect((await openStream(agent.apiKey)).status).toBe(429);
    for (const stream of [...streams, ...others]) await stream.body!.cancel();
  });

  // A stream whose client left before its handler ran (its connection closed by the client, or by
  // the bound on requests pipelined behind it) heard no 'close': it was over before anyone listened.
  // Its heartbeat, its listener on every event and its place among the 32 stayed for good: 28 of a
  // hundred flooding connections, and the agent refused 429 with nothing open (found this stop).
  it('one whose client left before it was served holds nothing after: no place, no heartbeat', async () => {
    const agent = await deployAgent(t, 'leaver', { dailyBudget: '5', maxPerPayment: '1' });
    const port = Number(new URL(t.url).port);
    const stream = `GET ${t.withOwner('/v1/events')} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${agent.apiKey}\r\n\r\n`;
    const health = `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    // Each connection closed by the server as its 65th request waits: the stream had not been served yet.
    await Promise.all(
      Array.from(
        { length: 40 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => socket.write(stream + health.repeat(65)));
            socket.on('close', () => resolve());
            socket.on('error', () => undefined);
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const streams: Response[] = [];
    for (let i = 0; i < 32; i++) streams.push(await openStream(agent.apiKey));
    expect(streams.map((stream) => stream.status)).toEqual(Array.from({ length: 32 }, () => 200));
    for (const stream of streams) await stream.body!.cancel();
  });
});
