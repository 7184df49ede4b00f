import { createHash, randomBytes } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import type { Clock } from '../core/ports/keys.js';

/** Solana's target slot time: a cluster makes a block this often whether or not anything lands. */
export const BLOCK_MS = 400;
/** How many blocks a blockhash stays usable after it became the latest, as on Solana's clusters. */
export const BLOCKHASH_LIFETIME = 150n;

/** Where the block count was last set on purpose: the height then, and when (milliseconds). */
const ANCHOR_META = 'sim.block_anchor';
/** The height the chain kept before blocks followed the clock; a chain that has one starts from it. */
const LEGACY_HEIGHT_META = 'sim.block_height';
/** The blockhashes still usable, with the last height each can land at. */
const BLOCKHASHES_META = 'sim.blockhashes';
/** What a block's blockhash is derived from with its height: random, the chain's own. */
const SEED_META = 'sim.blockhash_seed';
/** How far slots run ahead of block height (slot = height + this), and the first slot whose block is kept whole. */
const SLOTS_META = 'sim.slots';
const FIRST_HEIGHT = 1000n;

interface BlockMetaStore {
  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;
}

/**
 * The embedded chain's blocks and blockhashes, kept as a cluster keeps them: block height moves with
 * the clock (a block every 400 ms, also while Coffer is not running), each block has its blockhash, and
 * a transaction lands only while its blockhash is at most 150 blocks old. So a transaction signed and
 * never sent cannot land a minute later, after a restart or ever; together with the persisted log of
 * signatures (a signature lands once) nothing read back from /rpc can move money again.
 *
 * Slots follow the blocks: every slot makes a block (none is skipped), so a slot is its block's height
 * plus a fixed offset, and the transactions that land within one 400 ms slot are that slot's block.
 * (A chain written before slots followed the clock counted one slot a transaction: its offset puts
 * the first clock-driven slot past all of those, and blocks before it are not kept whole.)
 *
 * Blockhashes are derived from the height and a random seed of the chain's own, not LiteSVM's: LiteSVM
 * derives each from the one before, starting from the same genesis, so a restarted chain would issue
 * again the blockhashes of its first run; and getBlock can name any block's, and its parent's.
 */
export class SimBlocks {
  private anchor: { height: bigint; at: number };
  private readonly usable: Map<string, bigint>;
  private latestIssued: { blockhash: string; height: bigint } | null = null;
  private highest: bigint;
  private readonly seed: Buffer;
  /** slot = height + offset; blocks from `firstSlot` on are kept whole. */
  private readonly slots: { offset: bigint; firstSlot: bigint };

  constructor(
    private readonly store: BlockMetaStore,
    private readonly clock: Clock,
    /** The highest slot a transaction in the log landed in (a chain that has one continues past it). */
    lastLandedSlot: bigint | null,
  ) {
    const anchor = store.getMeta(ANCHOR_META);
    if (anchor === null) {
      this.anchor = { height: BigInt(store.getMeta(LEGACY_HEIGHT_META) ?? FIRST_HEIGHT), at: clock.now() };
      this.saveAnchor();
    } else {
      const { height, at } = JSON.parse(anchor) as { height: string; at: number };
      this.anchor = { height: BigInt(height), at };
    }
    this.highest = this.anchor.height;
    const saved = JSON.parse(store.getMeta(BLOCKHASHES_META) ?? '[]') as [string, string][];
    this.usable = new Map(saved.map(([blockhash, lastValid]) => [blockhash, BigInt(lastValid)]));
    let seed = store.getMeta(SEED_META);
    if (seed === null) store.setMeta(SEED_META, (seed = randomBytes(32).toString('base64')));
    this.seed = Buffer.from(seed, 'base64');
    const slots = store.getMeta(SLOTS_META);
    if (slots === null) {
      const height = this.height;
      const offset = lastLandedSlot === null || lastLandedSlot < height ? 0n : lastLandedSlot + 1n - height;
      this.slots = { offset, firstSlot: height + offset };
      store.setMeta(SLOTS_META, JSON.stringify({ offset: offset.toString(), firstSlot: this.slots.firstSlot.toString() }));
    } else {
      const { offset, firstSlot } = JSON.parse(slots) as { offset: string; firstSlot: string };
      this.slots = { offset: BigInt(offset), firstSlot: BigInt(firstSlot) };
    }
  }

  /** The block height now; it never goes back, even when the system clock does. */
  get height(): bigint {
    const elapsed = Math.max(0, Math.floor((this.clock.now() - this.anchor.at) / BLOCK_MS));
    const height = this.anchor.height + BigInt(elapsed);
    if (height > this.highest) this.highest = height;
    return this.highest;
  }

  /** The first slot whose block is kept whole. */
  get firstSlot(): bigint {
    return this.slots.firstSlot;
  }

  /** The slot now: the block being made, which the transactions landing now join. */
  get slot(): bigint {
    return this.height + this.slots.offset;
  }

  /** The blockhash a new transaction should use, and the last block height it can land at. */
  latest(): { blockhash: string; lastValidBlockHeight: bigint } {
    const height = this.height;
    if (this.latestIssued === null || this.latestIssued.height < height) this.issue(height);
    const { blockhash } = this.latestIssued!;
    return { blockhash, lastValidBlockHeight: this.usable.get(blockhash)! };
  }

  /** Whether a transaction with this blockhash can still land. */
  isUsable(blockhash: string): boolean {
    const lastValid = this.usable.get(blockhash);
    return lastValid !== undefined && lastValid >= this.height;
  }

  /**
   * The block made in a slot, once the slot is over (a block still being made is not given, as a
   * node gives none before it is confirmed): its height, its blockhash and its parent's, and its time
   * (when it began, milliseconds). `not_yet` for the slot now and later ones; `not_kept` before the first
   * block this chain kept whole. A blockhash read here is as usable as one asked for while it was
   * the latest, for its 150 blocks.
   */
  block(slot: bigint): { height: bigint; blockhash: string; previousBlockhash: string; blockTime: number } | 'not_yet' | 'not_kept' {
    if (slot >= this.slot) return 'not_yet';
    if (slot < this.slots.firstSlot) return 'not_kept';
    const height = slot - this.slots.offset;
    const blockhash = this.blockhashAt(height);
    const lastValid = height + BLOCKHASH_LIFETIME;
    if (lastValid >= this.height && !this.usable.has(blockhash)) {
      this.usable.set(blockhash, lastValid);
      this.saveUsable();
    }
    return { height, blockhash, previousBlockhash: this.blockhashAt(height - 1n), blockTime: this.startOf(slot) };
  }

  /** When a slot began (milliseconds): its block's time, and that of every transaction in it. */
  startOf(slot: bigint): number {
    return this.anchor.at + Number(slot - this.slots.offset - this.anchor.height) * BLOCK_MS;
  }

  /** Moves block height forward at once (tests play a cluster's time passing): older blockhashes age by `count` blocks. */
  advance(count: number): void {
    this.anchor = { height: this.height + BigInt(count), at: this.clock.now() };
    this.highest = this.anchor.height;
    this.saveAnchor();
  }

  private blockhashAt(height: bigint): string {
    const at = Buffer.alloc(8);
    at.writeBigUInt64LE(height);
    return getBase58Decoder().decode(createHash('sha256').update(this.seed).update(at).digest());
  }

  private issue(height: bigint): void {
    const blockhash = this.blockhashAt(height);
    for (const [known, lastValid] of this.usable) if (lastValid < height) this.usable.delete(known);
    this.usable.set(blockhash, height + BLOCKHASH_LIFETIME);
    this.latestIssued = { blockhash, height };
    this.saveUsable();
  }

  private saveUsable(): void {
    this.store.setMeta(BLOCKHASHES_META, JSON.stringify([...this.usable].map(([known, lastValid]) => [known, lastValid.toString()])));
  }

  private saveAnchor(): void {
    this.store.setMeta(ANCHOR_META, JSON.stringify({ height: this.anchor.height.toString(), at: this.anchor.at }));
  }
}
