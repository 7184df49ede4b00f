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
