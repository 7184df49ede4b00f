import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withdrawnIfInterrupted, withdrawnOnInterrupt } from '../../../../server/cli/held-interrupt.js';
import { CofferApiError } from '../../../../server/client/client-error.js';
import type { CofferClient } from '../../../../server/client/coffer-client.js';
import type { Approval } from '../../../../server/wire/answers/approvals.js';

const approval = { approvalId: 'apr_1' } as Approval;
/** A client whose withdrawal answers when the test says. */
function client() {
  let answer!: (outcome: { ok: true } | { error: Error }) => void;
  const answered = new Promise<{ ok: true } | { error: Error }>((resolve) => (answer = resolve));
  const api = {
    withdrawRequest: vi.fn(async () => {
      const outcome = await answered;
      if ('error' in outcome) throw outcome.error;
      return approval;
    }),
  } as unknown as CofferClient;
  return { api, answer };
}

function output() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { out, text: () => text };
}

afterEach(() => vi.restoreAllMocks());

describe('a held wait interrupted', () => {
  it('listens for an interrupt before it says it waits: a Ctrl-C at the words withdraws the request, never ends the process unheard', async () => {
    const { api } = client();
    const before = process.listenerCount('SIGINT');
    // What was listened for at the moment each line was written.
    const heardAt: number[] = [];
    const err = new PassThrough();
    const write = err.write.bind(err);
    err.write = ((chunk: string) => {
      heardAt.push(process.listenerCount('SIGINT') - before);
      return write(chunk);
    }) as typeof err.write;
    const heldApproval = { ...approval, expiresAt: new Date().toISOString(), request: {} } as Approval;
    await withdrawnIfInterrupted(
      api,
      err,
      async (onHeld) => {
        onHeld(heldApproval);
        return 'answered';
      },
      () => 'coffer fetch … --approval apr_1',
    );
    expect(heardAt).toEqual([1, 1]);
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('withdraws once; a second signal meanwhile is taken, not left to end the process; withdrawn, it ends with the words', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const { api, answer } = client();
    const { out, text } = output();
    const before = process.listenerCount('SIGINT');
    const wait = withdrawnOnInterrupt(api, approval, out);
    process.emit('SIGINT');
    // Still listened for while the withdrawal is under way (npm forwards a Ctrl-C a second time).
    expect(process.listenerCount('SIGINT')).toBe(before + 1);
    process.emit('SIGINT');
    expect(api.withdrawRequest).toHaveBeenCalledTimes(1);
    answer({ ok: true });
    void wait.failed();
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(130));
    expect(text()).toContain('coffer: interrupted: withdrew request apr_1; nothing was paid');
    wait.stop();
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('decided first: says so before the answer, and lets the command go on', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const { api, answer } = client();
    const { out, text } = output();
    const wait = withdrawnOnInterrupt(api, approval, out);
    process.emit('SIGTERM');
    answer({ error: new CofferApiError(409, 'approval_decided', 'this request is no longer waiting: approved') });
    await wait.answered();
    expect(text()).toContain('request apr_1 was decided first (this request is no longer waiting: approved); its answer follows');
    expect(exit).not.toHaveBeenCalled();
    wait.stop();
  });

  it('Coffer not answering: ends at once, saying the request still waits for the owner', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const { api, answer } = client();
    const { out, text } = output();
    const wait = withdrawnOnInterrupt(api, approval, out);
    process.emit('SIGHUP');
    answer({ error: new CofferApiError(0, 'coffer_unreachable', 'not answering') });
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(129));
    expect(text()).toMatch(/request apr_1 could not be withdrawn \(not answering\): it still waits for the owner/);
    wait.stop();
  });
});
