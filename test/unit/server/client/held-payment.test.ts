import { afterEach, describe, expect, it, vi } from 'vitest';
import { approvedOrThrow } from '../../../../server/client/held-payment.js';
import { CofferApiError } from '../../../../server/client/client-error.js';
import type { Approval } from '../../../../server/wire/answers/approvals.js';

/**
 * Following a held payment until the owner decides (server/client/held-payment.ts), against a Coffer
 * that answers each long poll as told: the long polls' own logic, not the server's (its answers are
 * tested with the real server in test/integration/held-payments.test.ts).
 */
const waiting = (expiresInMs: number) =>
  ({
    approvalId: 'apr_1',
    status: 'pending',
    expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
    request: {},
  }) as unknown as Approval;
const approved = { approvalId: 'apr_1', status: 'approved', result: { paymentId: 'pay_1' } } as unknown as Approval;
const down = () => new CofferApiError(0, 'coffer_unreachable', 'Coffer is not answering at http://127.0.0.1:7402 (ECONNREFUSED)');

afterEach(() => vi.useRealTimers());

describe('approvedOrThrow: a held payment followed with long polls', () => {
  it('a Coffer that does not answer for a while (a restart) is asked again: the approval still stands', async () => {
    vi.useFakeTimers();
    const answers: (Approval | CofferApiError)[] = [down(), down(), down(), approved];
    const approval = vi.fn(async () => {
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    const followed = approvedOrThrow({ approval }, waiting(3_600_000));
    await vi.runAllTimersAsync();
    await expect(followed).resolves.toBe(approved);
    expect(approval).toHaveBeenCalledTimes(4);
  });

  it('a Coffer stopping (503 shutting_down, as its long polls are answered at the stop) is a restart: asked again', async () => {
    vi.useFakeTimers();
    const stopping = () => new CofferApiError(503, 'shutting_down', 'Coffer is shutting down');
    const answers: (Approval | CofferApiError)[] = [waiting(3_600_000), stopping(), down(), approved];
    const approval = vi.fn(async () => {
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    });
    const followed = approvedOrThrow({ approval }, waiting(3_600_000));
    await vi.runAllTimersAsync();
    await expect(followed).resolves.toBe(approved);
    expect(approval).toHaveBeenCalledTimes(4);
  });

  it('gives up once the approval has expired: nothing can be paid under it any more', async () => {
    vi.useFakeTimers();
    const approval = vi.fn(async (): Promise<Approval> => {
      throw down();
    });
    const followed = approvedOrThrow({ approval }, waiting(20_000));
    const settled = expect(followed).rejects.toMatchObject({ code: 'coffer_unreachable' });
    await vi.runAllTimersAsync();
    await settled;
    expect(approval.mock.calls.length).toBeGreaterThan(1);
  });

  it('an answer that refuses (not a transport failure) ends the wait at once', async () => {
    const approval = vi.fn(async (): Promise<Approval> => {
      throw new CofferApiError(404, 'approval_not_found', 'no such approval');
    });
    await expect(approvedOrThrow({ approval }, waiting(3_600_000))).rejects.toMatchObject({ code: 'approval_not_found' });
    expect(approval).toHaveBeenCalledTimes(1);
  });

  it('denied: refused with the code the payment ended with', async () => {
    const approval = vi.fn(async () => ({ ...approved, status: 'denied', result: undefined }) as unknown as Approval);
    const refused = approvedOrThrow({ approval }, waiting(3_600_000));
    await expect(refused).rejects.toMatchObject({ code: 'payment_denied' });
    // Named by the request the agent was shown, in words.
    await expect(refused).rejects.toThrow(/^request apr_\S+ was denied by the owner; nothing was paid$/);
  });
});

describe('approvedOrThrow given up: the caller aborts while the owner decides', () => {
  /** A long poll that answers only when the caller's signal aborts it, as fetch does (Coffer not answering, status 0). */
  const pollUntilAborted = (_id: string, _wait?: number, signal?: AbortSignal) =>
    new Promise<Approval>((_, reject) => signal?.addEventListener('abort', () => reject(down())));

  it('withdraws the request and throws the signal’s reason: nothing was paid', async () => {
    const approval = vi.fn(pollUntilAborted);
    const withdrawRequest = vi.fn(async () => ({ ...waiting(0), status: 'withdrawn' }) as Approval);
    const caller = new AbortController();
    const followed = approvedOrThrow({ approval }, waiting(3_600_000), { signal: caller.signal, api: { withdrawRequest } });
    caller.abort();
    await expect(followed).rejects.toBe(caller.signal.reason);
    expect(withdrawRequest).toHaveBeenCalledWith('apr_1');
    expect(approval).toHaveBeenCalledTimes(1);
  });

  it('where the owner decided first (the withdrawal refused), waits for the decision: a yes’s payment is handed back', async () => {
    const answers = [pollUntilAborted, async () => approved];
    const approval = vi.fn((id: string, wait?: number, signal?: AbortSignal) => answers.shift()!(id, wait, signal));
    const withdrawRequest = vi.fn(async (): Promise<Approval> => {
      throw new CofferApiError(409, 'approval_decided', 'request apr_1 was already approved');
    });
    const caller = new AbortController();
    const followed = approvedOrThrow({ approval }, waiting(3_600_000), { signal: caller.signal, api: { withdrawRequest } });
    caller.abort();
    await expect(followed).resolves.toBe(approved);
    expect(withdrawRequest).toHaveBeenCalledTimes(1);
    // The decision's poll is not given up with the caller's signal.
    expect(approval.mock.calls[1]![2]).toBeUndefined();
  });

  it('Coffer not answering the withdrawal: the signal’s reason all the same (the request waits, for the owner to deny)', async () => {
    const approval = vi.fn(pollUntilAborted);
    const withdrawRequest = vi.fn(async (): Promise<Approval> => {
      throw down();
    });
    const caller = new AbortController();
    const followed = approvedOrThrow({ approval }, waiting(3_600_000), { signal: caller.signal, api: { withdrawRequest } });
    caller.abort(new Error('enough'));
    await expect(followed).rejects.toThrow('enough');
  });

  it('Coffer refusing the withdrawal for another reason (stopping): the signal’s reason, not a wait for a decision that was not made', async () => {
    const approval = vi.fn(pollUntilAborted);
    const withdrawRequest = vi.fn(async (): Promise<Approval> => {
      throw new CofferApiError(503, 'shutting_down', 'Coffer is shutting down');
    });
    const caller = new AbortController();
    const followed = approvedOrThrow({ approval }, waiting(3_600_000), { signal: caller.signal, api: { withdrawRequest } });
    caller.abort();
    await expect(followed).rejects.toBe(caller.signal.reason);
    expect(approval).toHaveBeenCalledTimes(1);
  });

  it('a signal aborted before the wait begins withdraws at once, asking nothing', async () => {
    const approval = vi.fn(pollUntilAborted);
    const withdrawRequest = vi.fn(async () => ({ ...waiting(0), status: 'withdrawn' }) as Approval);
    const followed = approvedOrThrow({ approval }, waiting(3_600_000), { signal: AbortSignal.abort(), api: { withdrawRequest } });
    await expect(followed).rejects.toMatchObject({ name: 'AbortError' });
    expect(approval).not.toHaveBeenCalled();
  });
});
