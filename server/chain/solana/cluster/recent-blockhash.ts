/** A blockhash with the last block height a transaction signed with it can land at. */
export interface Lifetime {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

/**
 * How long a blockhash read from the cluster is used again: about one slot (400 ms), the time a
 * fresh read would itself go on answering a blockhash that old. A transaction signed with it keeps
 * nearly all of its ~150 blocks (about a minute) to land.
 */
export const BLOCKHASH_REUSE_MS = 400;

/**
 * Fewer blocks than this left to a kept blockhash (a block height read meanwhile says so) and it is
 * read again: on a cluster that keeps time a blockhash a slot old has ~149 left, so only a cluster
 * that jumped ahead (a test cluster's warp, a node that was far behind) gets here.
 */
const MIN_BLOCKS_LEFT = 100n;

/**
 * The cluster's latest blockhash for each transaction Coffer signs, read at most once a slot: payments
 * made together (eight at once, or an x402 purchase with its balance read) wait for one read of the
 * cluster instead of one each, and a public RPC's rate limit is spent on what matters. Each
 * transaction still carries a memo of its own (its payment id, x402's random nonce, or the seller's
 * memo, which the reservation refuses to pay twice: noncePaidRefusal, judged in server/core/payments/judge.ts), so two signed
 * with the same blockhash are never the same transaction. The pair stays exact: the last valid height is
 * the one the cluster gave for that blockhash, and it is what decides that an unseen transaction can
 * no longer land.
 */
export class RecentBlockhash {
  private kept: { lifetime: Promise<Lifetime>; readAt: number; value: Lifetime | null } | null = null;

  constructor(
    private readonly read: () => Promise<Lifetime>,
    /**
     * Wall time, not performance.now(): a monotonic clock stands still while the machine sleeps, and a
     * blockhash kept just before a laptop was closed would sign the first payments after it wakes
     * with a blockhash long expired. A clock set back gives an age below zero: read again.
     */
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A blockhash read less than BLOCKHASH_REUSE_MS ago (or being read now), else a fresh read. */
  latest(): Promise<Lifetime> {
    const now = this.now();
    const kept = this.kept;
    if (kept !== null && now >= kept.readAt && now - kept.readAt < BLOCKHASH_REUSE_MS) return kept.lifetime;
    const entry: NonNullable<typeof this.kept> = { lifetime: this.read(), readAt: now, value: null };
    this.kept = entry;
    entry.lifetime.then(
      (value) => (entry.value = value),
      // A failed read is nobody's to keep: the next payment reads again.
      () => this.kept === entry && (this.kept = null),
    );
    return entry.lifetime;
  }

  /** A block height the cluster answered: a kept blockhash with too few blocks left past it is dropped. */
  heightSeen(height: bigint): void {
    const value = this.kept?.value;
    if (value != null && height + MIN_BLOCKS_LEFT > value.lastValidBlockHeight) this.kept = null;
  }

  /** The cluster refused or lost a transaction: the next one is signed with a fresh read. */
  forget(): void {
    this.kept = null;
  }
}
