import {
  appendTransactionMessageInstructions,
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
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOCK_MS, BLOCKHASH_LIFETIME } from '../../server/chain/sim-blocks.js';
import { manualClock, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';

/**
 * On Solana a blockhash is usable for 150 blocks (about a minute): a transaction signed and held
 * longer can never land. The embedded chain keeps that rule on its own clock (a block every 400 ms,
 * also while Coffer is stopped), with and without preflight, and across a restart.
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
  t.coffer.simLedger!.airdrop(from.address, 10_000_000_000n);
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
