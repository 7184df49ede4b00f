import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  partiallySignTransactionMessageWithSigners,
  address,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { RpcChain } from '../../../../../../server/chain/solana/cluster/chain.js';
import { USDC_MINTS } from '../../../../../../server/chain/solana/networks.js';

/**
 * A remote RPC node, scripted: each JSON-RPC method answers what its script says for that call (as a
 * node does, in the shapes of Solana's JSON-RPC), and the calls are recorded in order.
 */
type Script = Record<string, (call: number, params: unknown[]) => unknown>;

async function scriptedNode(script: Script) {
  const calls: string[] = [];
  const counts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
      calls.push(method);
      const n = counts.get(method) ?? 0;
      counts.set(method, n + 1);
      const answer = script[method];
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify(
          answer === undefined
            ? { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
            : { jsonrpc: '2.0', id, result: answer(n, params ?? []) },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const signature = () => getBase58Decoder().decode(randomBytes(64));
const statuses = (status: object | null) => ({ context: { slot: 500 }, value: [status] });
const LANDED = { slot: 499, confirmations: null, err: null, confirmationStatus: 'confirmed', status: { Ok: null } };

describe("RpcChain's fate of a transaction Coffer sent", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((node) => node.close()));
  });
  const chainOn = async (script: Script) => {
    const node = await scriptedNode(script);
    open.push(node);
    return { node, chain: new RpcChain({ name: 'devnet', rpcUrl: node.url, usdcMint: USDC_MINTS.devnet }, null) };
  };

  it('is not dropped when it lands between the status read and a height past its last block: the status is read again', async () => {
    // Unseen at the first read; in one of its last valid blocks by the time the height is read.
    const { chain } = await chainOn({
      getSignatureStatuses: (call) => statuses(call === 0 ? null : LANDED),
      getBlockHeight: () => 101,
    });
    expect(await chain.fateOf({ txSignature: signature(), lifetimeEnd: 100n })).toEqual({ state: 'succeeded' });
  });

  it('is dropped when the status, read after a height past its last block, still does not know it', async () => {
    const { chain, node } = await chainOn({ getSignatureStatuses: () => statuses(null), getBlockHeight: () => 101 });
    expect(await chain.fateOf({ txSignature: signature(), lifetimeEnd: 100n })).toEqual({ state: 'dropped' });
    expect(node.calls).toEqual(['getSignatureStatuses', 'getBlockHeight', 'getSignatureStatuses']);
  });

  it('is unknown while its blockhash can still land, and one status read settles a landed one', async () => {
    const unseen = await chainOn({ getSignatureStatuses: () => statuses(null), getBlockHeight: () => 100 });
    expect(await unseen.chain.fateOf({ txSignature: signature(), lifetimeEnd: 100n })).toEqual({ state: 'unknown' });
    expect(unseen.node.calls).toEqual(['getSignatureStatuses', 'getBlockHeight']);
    const landed = await chainOn({ getSignatureStatuses: () => statuses(LANDED) });
    expect(await landed.chain.fateOf({ txSignature: signature(), lifetimeEnd: 100n })).toEqual({ state: 'succeeded' });
    expect(landed.node.calls).toEqual(['getSignatureStatuses']);
  });
});

/**
 * An x402 payment's transaction as the buyer hands it over: the payer's signature on it, the fee
 * payer's (the facilitator's) still to come, so its id is unknown until it lands.
 */
async function payerSigned(lastValidBlockHeight: bigint) {
  const payer = await generateKeyPairSigner();
  const signed = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address('4mhFfp7YHrFuLx3Ra6w3f4Qk9nGUE84g1cXaJRCWc8wi'), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash('4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi'), lastValidBlockHeight },
        m,
      ),
    (m) => appendTransactionMessageInstructions([getAddMemoInstruction({ memo: 'x402', signers: [payer] })], m),
    (m) => partiallySignTransactionMessageWithSigners(m),
  );
  const payerSignature = getBase58Decoder().decode(signed.signatures[payer.address]!);
  return { payer: payer.address as string, payerSignature, txWire: getBase64EncodedWireTransaction(signed) };
}

describe("RpcChain's fate of an x402 payment (the payer signed it, the seller's facilitator sent it)", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((node) => node.close()));
  });
  const LAST_VALID = 1_000n;
  const NOW_S = 1_800_000_000;
  /**
   * A busy payer: 1,500 transactions of its USDC account, newest first, one a slot from slot 2,999
   * down, the block at slot s of height s - 1,000 (so the oldest 501, slots 1,500 to 2,000, are at or
   * below the payment's last valid height), every one made after the payment; `ours` at that index.
   */
  const busyPayer = (wire: string, ours: number | null) => {
    const listed = Array.from({ length: 1_500 }, (_, i) => ({
      signature: signature(),
      slot: 2_999 - i,
      err: null,
      memo: null,
      blockTime: NOW_S - i,
      confirmationStatus: 'confirmed',
    }));
    const script: Script = {
      getBlockHeight: () => 2_000,
      isBlockhashValid: () => ({ context: { slot: 3_000 }, value: false }),
      getSignaturesForAddress: (_call, params) => {
        const before = (params[1] as { before?: string }).before;
        const start = before === undefined ? 0 : listed.findIndex((entry) => entry.signature === before) + 1;
        return listed.slice(start, start + 1_000);
      },
      getBlock: (_call, params) => ({
        blockHeight: (params[0] as number) - 1_000,
        blockTime: null,
        blockhash: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi',
        parentSlot: (params[0] as number) - 1,
        previousBlockhash: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi',
      }),
      getTransaction: (_call, params) => {
        const index = listed.findIndex((entry) => entry.signature === params[0]);
        if (index !== ours) return null;
        return {
          slot: listed[index]!.slot,
          blockTime: listed[index]!.blockTime,
          meta: { err: null },
          transaction: [wire, 'base64'],
          version: 0,
        };
      },
    };
    return { listed, script };
  };

  it('is dropped once expired, however many newer transactions the payer made: those in blocks past its last valid one are not read', async () => {
    const sent = await payerSigned(LAST_VALID);
    const { script } = busyPayer(sent.txWire, null);
    const node = await scriptedNode(script);
    open.push(node);
    const chain = new RpcChain({ name: 'devnet', rpcUrl: node.url, usdcMint: USDC_MINTS.devnet }, null);
    const fate = await chain.fateOfPayerSigned({ ...sent, lifetimeEnd: LAST_VALID, since: (NOW_S - 3_000) * 1000, hint: null });
    expect(fate).toEqual({ state: 'dropped' });
    // Only the 501 at or below its last valid height are read; blocks' heights: a binary search a page.
    expect(node.calls.filter((method) => method === 'getTransaction')).toHaveLength(501);
    expect(node.calls.filter((method) => method === 'getBlock').length).toBeLessThanOrEqual(2 * 11);
  });

  it('is found where it landed, in one of its last valid blocks, under a thousand newer transactions', async () => {
    const sent = await payerSigned(LAST_VALID);
    const { listed, script } = busyPayer(sent.txWire, 1_499 - 1);
    const node = await scriptedNode(script);
    open.push(node);
    const chain = new RpcChain({ name: 'devnet', rpcUrl: node.url, usdcMint: USDC_MINTS.devnet }, null);
    const fate = await chain.fateOfPayerSigned({ ...sent, lifetimeEnd: LAST_VALID, since: (NOW_S - 3_000) * 1000, hint: null });
    expect(fate).toEqual({ state: 'succeeded', landedAs: listed[1_498]!.signature });
  });

  it('is found in the block at exactly its last valid height, the first one the search keeps', async () => {
    const sent = await payerSigned(LAST_VALID);
    // Slot 2,000: height 1,000, its last valid one; index 2,999 - 2,000.
    const { listed, script } = busyPayer(sent.txWire, 999);
    const node = await scriptedNode(script);
    open.push(node);
    const chain = new RpcChain({ name: 'devnet', rpcUrl: node.url, usdcMint: USDC_MINTS.devnet }, null);
    const fate = await chain.fateOfPayerSigned({ ...sent, lifetimeEnd: LAST_VALID, since: (NOW_S - 3_000) * 1000, hint: null });
    expect(fate).toEqual({ state: 'succeeded', landedAs: listed[999]!.signature });
  });
});
