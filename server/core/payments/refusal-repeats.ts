/**
 * Which refusals an agent had written for it moments ago, so a retry loop is written once: any of
 * its last 32 written within 10 s, not only the last (an agent looping over two refused payments
 * would otherwise write every try). Held in memory only; what it forgets is at worst written twice.
 */

/** The same refusal again within this time is not written again (an agent retrying in a loop). */
export const REFUSAL_REPEAT_MS = 10_000;

/** The refusals remembered per agent to tell a repeat (a loop over more is written more, as it varies). */
const REFUSALS_REMEMBERED = 32;

export class RefusalRepeats {
  /** Per agent (`owner|agentId`): when each refusal (by what makes two the same) was written. */
  readonly #written = new Map<string, Map<string, number>>();
  #sweptAt = 0;

  /**
   * True when this agent's refusal is one written for it within the last 10 s; otherwise false, and
   * it is remembered (its oldest dropped past 32).
   */
  repeats(agent: string, what: string, now: number): boolean {
    this.#sweep(now);
    const written = this.#written.get(agent) ?? new Map<string, number>();
    for (const [seen, at] of written) if (now - at >= REFUSAL_REPEAT_MS) written.delete(seen);
    if (written.has(what)) return true;
    written.set(what, now);
    // Oldest first (insertion order): a map this full drops its oldest.
    if (written.size > REFUSALS_REMEMBERED) written.delete(written.keys().next().value!);
    this.#written.set(agent, written);
    return false;
  }

  /** The agent paid: its next refusal is written whatever it is. */
  forget(agent: string): void {
    this.#written.delete(agent);
  }

  /** How many agents have refusals remembered. */
  get agents(): number {
    return this.#written.size;
  }

  /**
   * At most once per 10 s, every agent whose refusals are all older than that is forgotten: an agent
   * that stops paying altogether (archived, or its process gone) holds no memory for good.
   */
  #sweep(now: number): void {
    if (now - this.#sweptAt < REFUSAL_REPEAT_MS) return;
    this.#sweptAt = now;
    for (const [agent, written] of this.#written) {
      if ([...written.values()].every((at) => now - at >= REFUSAL_REPEAT_MS)) this.#written.delete(agent);
    }
  }
}
