// How often a paywall searches the chain for a settlement no facilitator answered: a rate limit, in memory.

/**
 * How soon the chain is searched again for one payment's settlement: a search on Solana reads up to
 * 1,000 transactions. Within `payingFetch`'s retries (0.5, 1, 2 and 4 s apart).
 */
const SEARCH_AGAIN_MS = 1_000;

/**
 * How many searches a paywall runs within SEARCH_AGAIN_MS at most, all payments together: a buyer can
 * leave many settlements unanswered at little cost (payments verified together, spending one
 * balance: all but one fail at their send, naming nothing sent).
 */
export const SEARCHES_IN_A_SECOND = 2;

/**
 * When a paywall last searched the chain for each payment's settlement (by its nonce, in memory):
 * once in SEARCH_AGAIN_MS at most for one payment, and SEARCHES_IN_A_SECOND for all, so payments
 * presented again and again (their settlements made to fail unanswered by their own payer) cannot
 * make the seller's node read a payer's history for each.
 */
export class ChainSearches {
  private readonly last = new Map<string, number>();

  /** Whether a search for the payment under `nonce` may run now; if so, it counts as run. */
  mayRun(nonce: string, now: number): boolean {
    for (const [key, at] of this.last) if (now - at >= SEARCH_AGAIN_MS) this.last.delete(key);
    if (this.last.has(nonce) || this.last.size >= SEARCHES_IN_A_SECOND) return false;
    this.last.set(nonce, now);
    return true;
  }
}
