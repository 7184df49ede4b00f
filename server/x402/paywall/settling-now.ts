/**
 * The x402 payments a paywall's facilitator is settling now, in this process: one payment per
 * claim at a time.
 */
import { refuse, type X402Refusal } from './x402-refusal.js';

/** The same payment presented again while its first presentation settles: its outcome is not known yet. */
export class BeingSettled extends Error {
  constructor() {
    super('this payment is being settled now, as presented before: try again for its answer');
  }
}

/**
 * The payments a paywall's facilitator is settling now, by their claim (claimOf), with the header
 * presented (this process's; the store keeps the settled ones).
 */
export class SettlingNow {
  private readonly headers = new Map<string, string>();
  /** The claim each payment settling now (by its digest) is settled under. */
  private readonly claims = new Map<string, string>();

  /**
   * Takes `claim` for the payment presented as `header`: null where taken (or where it claims
   * nothing: no payment of the route's terms), a refusal where another payment holds it. The same
   * header presented again while it settles (a buyer that gave up waiting) throws: its outcome is
   * not known yet (503); presented once more, it is answered as its settlement stands then (where
   * the first presentation was served, that was its one answer). The same payment (`digest`) under
   * another claim at once (a fresh nonce, or as v1) is refused: its settlement has begun (helper 182:
   * both reached the facilitator, which refused the second in its own words).
   */
  take(claim: string, header: string, digest: string | null): X402Refusal | null {
    if (claim === '') return null;
    const inFlight = this.headers.get(claim);
    if (inFlight === header) throw new BeingSettled();
    if (inFlight !== undefined) return refuse('receipt_already_used', 'another payment naming this nonce is being settled');
    const settlingUnder = digest === null ? undefined : this.claims.get(digest);
    if (settlingUnder !== undefined && settlingUnder !== claim) {
      return refuse('receipt_already_used', 'this payment was presented first under another nonce of this paywall');
    }
    this.headers.set(claim, header);
    if (digest !== null) this.claims.set(digest, claim);
    return null;
  }

  release(claim: string, digest: string | null): void {
    if (claim === '') return;
    this.headers.delete(claim);
    if (digest !== null && this.claims.get(digest) === claim) this.claims.delete(digest);
  }
}
