import type { Approval } from '../wire/answers/approvals.js';

/** A fetch_paid purchase under way: its work, its hold (told if its payment waits for the owner), and the request it picks up. */
export interface UnderWay {
  work: Promise<object>;
  held: Promise<Approval>;
  /** The `approvalId` its call named: only a call naming the same one joins it. */
  approvalId: string | undefined;
}

/**
 * How long the answer of a purchase whose call its host gave up on (cancelled) is kept for the same
 * call asked again: a host asks again at once, or after its own timeout at most.
 */
const KEEP_UNTAKEN_MS = 5 * 60_000;

/**
 * The fetch_paid purchases of one `coffer mcp` process that are under way (asked, not answered yet),
 * by their request key (OwnerDecisions.requestKey). A host that gave up waiting for a call (its own
 * timeout, while the payment waits for the chain or the seller is slow) asks again; that call joins
 * the purchase under way rather than paying a second time, and both are answered by it. Once it is
 * answered, the same arguments are a purchase of their own; where the first call's host had given up
 * on it (cancelled it) before its answer, the answer is kept a while for that call asked again, and
 * handed out once.
 */
export class PurchasesUnderWay {
  private readonly underWay = new Map<string, UnderWay>();

  /** The purchase a call with these arguments and this `approvalId` joins; taken for good once answered. */
  join(key: string, approvalId: string | undefined): UnderWay | undefined {
    const purchase = this.underWay.get(key);
    if (purchase === undefined || purchase.approvalId !== approvalId) return undefined;
    void purchase.work.then(
      () => this.forget(key, purchase),
      () => this.forget(key, purchase),
    );
    return purchase;
  }

  start(key: string, purchase: UnderWay, cancelled: AbortSignal): void {
    this.underWay.set(key, purchase);
    const done = () => {
      if (!cancelled.aborted) return this.forget(key, purchase);
      setTimeout(() => this.forget(key, purchase), KEEP_UNTAKEN_MS).unref();
    };
    purchase.work.then(done, done);
  }

  private forget(key: string, purchase: UnderWay): void {
    if (this.underWay.get(key) === purchase) this.underWay.delete(key);
  }
}
