import { describe, expect, it } from 'vitest';
import { createPublicClient, custom, decodeFunctionData, encodeFunctionResult, getAddress, type Hash, type PublicClient } from 'viem';
import { safeHead, unusedForGood } from '../../../../../server/chain/evm/finality.js';
import { USDC_ABI } from '../../../../../server/chain/evm/usdc-abi.js';

/**
 * When an authorization unused at the newest block read is unused for good (server/chain/evm/finality.ts),
 * against a node at the edge of the world: its answers given, read through viem's own client, and
 * every read it was asked kept to see which block each one named.
 */
const USDC = getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e');
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935';
const PAYER = getAddress('0x00000000000000000000000000000000000000a1');
const NONCE = `0x${'11'.repeat(32)}` as Hash;

/** The chain's block at a height; `fork`: a block of another fork at that height. */
const hashOf = (height: bigint, fork = false): Hash => `0x${(fork ? 'f0' : 'c0').padEnd(48, '0')}${height.toString(16).padStart(16, '0')}`;
const block = (height: bigint, fork = false) => ({ number: height, hash: hashOf(height, fork), timestamp: 1_000n + height * 2n });

/** Why a node refuses a request: its JSON-RPC error. */
type Refusal = { code: number; message: string };
const refused = ({ code, message }: Refusal) => Object.assign(new Error(message), { code });

type Node = {
  /** The token's state at a block (by hash), or the node's refusal. */
  stateAt?: (hash: Hash) => boolean | Refusal;
  /** The hash BLOCKHASH gives at `at` for `height`. */
  blockhash?: (at: Hash, height: bigint) => Hash;
  /** The history contract's answer at `at` for `height`: `0x` where the chain has none. */
  history?: (at: Hash, height: bigint) => Hash | '0x';
  /** The block a read by height answers (default: the chain's). */
  atHeight?: (height: bigint) => ReturnType<typeof block>;
};

function nodeOf(node: Node) {
  const asked: string[] = [];
  const client = createPublicClient({
    transport: custom(
      {
        async request({ method, params }: { method: string; params: unknown[] }) {
          if (method === 'eth_getBlockByNumber') {
            const height = BigInt(params[0] as string);
            asked.push(`block ${height}`);
            const { number, hash, timestamp } = (node.atHeight ?? block)(height);
            return { number: `0x${number.toString(16)}`, hash, timestamp: `0x${timestamp.toString(16)}`, transactions: [] };
          }
          if (method !== 'eth_call') throw new Error(`not asked of this node: ${method}`);
          const [call, at] = params as [{ to?: string; data: Hash }, { blockHash: Hash; requireCanonical?: boolean }];
          if (call.to?.toLowerCase() === USDC.toLowerCase()) {
            const { args } = decodeFunctionData({ abi: USDC_ABI, data: call.data });
            expect(args).toEqual([PAYER, NONCE]);
            asked.push(`state at ${at.blockHash}${at.requireCanonical ? ' (canonical)' : ''}`);
            const answer = node.stateAt!(at.blockHash);
            if (typeof answer !== 'boolean') throw refused(answer);
            return encodeFunctionResult({ abi: USDC_ABI, functionName: 'authorizationState', result: answer });
          }
          if (call.to?.toLowerCase() === HISTORY) {
            const height = BigInt(call.data);
            asked.push(`history ${height} at ${at.blockHash}`);
            return node.history!(at.blockHash, height);
          }
          // No contract: the BLOCKHASH code, its height after PUSH32 (0x7f).
          expect(call.to ?? null).toBeNull();
          expect(call.data.slice(0, 4)).toBe('0x7f');
          const height = BigInt(`0x${call.data.slice(4, 68)}`);
          asked.push(`blockhash ${height} at ${at.blockHash}`);
          return `0x00${node.blockhash!(at.blockHash, height).slice(2)}`;
        },
      },
      { retryCount: 0 },
    ),
  }) as PublicClient;
  return { client, asked };
}

const judge = (node: Node, latest: ReturnType<typeof block>, safe: ReturnType<typeof block>) => {
  const { client, asked } = nodeOf(node);
  return { asked, answer: unusedForGood(client, USDC, { from: PAYER, nonce: NONCE }, latest, safe) };
};

const NEWEST = 1_000n;
const latest = block(NEWEST);

describe('an authorization unused at the newest block read, past its end, the safe head past it too', () => {
  it("an archive node: said by the token's state at the safe head itself, pinned to its hash and required canonical", async () => {
    const safe = block(NEWEST - 10n);
    const unused = judge({ stateAt: () => false }, latest, safe);
    expect(await unused.answer).toBe(true);
    expect(unused.asked).toEqual([`block ${safe.number}`, `state at ${safe.hash} (canonical)`]);
    // Used there, unused at the newest block read: that block is not the chain's.
    expect(await judge({ stateAt: () => true }, latest, safe).answer).toBe(false);
  });

  it('the safe head read again by its height must be the same block; a safe head ahead of the newest block read says nothing', async () => {
    const safe = block(NEWEST - 10n, true);
    const astray = judge({ stateAt: () => false }, latest, safe);
    expect(await astray.answer).toBe(false);
    expect(astray.asked).toEqual([`block ${safe.number}`]);
    const ahead = judge({ stateAt: () => false }, latest, block(NEWEST + 1n));
    expect(await ahead.answer).toBe(false);
    expect(ahead.asked).toEqual([]);
  });

  it('a node for which the safe head is not canonical follows another fork: not said, and not asked by another way', async () => {
    const safe = block(NEWEST - 10n);
    const notCanonical = { code: -32000, message: 'hash 0xc0… is not currently canonical' };
    const forked = judge({ stateAt: () => notCanonical, blockhash: (_at, height) => hashOf(height) }, latest, safe);
    expect(await forked.answer).toBe(false);
    expect(forked.asked).toEqual([`block ${safe.number}`, `state at ${safe.hash} (canonical)`]);
  });

  it('a node that keeps only its newest state: the newest block read must descend from the safe head (BLOCKHASH, pinned to it)', async () => {
    const safe = block(NEWEST - 200n);
    const missing = () => ({ code: -32000, message: 'missing trie node 5b1f (path ) state 0x… is not available' });
    const descends = judge({ stateAt: missing, blockhash: (_at, height) => hashOf(height) }, latest, safe);
    expect(await descends.answer).toBe(true);
    expect(descends.asked).toEqual([
      `block ${safe.number}`,
      `state at ${safe.hash} (canonical)`,
      `blockhash ${safe.number} at ${latest.hash}`,
    ]);
    // The newest block read is another fork's: its ancestor at that height is not the safe head.
    const forkNewest = block(NEWEST, true);
    expect(await judge({ stateAt: missing, blockhash: (_at, height) => hashOf(height, true) }, forkNewest, safe).answer).toBe(false);
    // Out of BLOCKHASH's reach, the EVM says zero: not said.
    expect(await judge({ stateAt: missing, blockhash: () => `0x${'0'.repeat(64)}` }, latest, safe).answer).toBe(false);
    // A hash that begins with 0xEF (one in 256) comes back whole, after the zero byte the code returns before it.
    const ef = { ...safe, hash: `0xef${safe.hash.slice(4)}` as Hash };
    expect(
      await judge(
        { stateAt: missing, blockhash: () => ef.hash, atHeight: (height) => (height === ef.number ? ef : block(height)) },
        latest,
        ef,
      ).answer,
    ).toBe(true);
    // The newest block itself the safe head: nothing more to read.
    const same = judge({ stateAt: missing }, latest, latest);
    expect(await same.answer).toBe(true);
    expect(same.asked).toEqual([`block ${NEWEST}`, `state at ${latest.hash} (canonical)`]);
  });

  it("further back than BLOCKHASH reaches: EIP-2935's history contract, pinned to the newest block; without one, the read by height", async () => {
    const safe = block(NEWEST - 300n);
    const missing = () => ({ code: -32000, message: 'missing trie node' });
    const history = judge({ stateAt: missing, history: (_at, height) => hashOf(height) }, latest, safe);
    expect(await history.answer).toBe(true);
    expect(history.asked.at(-1)).toBe(`history ${safe.number} at ${latest.hash}`);
    expect(await judge({ stateAt: missing, history: (_at, height) => hashOf(height, true) }, latest, safe).answer).toBe(false);
    // A chain without the contract (an empty answer): the safe head as read by its height stands.
    expect(await judge({ stateAt: missing, history: () => '0x' }, latest, safe).answer).toBe(true);
    // Further back than the contract keeps (8,191 blocks): not said, nothing read that far.
    const far = judge({ stateAt: missing, history: () => safe.hash }, block(20_000n), safe);
    expect(await far.answer).toBe(false);
    expect(far.asked.some((read) => read.startsWith('history'))).toBe(false);
  });

  it('a node that fails the read for any other reason (rate-limited, in trouble): thrown, asked again next round', async () => {
    for (const failure of [
      { code: -32005, message: 'request rate exceeded' },
      { code: -32000, message: 'header not found' },
    ]) {
      await expect(
        judge({ stateAt: () => failure, blockhash: () => hashOf(NEWEST - 10n) }, latest, block(NEWEST - 10n)).answer,
      ).rejects.toThrow();
    }
  });
});

describe('the safe head, as a node says it', () => {
  /** A node answering each tag with a block at that lag behind the newest, or its refusal. */
  const tagged = (answers: Record<'safe' | 'finalized', bigint | Refusal>) =>
    createPublicClient({
      transport: custom(
        {
          async request({ method, params }: { method: string; params: unknown[] }) {
            if (method !== 'eth_getBlockByNumber') throw new Error(`not asked of this node: ${method}`);
            const answer = answers[params[0] as 'safe' | 'finalized'];
            if (typeof answer !== 'bigint') throw refused(answer);
            const { hash, timestamp } = block(NEWEST - answer);
            return { number: `0x${(NEWEST - answer).toString(16)}`, hash, timestamp: `0x${timestamp.toString(16)}`, transactions: [] };
          },
        },
        { retryCount: 0 },
      ),
    }) as PublicClient;
  const unknownTag = { code: -32602, message: 'invalid block tag' };
  const syncing = { code: -32000, message: 'finalized block not found' };

  it('its safe head; its finalized one where it refuses `safe` or fails it (-32603, -32000)', async () => {
    expect((await safeHead(tagged({ safe: 10n, finalized: 50n })))?.number).toBe(NEWEST - 10n);
    for (const failing of [unknownTag, { code: -32603, message: 'internal error' }, { code: -32000, message: 'safe block not found' }]) {
      expect((await safeHead(tagged({ safe: failing, finalized: 50n })))?.number).toBe(NEWEST - 50n);
    }
  });

  it('none (taken to be 15 minutes behind) only where it refuses both tags outright; a node syncing or in trouble is asked again', async () => {
    expect(await safeHead(tagged({ safe: unknownTag, finalized: unknownTag }))).toBeNull();
    await expect(safeHead(tagged({ safe: unknownTag, finalized: syncing }))).rejects.toThrow();
    await expect(safeHead(tagged({ safe: syncing, finalized: { code: -32603, message: 'internal error' } }))).rejects.toThrow();
  });
});
