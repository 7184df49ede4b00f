/**
 * A payment held for the owner's yes, and the terminal that waits for it interrupted (Ctrl-C, the
 * window closed, a kill): its request is withdrawn before the command ends. Left waiting, a yes given
 * later paid a Coffer receipt at once that no one would present, and running the command again asked
 * and paid anew. The owner's answer and the withdrawal are each one conditional update: whichever
 * came first stands, and the words say which. Decided first, the command goes on to its answer (a
 * payment made is printed, never dropped).
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

/** A held request's wait, listening for an interrupt. */
export interface HeldWait {
  /** The wait ended (answered, or failed): stop listening. */
  stop(): void;
  /**
   * Before the command says how its wait failed: where an interrupt is withdrawing the request, never
   * resolves (the process ends with the interrupt's words and status); otherwise at once.
   */
  settled(): Promise<void>;
}

/**
 * While the request waits: on SIGINT, SIGTERM or SIGHUP, withdraws it, says so on `err`, and ends the
 * process with the signal's status; decided first, says so and lets the command go on to its answer.
 */
export function withdrawnOnInterrupt(api: CofferClient, approval: Approval, err: Out): HeldWait {
  const signals = Object.keys(SIGNAL_STATUS) as Signal[];
  let withdrawing: Promise<boolean> | null = null;
  const stop = () => signals.forEach((signal) => process.removeListener(signal, handlers[signal]));
  const handlers = Object.fromEntries(
    signals.map((signal) => [
      signal,
      () => {
        stop();
        withdrawing = withdraw(api, approval).then(({ ended, words }) => {
          err.write(`\ncoffer: interrupted: ${words}\n`);
          if (ended) process.exit(SIGNAL_STATUS[signal]);
          return ended;
        });
      },
    ]),
  ) as Record<Signal, () => void>;
  signals.forEach((signal) => process.once(signal, handlers[signal]));
  return {
    stop,
    settled: async () => {
      if (withdrawing !== null && (await withdrawing)) await new Promise<never>(() => {});
    },
  };
}

/** The request withdrawn (the command ends), or why not: decided first (it goes on), or Coffer not answering (it ends). */
async function withdraw(api: CofferClient, approval: Approval): Promise<{ ended: boolean; words: string }> {
  const { approvalId } = approval;
  try {
    await Promise.race([
      api.withdrawRequest(approvalId),
      new Promise((_, reject) => setTimeout(() => reject(new Error('Coffer did not answer in time')), WITHDRAW_TIMEOUT_MS).unref()),
    ]);
    return { ended: true, words: `withdrew request ${approvalId}; nothing was paid` };
  } catch (error) {
    if (error instanceof CofferApiError && error.code === 'approval_decided') {
      return { ended: false, words: `request ${approvalId} was decided first (${error.message}); its answer follows` };
    }
    return {
      ended: true,
      words: `request ${approvalId} could not be withdrawn (${(error as Error).message}): it still waits for the owner, who can deny it`,
    };
  }
}
