import { afterEach, describe, expect, it, vi } from 'vitest';
import { BLOCKHASH_REUSE_MS, RecentBlockhash, type Lifetime } from '../../../../../../server/chain/solana/cluster/recent-blockhash.js';

/** A cluster whose every read answers a new blockhash, valid 150 blocks past its height. */
function cluster() {
  const state = { reads: 0, height: 1_000n, now: 0, fail: false };
  const read = async (): Promise<Lifetime> => {
    state.reads += 1;
    if (state.fail) throw new Error('the RPC is down');
    return { blockhash: `hash-${state.reads}`, lastValidBlockHeight: state.height + 150n };
  };
  return { state, recent: new RecentBlockhash(read, () => state.now) };
}

describe('the cluster blockhash, read at most once a slot', () => {
  it('answers transactions signed together from one read, and reads again once a slot has passed', async () => {
    const { state, recent } = cluster();
    const together = await Promise.all(Array.from({ length: 8 }, () => recent.latest()));
    expect(state.reads).toBe(1);
    expect(new Set(together.map((lifetime) => lifetime.blockhash))).toEqual(new Set(['hash-1']));
    state.now = BLOCKHASH_REUSE_MS - 1;
    expect((await recent.latest()).blockhash).toBe('hash-1');
    state.now = BLOCKHASH_REUSE_MS;
    expect(await recent.latest()).toEqual({ blockhash: 'hash-2', lastValidBlockHeight: 1_150n });
    expect(state.reads).toBe(2);
  });

  it('reads again once a block height says the kept one has few blocks left, or the cluster refused a transaction', async () => {
    const { state, recent } = cluster();
    await recent.latest();
    // A slot later the cluster is a block or two further: the blockhash still has ~148 blocks.
    recent.heightSeen(1_002n);
    expect((await recent.latest()).blockhash).toBe('hash-1');
    // The cluster jumped 300 blocks (a warp): the kept blockhash can no longer land.
    state.height = 1_300n;
    recent.heightSeen(1_300n);
    expect(await recent.latest()).toEqual({ blockhash: 'hash-2', lastValidBlockHeight: 1_450n });
    recent.forget();
    expect((await recent.latest()).blockhash).toBe('hash-3');
  });

  it('keeps no read that was under way when the cluster refused a transaction, nor lets a replaced read that fails drop the newer one', async () => {
    let answer!: (lifetime: Lifetime) => void;
    let refuse!: (error: Error) => void;
    const slow = [
      new Promise<Lifetime>((resolve) => (answer = resolve)),
      new Promise<Lifetime>((_resolve, reject) => (refuse = reject)),
      Promise.resolve({ blockhash: 'hash-3', lastValidBlockHeight: 1_150n }),
    ];
    const recent = new RecentBlockhash(
      () => slow.shift()!,
      () => 0,
    );
    const first = recent.latest();
    recent.forget();
    answer({ blockhash: 'hash-1', lastValidBlockHeight: 1_150n });
    expect((await first).blockhash).toBe('hash-1');
    // Forgotten while it was read: the next transaction reads again.
    const second = recent.latest();
    recent.forget();
    const third = await recent.latest();
    expect(third.blockhash).toBe('hash-3');
    refuse(new Error('the RPC is down'));
    await expect(second).rejects.toThrow('the RPC is down');
    // The failed, replaced read did not drop the newer blockhash.
    expect(await recent.latest()).toBe(third);
  });

  it('keeps no failed read: the next transaction reads again', async () => {
    const { state, recent } = cluster();
    state.fail = true;
    await expect(recent.latest()).rejects.toThrow('the RPC is down');
    state.fail = false;
    expect((await recent.latest()).blockhash).toBe('hash-2');
  });

  describe('on the wall clock', () => {
    afterEach(() => vi.useRealTimers());
    const counted = () => {
      let reads = 0;
      const recent = new RecentBlockhash(async () => ({ blockhash: `hash-${++reads}`, lastValidBlockHeight: 150n }));
      return { recent, reads: () => reads };
    };

    it('reads again after the machine slept: a monotonic clock stands still in suspend, the blockhash does not', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const { recent, reads } = counted();
      await recent.latest();
      // A laptop closed for ten minutes: wall time moves, performance.now() (CLOCK_MONOTONIC) does not.
      vi.setSystemTime(Date.now() + 10 * 60_000);
      expect((await recent.latest()).blockhash).toBe('hash-2');
      expect(reads()).toBe(2);
    });

    it('reads again when the clock is set back, never trusting an age below zero', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const { recent, reads } = counted();
      await recent.latest();
      vi.setSystemTime(Date.now() - 60 * 60_000);
      expect((await recent.latest()).blockhash).toBe('hash-2');
      expect(reads()).toBe(2);
    });
  });
});
