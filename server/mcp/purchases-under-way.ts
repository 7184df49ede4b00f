import type { Approval } from '../wire/answers/approvals.js';

/** A fetch_paid purchase under way: its work, and its hold, told if its payment waits for the owner. */
export interface UnderWay {
  work: Promise<object>;
  held: Promise<Approval>;
}

/**
 * The fetch_paid purchases of one `coffer mcp` process that are under way (asked, not answered yet),
 * by their request key (OwnerDecisions.requestKey). A host that gave up waiting for a call (its own
 * timeout, while the payment waits for the chain or the seller is slow) asks again; that call joins
 * the purchase under way rather than paying a second time, and both are answered by it. Once it is
 * answered, the same arguments are a purchase of their own.
 */
export class PurchasesUnderWay {
  private readonly underWay = new Map<string, UnderWay>();

  of(key: string): UnderWay | undefined {
    return this.underWay.get(key);
  }

  start(key: string, purchase: UnderWay): void {
    this.underWay.set(key, purchase);
    const done = () => {
      if (this.underWay.get(key) === purchase) this.underWay.delete(key);
    };
    purchase.work.then(done, done);
  }
}
