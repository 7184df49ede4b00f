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
import { withdrawHeld, type Withdrawal } from '../client/held-payment.js';
import { localTime } from './local-time.js';
import { heldPaymentWords, heldReason } from '../wire/held-words.js';
import { shellCommand } from '../boot/cli-invocation.js';

type Out = NodeJS.WritableStream;

/** The exit status of a command a signal ended, as a shell reports it (128 + the signal's number). */
const SIGNAL_STATUS = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type Signal = keyof typeof SIGNAL_STATUS;

/** A held request's wait, listening for an interrupt. */
export interface HeldWait {
  /**
   * The wait failed: where an interrupt withdrew the request, never resolves (the process ends with
   * the interrupt's words and status); decided first, says so; otherwise at once.
   */
  failed(): Promise<void>;
  /** The wait was answered: where an interrupt came meanwhile, says it was decided first, before the answer. */
  answered(): Promise<void>;
  /** The command is done with the wait: stop listening. */
  stop(): void;
}

/** What a held payment waits for, in a line: why, which request, until when, and where the owner decides. */
export function heldWords(approval: Approval): string {
  const what = heldPaymentWords(approval);
  return (
    `Waiting for the owner's yes${what === null ? '' : ` to ${what}`} (${heldReason(approval)}): request ${approval.approvalId}, until ${localTime(approval.expiresAt)}. ` +
    `The owner decides with ${shellCommand(['approve', approval.approvalId])} (or ${shellCommand(['deny', approval.approvalId])}), or in the dashboard's Approvals page (and the tray's menu, where Coffer runs as the desktop app).`
  );
}

/**
 * A command's call that the policy may hold for the owner's yes (`coffer pay`, `coffer fetch`):
 * `call` is handed what to do once held, which says so on `err` and withdraws the request on an
 * interrupt meanwhile. An interrupt that withdrew it ends the process with its own words; one that
 * came as the owner decided is said before the answer (a payment made is printed, never dropped).
 */
export async function withdrawnIfInterrupted<T>(
  api: CofferClient,
  err: Out,
  call: (onHeld: (approval: Approval) => void) => Promise<T>,
  /**
   * How to pick the request up where the process is killed outright (no interrupt withdraws it then),
   * in words: the command, and until when it buys what it paid for.
   */
  pickUp?: (approval: Approval) => string,
): Promise<T> {
  // Set once held (a holder: the callback sets it, which narrowing cannot follow).
  const held: { wait: HeldWait | null } = { wait: null };
  const onHeld = (approval: Approval) => {
    // Listened for before it is said: a Ctrl-C at the words (a person, or a script waiting for them)
    // withdraws the request, where it would otherwise end the process and leave the request waiting.
    held.wait = withdrawnOnInterrupt(api, approval, err);
    err.write(`${heldWords(approval)}\n`);
    if (pickUp !== undefined) err.write(`Stopped outright meanwhile, ${pickUp(approval)}.\n`);
  };
  try {
    const answer = await call(onHeld);
    await held.wait?.answered();
    return answer;
  } catch (error) {
    await held.wait?.failed();
    throw error;
  } finally {
    held.wait?.stop();
  }
}

/**
 * While the request waits: on SIGINT, SIGTERM or SIGHUP, withdraws it. The first signal asks; any
 * later one is taken and ignored (a Ctrl-C under npm arrives twice: from the terminal and forwarded),
 * so the withdrawal is never cut short. Coffer not answering it, the process ends at once, saying so.
 */
export function withdrawnOnInterrupt(api: CofferClient, approval: Approval, err: Out): HeldWait {
  const signals = Object.keys(SIGNAL_STATUS) as Signal[];
  let asked: { signal: Signal; withdrawal: Promise<Withdrawal> } | null = null;
  const say = (words: string) => err.write(`\ncoffer: interrupted: ${words}\n`);
  const handlers = Object.fromEntries(
    signals.map((signal) => [
      signal,
      () => {
        if (asked !== null) return;
        const withdrawal = withdrawHeld(api, approval).then((outcome) => {
          // The wait would go on asking a Coffer that does not answer: the interrupt ends it.
          if (outcome.kind === 'unanswered') {
            say(outcome.words);
            process.exit(SIGNAL_STATUS[signal]);
          }
          return outcome;
        });
        asked = { signal, withdrawal };
      },
    ]),
  ) as Record<Signal, () => void>;
  signals.forEach((signal) => process.on(signal, handlers[signal]));
  return {
    failed: async () => {
      if (asked === null) return;
      const { signal, withdrawal } = asked;
      const outcome = await withdrawal;
      say(outcome.words);
      if (outcome.kind === 'withdrawn') await exitWith(SIGNAL_STATUS[signal]);
    },
    answered: async () => {
      if (asked === null) return;
      const outcome = await asked.withdrawal;
      if (outcome.kind === 'decided') say(outcome.words);
    },
    stop: () => signals.forEach((signal) => process.removeListener(signal, handlers[signal])),
  };
}

/** Ends the process; the promise never resolves. */
const exitWith = (status: number): Promise<never> => {
  process.exit(status);
};
