/**
 * A payment held for the owner's yes, and the terminal that waits for it interrupted (Ctrl-C, the
 * window closed, a kill): its request is withdrawn before the command ends. Left waiting, a yes given
 * later paid a Coffer receipt at once that no one would present, and running the command again asked
 * and paid anew. The owner's answer and the withdrawal are each one conditional update: whichever
 * came first stands, and the words say which.
 */
import type { CofferClient } from '../client/coffer-client.js';
import type { Approval } from '../wire/answers/approvals.js';
import { CofferApiError } from '../client/client-error.js';

type Out = NodeJS.WritableStream;

/** The exit status of a command a signal ended, as a shell reports it (128 + the signal's number). */
const SIGNAL_STATUS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type Signal = keyof typeof SIGNAL_STATUS;

/** How long the withdrawal may take before the command ends anyway. */
const WITHDRAW_TIMEOUT_MS = 5_000;

/**
 * While the request waits: on SIGINT, SIGTERM or SIGHUP, withdraws it, says so on `err`, and ends the
 * process with the signal's status. Answers the function that stops listening (the wait ended).
 */
export function withdrawnOnInterrupt(api: CofferClient, approval: Approval, err: Out): () => void {
  const signals = Object.keys(SIGNAL_STATUS) as Signal[];
  const stop = () => signals.forEach((signal) => process.removeListener(signal, handlers[signal]));
  const handlers = Object.fromEntries(
    signals.map((signal) => [
      signal,
      () => {
        stop();
        void withdraw(api, approval)
          .then((words) => err.write(`\ncoffer: interrupted: ${words}\n`))
          .finally(() => process.exit(SIGNAL_STATUS[signal]));
      },
    ]),
  ) as Record<Signal, () => void>;
  signals.forEach((signal) => process.once(signal, handlers[signal]));
  return stop;
}

/** The request withdrawn, in words; or why it could not be. */
async function withdraw(api: CofferClient, approval: Approval): Promise<string> {
  const { approvalId } = approval;
  try {
    await Promise.race([
      api.withdrawRequest(approvalId),
      new Promise((_, reject) => setTimeout(() => reject(new Error('Coffer did not answer in time')), WITHDRAW_TIMEOUT_MS).unref()),
    ]);
    return `withdrew request ${approvalId}; nothing was paid`;
  } catch (error) {
    if (error instanceof CofferApiError && error.code === 'approval_decided') {
      return `request ${approvalId} was decided first (${error.message}); coffer status shows what was paid`;
    }
    return `request ${approvalId} could not be withdrawn (${(error as Error).message}): it still waits for the owner, who can deny it`;
  }
}
