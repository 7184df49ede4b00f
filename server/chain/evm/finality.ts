/**
 * What the chain can no longer take back, for an authorization that ended unused: whether it stays
 * unused for good (`dropped`: its budget freed, a retry paying afresh). Called wrongly, a payment that
 * ran is paid twice, so every read here is pinned to the block it judges.
 *
 * On Base the newest blocks are the sequencer's until posted to L1, and a reorganization of them could
 * still run an authorization before its end. The safe head is derived from what is posted to L1: the
 * sequencer cannot reorganize it (only a reorganization of L1 itself could). Once its time is past the
 * end, an authorization unused there can never run (every later block's time is later still).
 * Behind a load-balanced RPC each request may reach another node, one of them behind the others or on
 * a fork of its own; a block number names another block on each fork, a block's hash names one.
 */
import {
  BaseError,
  BlockNotFoundError,
  InternalRpcError,
  InvalidInputRpcError,
  InvalidParamsRpcError,
  concat,
  numberToHex,
  type Address,
  type Hash,
  type PublicClient,
} from 'viem';
import type { SignedAuthorization } from './authorization.js';
import { USDC_ABI } from './usdc-abi.js';

/**
 * How far behind the newest block a node's safe head is taken to be where the node does not say
 * (an RPC that refuses both the `safe` and the `finalized` tag): Base's is usually a few minutes behind.
 */
export const REORG_MARGIN_SECONDS = 900n;

/** How far back the EVM's BLOCKHASH reads a block's ancestors (the 256 before it). */
const BLOCKHASH_REACH = 256n;

type Block = { number: bigint; hash: Hash; timestamp: bigint };

/**
 * The newest block the sequencer can no longer reorganize, as the node says it: its `safe` head (on
 * an OP chain, derived from what is posted to L1), else its `finalized` one (older, as sure) where it
 * refuses the first or fails it (-32603 from some nodes for a tag they do not serve, -32000 "safe
 * block not found" from one still syncing). Null only where it refuses both outright (the tag unknown
 * to it): then it is taken to be REORG_MARGIN_SECONDS behind. Any other failure of `finalized` (a node
 * having trouble or syncing, which may also answer a newest block of its own fork) is thrown, the
 * question left for the next round.
 */
export async function safeHead(client: PublicClient): Promise<Block | null> {
  try {
    return await client.getBlock({ blockTag: 'safe' });
  } catch (error) {
    if (!refusesTag(error) && !failsTag(error)) throw error;
  }
  try {
    return await client.getBlock({ blockTag: 'finalized' });
  } catch (error) {
    if (!refusesTag(error)) throw error;
  }
  return null;
}

/**
 * Whether an authorization found unused at the newest block read (`latest`, past its end, the state
 * read pinned to its hash) stays unused for good, the safe head (`safe`) being past its end too.
 *
 * The safe head is first read again by its height: another node (behind a load balancer) must find
 * the same block there. A node whose own derivation went astray labels a block of its own fork safe,
 * and every read pinned to that block would agree with it. Then, by the first of these a node answers:
 * 1. the token's state at the safe head itself, pinned by its hash (EIP-1898): unused there, it can
 *    never run. Answered by an archive node, or a full node whose safe head is within the state it
 *    keeps. A node that says the block is not canonical for it is on another fork: asked again later;
 * 2. else (a full node keeps only its newest blocks' state, about 128 on op-geth) the newest block
 *    read must descend from the safe head: the hash of its ancestor at the safe head's height, as the
 *    EVM sees it in that very block, must be the safe head's. BLOCKHASH reaches 256 blocks back; the
 *    history contract of EIP-2935 (Base since its Isthmus upgrade) 8,191. A chain without that
 *    contract, its safe head further back than 256 blocks, is left with the read by height above:
 *    the one unpinned path, so that a payment is not left pending for good behind such a node.
 * Beyond 8,191 blocks (hours of a sequencer posting nothing to L1), and on any failure other than a
 * state not kept, the question is asked again next round.
 */
export async function unusedForGood(
  client: PublicClient,
  token: Address,
  { from, nonce }: Pick<SignedAuthorization, 'from' | 'nonce'>,
  latest: Block,
  safe: Block,
): Promise<boolean> {
  if (safe.number > latest.number) return false;
  if ((await client.getBlock({ blockNumber: safe.number })).hash !== safe.hash) return false;
  try {
    const used = await client.readContract({
      address: token,
      abi: USDC_ABI,
      functionName: 'authorizationState',
      args: [from, nonce],
      blockHash: safe.hash,
      requireCanonical: true,
    });
    // Used at the safe head, yet unused at the newest block read: that block is no descendant of it.
    return !used;
  } catch (error) {
    if (notCanonical(error)) return false;
    if (!stateNotKept(error)) throw error;
  }
  const ancestor = await ancestorHash(client, latest, safe.number);
  // No history contract on this chain: the safe head as read by its height (above) stands.
  return ancestor === NO_HISTORY ? true : ancestor === safe.hash;
}

/** How far back EIP-2935's history contract answers (HISTORY_SERVE_WINDOW). */
const HISTORY_REACH = 8_191n;
/** EIP-2935's history contract: the same address on every chain that has it (Base since Isthmus). */
const HISTORY_CONTRACT: Address = '0x0000F90827F1C53a10cb7A02335B175320002935';
/** What ancestorHash answers where the chain has no history contract. */
const NO_HISTORY = 'no-history';

/**
 * The hash of the ancestor at `height` of the block `at`, as the EVM sees it in that block, each read
 * pinned to it (a node that does not have `at` refuses it). Within 256 blocks, BLOCKHASH, through a
 * call with no contract: its code runs as a contract's creation, and what it returns is the answer;
 * it returns a zero byte before the hash, since code a creation returns may not begin with 0xEF
 * (EIP-3541), as one hash in 256 does. Further back, EIP-2935's history contract: NO_HISTORY where
 * the chain has none (an empty answer from an address without code). Zero where out of reach.
 */
async function ancestorHash(client: PublicClient, at: Block, height: bigint): Promise<Hash | typeof NO_HISTORY> {
  const back = at.number - height;
  if (back === 0n) return at.hash;
  if (back > HISTORY_REACH) return ZERO_HASH;
  if (back <= BLOCKHASH_REACH) {
    const code = concat([
      '0x7f', // PUSH32 height
      numberToHex(height, { size: 32 }),
      '0x40', // BLOCKHASH
      '0x600152', // PUSH1 1, MSTORE: the hash at memory 1..32, a zero byte before it
      '0x60216000f3', // PUSH1 33, PUSH1 0, RETURN: those 33 bytes
    ]);
    const { data } = await client.call({ data: code, blockHash: at.hash });
    return data === undefined || data.length !== 68 ? ZERO_HASH : `0x${data.slice(4)}`;
  }
  const { data } = await client.call({ to: HISTORY_CONTRACT, data: numberToHex(height, { size: 32 }), blockHash: at.hash });
  if (data === undefined || data === '0x') return NO_HISTORY;
  return data.length === 66 ? data : ZERO_HASH;
}

const ZERO_HASH: Hash = `0x${'0'.repeat(64)}`;

/** A node that keeps no state at that block (a full node, not an archive): the words geth, op-geth, reth, Erigon and Nethermind use. */
const stateNotKept = (error: unknown) =>
  /missing trie node|pruned|historical state|state (?:is )?not available|state unavailable|distance to target block/i.test(
    messageOf(error),
  );

/** A node for which the block is not on its chain (EIP-1898's requireCanonical): it follows another fork. */
const notCanonical = (error: unknown) => /not (?:currently )?canonical/i.test(messageOf(error));

/** Every message along an error's causes, as viem wraps a node's words. */
function messageOf(error: unknown): string {
  if (!(error instanceof BaseError)) return error instanceof Error ? error.message : String(error);
  const words: string[] = [];
  error.walk((cause) => {
    if (cause instanceof Error) words.push(cause.message, (cause as { details?: string }).details ?? '');
    return false;
  });
  return words.join(' ');
}

/**
 * Whether a node refused a block tag it does not know (`safe` on an older node: invalid params), or
 * answered no block for it. Not a node that did not answer, or refused one request too many: that
 * says nothing of the tag.
 */
const refusesTag = (error: unknown) =>
  error instanceof BaseError &&
  error.walk((cause) => cause instanceof InvalidParamsRpcError || cause instanceof BlockNotFoundError) !== null;

/** Whether a node failed a tag's read with an internal error (-32603) or its own (-32000: "safe block not found"). */
const failsTag = (error: unknown) =>
  error instanceof BaseError && error.walk((cause) => cause instanceof InternalRpcError || cause instanceof InvalidInputRpcError) !== null;
