import {
  appendTransactionMessageInstructions,
  getBase58Decoder,
  blockhash,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  signature,
  type Address,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCK_MS, BLOCKHASH_LIFETIME } from '../../server/chain/solana/sim/blocks.js';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { manualClock, simLedgerOf, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';

/**
 * The embedded chain's blocks, on a clock the test moves. On Solana a blockhash is usable for 150
 * blocks (about a minute): a transaction signed and held longer can never land. The embedded chain
 * keeps that rule on its own clock (a block every 400 ms, also while Coffer is stopped), with and
 * without preflight, and across a restart. Its slots follow the same clock: every slot makes a block,
 * and the transactions that land within one slot are that block, in the order they landed; a chain
 * written when a slot was one transaction goes on past its last slot.
 */
const LIFETIME_MS = Number(BLOCKHASH_LIFETIME) * BLOCK_MS;
/** Enough to open the receiving account (rent-exempt). */
const SENT = 10_000_000n;

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

async function stop(t: TestCoffer) {
  started.splice(started.indexOf(t), 1);
  await t.stop();
}

/** A SOL transfer from an outside wallet, signed with the chain's latest blockhash and held unsent. */
async function heldTransfer(t: TestCoffer) {
  const rpc = createSolanaRpc(`${t.url}/rpc`);
  const from = await generateKeyPairSigner();
  const to = (await generateKeyPairSigner()).address;
  simLedgerOf(t.coffer).airdrop(from.address, 10_000_000_000n);
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  const transaction = await pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(from, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash({ ...lifetime, blockhash: blockhash(lifetime.blockhash) }, message),
    (message) =>
      appendTransactionMessageInstructions([getTransferSolInstruction({ source: from, destination: to, amount: lamports(SENT) })], message),
    (message) => signTransactionMessageWithSigners(message),
  );
  return {
    to,
    blockhash: lifetime.blockhash,
    lastValidBlockHeight: lifetime.lastValidBlockHeight,
    txSignature: getSignatureFromTransaction(transaction),
    wire: getBase64EncodedWireTransaction(transaction),
  };
}

async function rpcCall(t: TestCoffer, method: string, params: unknown[]) {
  const response = await fetch(`${t.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { code: number; data?: { err?: unknown } } };
}

const send = (t: TestCoffer, wire: string, skipPreflight: boolean) =>
  rpcCall(t, 'sendTransaction', [wire, { encoding: 'base64', skipPreflight }]);

async function lamportsOf(t: TestCoffer, wallet: Address) {
  return ((await rpcCall(t, 'getBalance', [wallet])).result as { value: number }).value;
}

async function landed(t: TestCoffer, txSignature: string) {
  const rpc = createSolanaRpc(`${t.url}/rpc`);
  return (await rpc.getTransaction(signature(txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send()) !== null;
}

describe('a blockhash on the embedded chain', () => {
  it('expires 150 blocks after it was issued: block height follows the clock and getLatestBlockhash says when', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    const t = await start(clock);
    const rpc = createSolanaRpc(`${t.url}/rpc`);
    const height = await rpc.getBlockHeight().send();
    const held = await heldTransfer(t);
    expect(held.lastValidBlockHeight).toBe(height + BLOCKHASH_LIFETIME);
    clock.advance(10 * BLOCK_MS);
    expect(await rpc.getBlockHeight().send()).toBe(height + 10n);
    // A block later, a new blockhash; the held one is still usable.
    expect((await rpc.getLatestBlockhash().send()).value.blockhash).not.toBe(held.blockhash);
    expect(((await rpcCall(t, 'isBlockhashValid', [held.blockhash])).result as { value: boolean }).value).toBe(true);
    clock.advance(LIFETIME_MS);
    expect(((await rpcCall(t, 'isBlockhashValid', [held.blockhash])).result as { value: boolean }).value).toBe(false);
  });

  it('lands a transaction held less than its lifetime, and never one held longer, with or without preflight', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    const t = await start(clock);
    const fresh = await heldTransfer(t);
    const stale = await heldTransfer(t);
    clock.advance(LIFETIME_MS - 10 * BLOCK_MS);
    expect((await send(t, fresh.wire, false)).result).toBe(fresh.txSignature);
    expect(await lamportsOf(t, fresh.to)).toBe(Number(SENT));

    clock.advance(20 * BLOCK_MS);
    const checked = await send(t, stale.wire, false);
    expect(checked.error).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound' } });
    // Without preflight a cluster answers the signature and the transaction is simply never seen.
    expect((await send(t, stale.wire, true)).result).toBe(stale.txSignature);
    expect(await landed(t, stale.txSignature)).toBe(false);
    expect(await lamportsOf(t, stale.to)).toBe(0);
  });

  it('keeps its lifetime across a restart: usable after a quick one, expired once the time it was down passes it', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    let t = await start(clock);
    const quick = await heldTransfer(t);
    const slow = await heldTransfer(t);
    await stop(t);
    clock.advance(5_000);
    t = await start(clock);
    expect((await send(t, quick.wire, true)).result).toBe(quick.txSignature);
    expect(await landed(t, quick.txSignature)).toBe(true);
    await stop(t);

    clock.advance(LIFETIME_MS);
    t = await start(clock);
    expect((await send(t, slow.wire, true)).result).toBe(slow.txSignature);
    expect((await send(t, slow.wire, false)).error).toMatchObject({ data: { err: 'BlockhashNotFound' } });
    expect(await landed(t, slow.txSignature)).toBe(false);
    expect(await lamportsOf(t, slow.to)).toBe(0);
  });

  it('is never issued twice, even by a chain restarted from the same data', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    const seen = new Set<string>();
    for (let run = 0; run < 3; run++) {
      const t = await start(clock);
      const rpc = createSolanaRpc(`${t.url}/rpc`);
      for (let block = 0; block < 3; block++) {
        seen.add((await rpc.getLatestBlockhash().send()).value.blockhash);
        clock.advance(BLOCK_MS);
      }
      await stop(t);
    }
    expect(seen.size).toBe(9);
  });
});

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
    // getSlot names the last block made (as a node answers at `confirmed`); what lands now joins the next.
    const slot = (await rpc.getSlot().send()) + 1n;
    const height = (await rpc.getBlockHeight().send()) + 1n;
    const [first, second] = [await airdrop(t), await airdrop(t)];
    expect(await rpc.getSlot().send()).toBe(slot - 1n);
    expect([await slotOf(t, first), await slotOf(t, second)]).toEqual([slot, slot]);
    // Its block is given once the slot is over, as a node gives one once it is confirmed.
    expect((await rpcCall(t, 'getBlock', [Number(slot), { transactionDetails: 'signatures' }])).error?.code).toBe(-32004);

    clock.advance(BLOCK_MS);
    expect(await rpc.getSlot().send()).toBe(slot);
    expect(await rpc.getBlockHeight().send()).toBe(height);
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

    // getSlot's block is there to read; a clock set back does not take the slot back.
    expect((await rpc.getBlock(await rpc.getSlot().send(), { transactionDetails: 'none' }).send())!.blockHeight).toBe(height + 3n);
    clock.advance(-10 * BLOCK_MS);
    expect(await rpc.getSlot().send()).toBe(slot + 3n);
  });

  it('goes on past the last slot of a chain written when a slot was a transaction; blocks before are not kept whole', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    let t = await start(clock);
    const earlier = [await airdrop(t), await airdrop(t)];
    // As an earlier Coffer wrote its chain: a slot counted per transaction, from LiteSVM's first slot.
    const oldSlot = 447_552_000n;
    await stop(t);
    const db = openConnection(`${dataDir}/coffer.db`);
    db.prepare('UPDATE sim_transactions SET slot = ? + seq').run(oldSlot);
    db.prepare("DELETE FROM meta WHERE key = 'sim.slots'").run();
    // And handed out random blockhashes, kept with their last valid height: still good for their lifetime.
    const handedOut = getBase58Decoder().decode(randomBytes(32));
    const height = BigInt(JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'sim.block_high'").pluck().get() as string));
    const lastValid = (height + 10n).toString();
    db.prepare("INSERT INTO meta (key, value) VALUES ('sim.blockhashes', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
      JSON.stringify([[handedOut, lastValid]]),
    );
    db.close();
    t = await start(clock);
    const rpc = createSolanaRpc(`${t.url}/rpc`);
    expect(((await rpcCall(t, 'isBlockhashValid', [handedOut])).result as { value: boolean }).value).toBe(true);
    const lastOld = await slotOf(t, earlier[1]!);
    expect(lastOld).toBeGreaterThan(oldSlot);
    const first = await rpc.getFirstAvailableBlock().send();
    expect(first).toBe(lastOld + 1n);
    expect(await rpc.getSlot().send()).toBe(first);
    const after = await airdrop(t);
    expect(await slotOf(t, after)).toBe(first + 1n);
    expect((await rpcCall(t, 'getBlock', [Number(lastOld)])).error).toEqual({
      code: -32009,
      message: `Slot ${lastOld} was skipped, or missing in long-term storage`,
    });
    clock.advance(11 * BLOCK_MS);
    expect(((await rpcCall(t, 'isBlockhashValid', [handedOut])).result as { value: boolean }).value).toBe(false);
    // Kept across a restart: the same first block, the slot where the clock has it.
    await stop(t);
    t = await start(clock);
    expect(await createSolanaRpc(`${t.url}/rpc`).getFirstAvailableBlock().send()).toBe(first);
    expect(await createSolanaRpc(`${t.url}/rpc`).getSlot().send()).toBe(first + 11n);
    expect(await slotOf(t, earlier[0]!)).toBe(lastOld - 1n);
  });

  it('never goes back across a restart on a clock set back: blocks made stay made, and a blockhash that expired stays expired', async () => {
    dataDir = tempDataDir();
    const clock = manualClock();
    const origin = clock.now();
    let t = await start(clock);
    // Ten minutes ahead (a clock set wrong, then put right while Coffer is stopped).
    clock.advance(10 * 60_000);
    const landedSlot = await slotOf(t, await airdrop(t));
    const held = await heldTransfer(t);
    clock.advance(LIFETIME_MS + BLOCK_MS);
    expect((await send(t, held.wire, false)).error).toMatchObject({ data: { err: 'BlockhashNotFound' } });
    await stop(t);
    clock.set(origin);
    t = await start(clock);
    const rpc = createSolanaRpc(`${t.url}/rpc`);
    expect(await rpc.getSlot().send()).toBeGreaterThanOrEqual(landedSlot);
    // Long after, as long as the clock was ahead: the held transaction can still never land.
    for (const ahead of [0, 10 * 60_000]) {
      clock.set(origin + ahead);
      expect((await send(t, held.wire, false)).error).toMatchObject({ data: { err: 'BlockhashNotFound' } });
      expect((await send(t, held.wire, true)).result).toBe(held.txSignature);
      expect(await landed(t, held.txSignature)).toBe(false);
    }
    expect(await slotOf(t, await airdrop(t))).toBeGreaterThan(landedSlot);
  });
});
