import { randomBytes } from 'node:crypto';
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
const FIRST_HEIGHT = 1000n;

interface BlockMetaStore {
  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;
}

/**
 * The embedded chain's blocks and blockhashes, kept as a cluster keeps them: block height moves with
 * the clock (a block every 400 ms, also while Coffer is not running), each block in which a blockhash
 * is asked for issues a new one, and a transaction lands only while its blockhash is at most 150
 * blocks old. So a transaction signed and never sent cannot land a minute later, after a restart or
 * ever; together with the persisted log of signatures (a signature lands once) nothing read back from
 * /rpc can move money again.
 *
 * Blockhashes are random, not LiteSVM's: LiteSVM derives each from the one before, starting from the
 * same genesis, so a restarted chain would issue again the blockhashes of its first run.
 */
export class SimBlocks {
  private anchor: { height: bigint; at: number };
  private readonly usable: Map<string, bigint>;
  private latestIssued: { blockhash: string; height: bigint } | null = null;
  private highest: bigint;

  constructor(
    private readonly store: BlockMetaStore,
    private readonly clock: Clock,
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
  }

  /** The block height now; it never goes back, even when the system clock does. */
  get height(): bigint {
    const elapsed = Math.max(0, Math.floor((this.clock.now() - this.anchor.at) / BLOCK_MS));
    const height = this.anchor.height + BigInt(elapsed);
    if (height > this.highest) this.highest = height;
    return this.highest;
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

  /** Moves block height forward at once (tests play a cluster's time passing): older blockhashes age by `count` blocks. */
  advance(count: number): void {
    this.anchor = { height: this.height + BigInt(count), at: this.clock.now() };
    this.highest = this.anchor.height;
    this.saveAnchor();
  }

  private issue(height: bigint): void {
    const blockhash = getBase58Decoder().decode(randomBytes(32));
    for (const [known, lastValid] of this.usable) if (lastValid < height) this.usable.delete(known);
    this.usable.set(blockhash, height + BLOCKHASH_LIFETIME);
    this.latestIssued = { blockhash, height };
    this.store.setMeta(BLOCKHASHES_META, JSON.stringify([...this.usable].map(([known, lastValid]) => [known, lastValid.toString()])));
  }

  private saveAnchor(): void {
    this.store.setMeta(ANCHOR_META, JSON.stringify({ height: this.anchor.height.toString(), at: this.anchor.at }));
  }
}
