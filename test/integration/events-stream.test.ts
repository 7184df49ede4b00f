import { describe, expect, it } from 'vitest';
import { manualClock, signIn } from '../helpers/coffer.js';
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
