import { describe, expect, it } from 'vitest';
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
