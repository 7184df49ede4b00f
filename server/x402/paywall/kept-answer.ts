/**
 * What a paywall asks another party for each 402 (its facilitator's `/supported`, the Base token's
 * name), kept a while: an unpaid request, which anyone may send, never makes it ask each time, nor
 * waits long for a party that takes its time.
 */

/** How long a usable answer is kept before it is asked again (the official v1 middleware asks each time). */
export const KEPT_MS = 60_000;
/** How long no usable answer (none came, or it said nothing usable) is kept: a party still starting up is asked again soon. */
export const UNANSWERED_KEPT_MS = 1_000;
/** How soon after a refusal made it ask again another refusal may. */
const ASKED_AGAIN_MS = 5_000;
/**
 * How long an unpaid request waits for the answer to one question: a party that takes its time (the
 * official facilitator client gives up after 90 s, a node's reads after 15 s and a retry) must not
 * hold every 402 that long. Past it, the 402 goes out with what was said before, or without what
 * the answer adds; the answer, once it comes, is kept.
 */
export const ANSWER_WAIT_MS = 2_000;

/** A question asked now and then: `ask` answers null where nothing usable came (it says why itself). */
export function keptAnswer<T>(ask: () => Promise<T | null>) {
  let answer: Promise<T | null> | null = null;
  let askedAt = 0;
  let keptUntil = 0;
  let refusedAt = 0;
  /** What the latest question that came back said (null where nothing usable), while a newer one is out. */
  let lastSaid: T | null = null;
  /** Whether the latest question is still out. */
  let out = false;
  return {
    /**
     * The answer, or null where none is usable now. A question still out after ANSWER_WAIT_MS from
     * when it was asked is no longer waited for: what was said before stands meanwhile. It is not
     * asked again while it is out (its client's timeout ends it), unless KEPT_MS pass.
     */
    current(): Promise<T | null> {
      const now = Date.now();
      if (now > keptUntil) answer = null;
      if (answer === null) {
        askedAt = now;
        keptUntil = now + KEPT_MS;
        out = true;
        const asking = ask();
        answer = asking;
        void asking.then((value) => {
          if (answer !== asking) return;
          out = false;
          lastSaid = value;
          if (value === null) keptUntil = Date.now() + UNANSWERED_KEPT_MS;
        });
      }
      if (out && now >= askedAt + ANSWER_WAIT_MS) return Promise.resolve(lastSaid);
      let waited: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<T | null>((resolve) => {
        waited = setTimeout(() => resolve(lastSaid), Math.max(askedAt + ANSWER_WAIT_MS - now, 0));
      });
      return Promise.race([answer, late]).finally(() => clearTimeout(waited));
    },

    /**
     * After a refusal the answer may be stale: asked again, unless a refusal made it ask a moment
     * ago, or a question is still out (a party that hangs is not asked again for each refusal).
     */
    refused(): void {
      const now = Date.now();
      if (out || now - refusedAt <= ASKED_AGAIN_MS) return;
      refusedAt = now;
      answer = null;
    },
  };
}

/** A log that says each trouble once, until something else is said (`null`: all is well again). */
export function sayingOnce(log: (message: string) => void): (line: string | null) => void {
  let said: string | null = null;
  return (line) => {
    if (line !== null && line !== said) log(line);
    said = line;
  };
}
