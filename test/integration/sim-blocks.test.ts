import { createSolanaRpc, generateKeyPairSigner, signature } from '@solana/kit';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCK_MS } from '../../server/chain/sim-blocks.js';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { manualClock, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';

/**
 * The embedded chain's slots and blocks, on a clock the test moves: a slot is 400 ms of it, every slot
 * makes a block, and the transactions that land within one slot are that block, in the order they
 * landed. A chain written when a slot was one transaction goes on past its last slot.
 */
let dataDir = '';
const started: TestCoffer[] = [];
afterEach(async () => {
  for (const t of started.splice(0)) await t.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(clock: ReturnType<typeof manualClock>) {
  const t = await startCoffer({ dataDir, clock });
  started.push(t);
  return t;
}

async function restart(t: TestCoffer, clock: ReturnType<typeof manualClock>, between: () => void = () => {}) {
  started.splice(started.indexOf(t), 1);
  await t.stop();
  between();
  return start(clock);
}

async function rpcCall(t: TestCoffer, method: string, params: unknown[]) {
  const response = await fetch(`${t.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/** An airdrop to a new wallet: a real transaction of the chain's faucet, landed now. */
async function airdrop(t: TestCoffer): Promise<string> {
  const rpc = createSolanaRpc(`${t.url}/rpc`);
  return rpc.requestAirdrop((await generateKeyPairSigner()).address, 1_000_000n as never).send();
}

const slotOf = async (t: TestCoffer, txSignature: string) =>
  (await createSolanaRpc(`${t.url}/rpc`)
    .getTransaction(signature(txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0 })
    .send())!.slot;

describe("the embedded chain's slots and blocks", () => {
  it('moves a slot every 400 ms of its clock, whatever lands: transactions within one slot are its block, in order', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    const origin = clock.now();
    const t = await start(clock);
    const rpc = createSolanaRpc(`${t.url}/rpc`);
    const slot = await rpc.getSlot().send();
    const height = await rpc.getBlockHeight().send();
    const [first, second] = [await airdrop(t), await airdrop(t)];
    expect(await rpc.getSlot().send()).toBe(slot);
    expect([await slotOf(t, first), await slotOf(t, second)]).toEqual([slot, slot]);
    // Its block is given once the slot is over, as a node gives one once it is confirmed.
    expect((await rpcCall(t, 'getBlock', [Number(slot), { transactionDetails: 'signatures' }])).error?.code).toBe(-32004);

    clock.advance(BLOCK_MS);
    expect(await rpc.getSlot().send()).toBe(slot + 1n);
    expect(await rpc.getBlockHeight().send()).toBe(height + 1n);
    const third = await airdrop(t);
    expect(await slotOf(t, third)).toBe(slot + 1n);
    clock.advance(3 * BLOCK_MS);
    const block = await rpc.getBlock(slot, { transactionDetails: 'signatures', rewards: false }).send();
    // The chain's own set-up landed in that slot too, before them.
    expect(block).toMatchObject({ blockHeight: height, parentSlot: slot - 1n });
    expect(block!.signatures!.slice(-2)).toEqual([first, second]);
    const next = await rpc.getBlock(slot + 1n, { transactionDetails: 'signatures', rewards: false }).send();
    expect(next).toMatchObject({ blockHeight: height + 1n, previousBlockhash: block!.blockhash, signatures: [third] });
    // Slots nothing landed in make empty blocks, chained as the others.
    const empty = await rpc.getBlock(slot + 2n, { transactionDetails: 'full', maxSupportedTransactionVersion: 0 }).send();
    expect(empty).toMatchObject({ blockHeight: height + 2n, previousBlockhash: next!.blockhash, transactions: [], rewards: [] });
    // An empty block's time is when its slot began (the chain's first slot began as it was made).
    expect(empty!.blockTime).toBe(BigInt(Math.floor((origin + 2 * BLOCK_MS) / 1000)));
    expect(await rpc.getBlocks(slot, slot + 10n).send()).toEqual([slot, slot + 1n, slot + 2n, slot + 3n]);

    // A clock set back does not take the slot back.
    clock.advance(-10 * BLOCK_MS);
    expect(await rpc.getSlot().send()).toBe(slot + 4n);
  });

  it('goes on past the last slot of a chain written when a slot was a transaction; blocks before are not kept whole', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    let t = await start(clock);
    const earlier = [await airdrop(t), await airdrop(t)];
    // As an earlier Coffer wrote its chain: a slot counted per transaction, from LiteSVM's first slot.
    const oldSlot = 447_552_000n;
    t = await restart(t, clock, () => {
      const db = openConnection(`${dataDir}/coffer.db`);
      db.prepare('UPDATE sim_transactions SET slot = ? + seq').run(oldSlot);
      db.prepare("DELETE FROM meta WHERE key = 'sim.slots'").run();
      db.close();
    });
    const rpc = createSolanaRpc(`${t.url}/rpc`);
    const lastOld = await slotOf(t, earlier[1]!);
    expect(lastOld).toBeGreaterThan(oldSlot);
    const first = await rpc.getFirstAvailableBlock().send();
    expect(first).toBe(lastOld + 1n);
    expect(await rpc.getSlot().send()).toBe(first);
    const after = await airdrop(t);
    expect(await slotOf(t, after)).toBe(first);
    expect((await rpcCall(t, 'getBlock', [Number(lastOld)])).error).toEqual({
      code: -32009,
      message: `Slot ${lastOld} was skipped, or missing in long-term storage`,
    });
    // Kept across a restart: the same first block, the slot where the clock has it.
    clock.advance(5 * BLOCK_MS);
    t = await restart(t, clock);
    expect(await createSolanaRpc(`${t.url}/rpc`).getFirstAvailableBlock().send()).toBe(first);
    expect(await createSolanaRpc(`${t.url}/rpc`).getSlot().send()).toBe(first + 5n);
    expect(await slotOf(t, earlier[0]!)).toBe(lastOld - 1n);
  });
});
