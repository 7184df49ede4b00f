import { createHash, randomBytes } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import type { Clock } from '../../../core/ports/keys.js';

/** Solana's target slot time: a cluster makes a block this often whether or not anything lands. */
export const BLOCK_MS = 400;
/** How many blocks a blockhash stays usable after it became the latest, as on Solana's clusters. */
export const BLOCKHASH_LIFETIME = 150n;

/** Where the block count was last set on purpose: the height then, and when (milliseconds). */
const ANCHOR_META = 'sim.block_anchor';
/** The height the chain kept before blocks followed the clock; a chain that has one starts from it. */
const LEGACY_HEIGHT_META = 'sim.block_height';
/**
 * The random blockhashes a chain handed out before its blockhashes were derived, with the last height
 * each can land at: still good for their lifetime, never written again.
 */
const LEGACY_BLOCKHASHES_META = 'sim.blockhashes';
/** What a block's blockhash is derived from with its height: random, the chain's own. */
const SEED_META = 'sim.blockhash_seed';
/** How far slots run ahead of block height (slot = height + this), and the first slot whose block is kept whole. */
const SLOTS_META = 'sim.slots';
/** The highest block height the chain reached (the block then being made): it never goes below it. */
const HIGH_META = 'sim.block_high';
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
  /** Random blockhashes of a chain made before they were derived (LEGACY_BLOCKHASHES_META), with their last valid height. */
  private readonly legacy: Map<string, bigint>;
  private highest: bigint;
  private savedHighest: bigint;
  private readonly seed: Buffer;
  /** slot = height + offset; blocks from `firstSlot` on are kept whole. */
  private readonly slots: { offset: bigint; firstSlot: bigint };
  /** The derived blockhashes of the blocks still within their lifetime, by blockhash (filled as asked). */
  private readonly recent = new Map<string, bigint>();
  private recentUpTo = -1n;
  private latestBlockhash = '';

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
    this.savedHighest = BigInt(store.getMeta(HIGH_META) ?? '0');
    const legacy = JSON.parse(store.getMeta(LEGACY_BLOCKHASHES_META) ?? '[]') as [string, string][];
    this.legacy = new Map(legacy.map(([blockhash, lastValid]) => [blockhash, BigInt(lastValid)]));
    let seed = store.getMeta(SEED_META);
    if (seed === null) store.setMeta(SEED_META, (seed = randomBytes(32).toString('base64')));
    this.seed = Buffer.from(seed, 'base64');
    const slots = store.getMeta(SLOTS_META);
    if (slots === null) {
      // The block made last is the first kept, and it comes after every slot a transaction took.
      const made = this.making - 1n;
      const offset = lastLandedSlot === null || lastLandedSlot < made ? 0n : lastLandedSlot + 1n - made;
      this.slots = { offset, firstSlot: made + offset };
      store.setMeta(SLOTS_META, JSON.stringify({ offset: offset.toString(), firstSlot: this.slots.firstSlot.toString() }));
    } else {
      const { offset, firstSlot } = JSON.parse(slots) as { offset: string; firstSlot: string };
      this.slots = { offset: BigInt(offset), firstSlot: BigInt(firstSlot) };
    }
    // Never back, across a restart either: a clock set back since the chain last ran would take the
    // height below blocks already made and told of, where blockhashes already expired (and clients
    // told so) would be good again. The height reached is kept as it moves; a chain kept before that
    // was, goes on past its last transaction and the last blockhash it gave.
    const lastIssued = Math.max(...[...this.legacy.values()].map(Number), 0);
    const floor = [
      this.savedHighest,
      lastLandedSlot === null ? 0n : lastLandedSlot - this.slots.offset,
      BigInt(lastIssued) - BLOCKHASH_LIFETIME + 1n,
    ].reduce((a, b) => (a > b ? a : b));
    if (floor > this.making) {
      this.anchor = { height: floor, at: clock.now() };
      this.highest = floor;
      this.saveAnchor();
    }
  }

  /**
   * The height of the block being made now, which the transactions landing now join. It follows the
   * clock and never goes back, even when the system clock does.
   */
  private get making(): bigint {
    const elapsed = Math.max(0, Math.floor((this.clock.now() - this.anchor.at) / BLOCK_MS));
    const height = this.anchor.height + BigInt(elapsed);
    if (height > this.highest) this.highest = height;
    // Kept as it moves (a write a block at most, when the chain is asked about).
    if (this.highest > this.savedHighest) {
      this.savedHighest = this.highest;
      this.store.setMeta(HIGH_META, this.highest.toString());
    }
    return this.highest;
  }

  /** The block height: the last block made, as a node answers at `confirmed` (its block can be read). */
  get height(): bigint {
    return this.making - 1n;
  }

  /** The slot of the last block made (getSlot). */
  get slot(): bigint {
    return this.height + this.slots.offset;
  }

  /** The slot the transactions landing now join: the block being made. */
  get landingSlot(): bigint {
    return this.making + this.slots.offset;
  }

  /** The first slot whose block is kept whole. */
  get firstSlot(): bigint {
    return this.slots.firstSlot;
  }

  /** The blockhash a new transaction should use (the last block made's), and the last block height it can land at. */
  latest(): { blockhash: string; lastValidBlockHeight: bigint } {
    const making = this.making;
    return { blockhash: this.recentBlockhashes(making).latest, lastValidBlockHeight: making - 1n + BLOCKHASH_LIFETIME };
  }

  /**
   * Whether a transaction with this blockhash can still land: the blockhash of a block made at most
   * 150 blocks before the one it would land in (whether handed out by `latest` or read from a block).
   */
  isUsable(blockhash: string): boolean {
    const making = this.making;
    const lastValid = this.recentBlockhashes(making).lastValid.get(blockhash) ?? this.legacy.get(blockhash);
    return lastValid !== undefined && lastValid >= making;
  }

  /**
   * The block made in a slot, once the slot is over (a block still being made is not given, as a
   * node gives none before it is confirmed): its height, its blockhash and its parent's, and its time
   * (when its slot began, milliseconds). `not_yet` for the slot being made and later ones;
   * `not_kept` before the first block this chain kept whole.
   */
  block(slot: bigint): { height: bigint; blockhash: string; previousBlockhash: string; blockTime: number } | 'not_yet' | 'not_kept' {
    if (slot >= this.landingSlot) return 'not_yet';
    if (slot < this.slots.firstSlot) return 'not_kept';
    const height = slot - this.slots.offset;
    return { height, blockhash: this.blockhashAt(height), previousBlockhash: this.blockhashAt(height - 1n), blockTime: this.startOf(slot) };
  }

  /** When a slot began (milliseconds): its block's time, and that of every transaction in it. */
  startOf(slot: bigint): number {
    return this.anchor.at + Number(slot - this.slots.offset - this.anchor.height) * BLOCK_MS;
  }

  /** Moves block height forward at once (tests play a cluster's time passing): older blockhashes age by `count` blocks. */
  advance(count: number): void {
    this.anchor = { height: this.making + BigInt(count), at: this.clock.now() };
    this.highest = this.anchor.height;
    this.saveAnchor();
  }

  /**
   * The blockhashes of the blocks made within a lifetime of `making`, each with its last valid height,
   * and the last one's: derived as the blocks are made (one a block), never stored.
   */
  private recentBlockhashes(making: bigint): { lastValid: Map<string, bigint>; latest: string } {
    if (making - 1n > this.recentUpTo) {
      const from = making - BLOCKHASH_LIFETIME;
      for (let height = this.recentUpTo < from ? from : this.recentUpTo + 1n; height < making; height++) {
        this.recent.set(this.blockhashAt(height), height + BLOCKHASH_LIFETIME);
      }
      this.recentUpTo = making - 1n;
      this.latestBlockhash = this.blockhashAt(this.recentUpTo);
      for (const [known, lastValid] of this.recent) if (lastValid < making) this.recent.delete(known);
    }
    return { lastValid: this.recent, latest: this.latestBlockhash };
  }

  private blockhashAt(height: bigint): string {
    const at = Buffer.alloc(8);
    at.writeBigUInt64LE(height);
    return getBase58Decoder().decode(createHash('sha256').update(this.seed).update(at).digest());
  }

  private saveAnchor(): void {
    this.store.setMeta(ANCHOR_META, JSON.stringify({ height: this.anchor.height.toString(), at: this.anchor.at }));
  }
}
