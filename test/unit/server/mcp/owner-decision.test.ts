import { describe, expect, it, vi } from 'vitest';
import type { ServerContext } from '@modelcontextprotocol/server';
import { OwnerDecisions } from '../../../../server/mcp/owner-decision.js';
import type { Approval } from '../../../../server/wire/answers/approvals.js';

const COFFER = 'http://127.0.0.1:7402';
const approval = {
  approvalId: 'apr_123',
  request: { reason: { message: 'above ask-above 0.00' } },
  expiresAt: '2026-11-25T00:00:00.000Z',
} as unknown as Approval;

/** The handler context of a returning round: what the seam decoded from the echoed state. */
const returning = (state: unknown) => ({ mcpReq: { requestState: () => state } }) as unknown as ServerContext;
const anyCtx = {} as ServerContext;
const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** A first round's answer: the embedded URL request and the state the host echoes. */
async function parked(decisions: OwnerDecisions, tool: string, key: string, work: Promise<object>) {
  const followed = decisions.follow(key, approval, () => work);
  return (await decisions.park(tool, followed)) as unknown as {
    resultType: string;
    inputRequests: Record<string, { method: string; params: { mode: string; url: string; message: string } }>;
    requestState: string;
  };
}

describe('OwnerDecisions: a held payment followed until the owner decides', () => {
  it('hands a 2026 host the decision page of that request, with why it waits, and a state only this bridge can read back', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const result = await parked(decisions, 'fetch_paid', 'fetch:a', Promise.resolve({ status: 200 }));
    expect(result.resultType).toBe('input_required');
    const [request] = Object.values(result.inputRequests);
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'url', url: `${COFFER}/#/approvals/apr_123` } });
    expect(request!.params.message).toMatch(/above ask-above 0\.00; request apr_123.*nothing is paid until then/);
    expect(await decisions.verify(result.requestState, anyCtx)).toEqual({ tool: 'fetch_paid', key: 'fetch:a', approvalId: 'apr_123' });
  });

  it('refuses a state the host altered, and one another bridge sealed', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const { requestState } = await parked(decisions, 'fetch_paid', 'fetch:a', Promise.resolve({}));
    const [version, body, mac] = requestState.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as { p: { key: string } };
    payload.p.key = 'fetch:other';
    const altered = [version, Buffer.from(JSON.stringify(payload)).toString('base64url'), mac].join('.');
    await expect(decisions.verify(altered, anyCtx)).rejects.toThrow();
    await expect(new OwnerDecisions(COFFER).verify(requestState, anyCtx)).rejects.toThrow();
  });

  it('one purchase a key: asked again, the same one is followed; its answer is handed out once', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const first = decisions.follow('fetch:a', approval, () => later({ status: 200, body: 'paid' }, 30));
    let started = 0;
    const again = decisions.follow('fetch:a', approval, async () => ({ second: (started += 1) }));
    expect(again).toBe(first);
    expect(started).toBe(0);
    expect(decisions.joined('fetch:a')).toBe(first);
    expect(await decisions.outcome(first, 1_000)).toEqual({ answer: { status: 200, body: 'paid' } });
    expect(decisions.joined('fetch:a')).toBeUndefined();
  });

  it('an answer no call took is kept until its approval ends (the words the agent heard), then dropped', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-24T00:00:00.000Z') });
    try {
      const decisions = new OwnerDecisions(COFFER);
      // The approval ends a day on; the owner decides at once and the purchase is bought.
      const followed = decisions.follow('fetch:a', approval, () => Promise.resolve({ status: 200 }));
      await vi.advanceTimersByTimeAsync(0);
      // Twenty minutes on, the agent asks again as told: the same purchase (it was dropped at ten).
      await vi.advanceTimersByTimeAsync(20 * 60_000);
      expect(decisions.joined('fetch:a')).toBe(followed);
      await vi.advanceTimersByTimeAsync(24 * 60 * 60_000);
      expect(decisions.joined('fetch:a')).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('undecided within the wait, the call hears it still waits and the purchase stays followed for the next call', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const followed = decisions.follow('fetch:a', approval, () => later({ status: 200 }, 60));
    expect(await decisions.outcome(followed, 10)).toEqual({ stillWaiting: approval });
    expect(decisions.joined('fetch:a')).toBe(followed);
    expect(await decisions.outcome(decisions.joined('fetch:a')!, 1_000)).toEqual({ answer: { status: 200 } });
  });

  it('a returning round finds its purchase while followed, and nothing for another tool or once its answer was taken', async () => {
    const decisions = new OwnerDecisions(COFFER);
    const { requestState } = await parked(decisions, 'pay', 'approval:apr_123', Promise.resolve({ status: 'confirmed' }));
    const state = await decisions.verify(requestState, anyCtx);
    expect(decisions.resumed('pay', returning(undefined))).toBeUndefined();
    expect(decisions.resumed('fetch_paid', returning(state))).toEqual({ followed: null, approvalId: 'apr_123' });
    const resumed = decisions.resumed('pay', returning(state))!;
    expect(resumed.followed).not.toBeNull();
    // A host that retries the same round before the answer is taken finds the same purchase.
    expect(decisions.resumed('pay', returning(state))!.followed).toBe(resumed.followed);
    expect(await decisions.outcome(resumed.followed!, 1_000)).toEqual({ answer: { status: 'confirmed' } });
    expect(decisions.resumed('pay', returning(state))).toEqual({ followed: null, approvalId: 'apr_123' });
  });

  it('a purchase that fails while followed is no unhandled rejection: the call that takes it gets the refusal', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const decisions = new OwnerDecisions(COFFER);
      const refused = Object.assign(new Error('the owner said no'), { code: 'payment_denied' });
      const followed = decisions.follow('fetch:a', approval, () => Promise.reject(refused));
      await later(null, 20);
      expect(unhandled).toEqual([]);
      expect(await decisions.outcome(followed, 1_000)).toEqual({ error: refused });
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('keys a fetch_paid purchase by exactly what it asks', () => {
    const key = OwnerDecisions.requestKey({ url: 'https://a.test/x', method: 'GET' });
    expect(OwnerDecisions.requestKey({ url: 'https://a.test/x', method: 'GET' })).toBe(key);
    expect(OwnerDecisions.requestKey({ url: 'https://a.test/y', method: 'GET' })).not.toBe(key);
  });
});
