/**
 * What the chain can no longer take back, for an authorization that ended unused: whether it stays
 * unused for good (`dropped`: its budget freed, a retry paying afresh). Called wrongly, a payment that
 * ran is paid twice, so every read here is pinned to the block it judges.
 *
 * On Base the newest blocks are the sequencer's until posted to L1, and a reorganization of them could
 * still run an authorization before its end. The safe head cannot be reorganized: once its time is past
 * the end, an authorization unused there can never run (every later block's time is later still).
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
 * The newest block no reorganization can replace, as the node says it: its `safe` head, else its
 * `finalized` one (older, as sure) where it refuses the first or fails it with an internal error
 * (some nodes do so for a tag they do not serve). Null only where it refuses both outright: then it
 * is taken to be REORG_MARGIN_SECONDS behind. Any other failure, an internal error on `finalized`
 * included (viem counts -32603 as passing: a node having trouble, which may also answer a newest
 * block of its own fork), is thrown, the question left for the next round.
 */
export async function safeHead(client: PublicClient): Promise<Block | null> {
  try {
    return await client.getBlock({ blockTag: 'safe' });
  } catch (error) {
    if (!refusesTag(error) && !isInternalError(error)) throw error;
  }
  try {
    return await client.getBlock({ blockTag: 'finalized' });
  } catch (error) {
    if (!refusesTag(error)) throw error;
  }
  return null;
}

/**
 * Whether an authorization found unused at the newest block read (`latest`, past its end) stays
 * unused for good, the safe head (`safe`) being past its end too. Said by the first of these a node
 * answers:
 * 1. the token's state at the safe head itself, pinned by its hash and required canonical (EIP-1898):
 *    unused there, it can never run. Answered by an archive node, or a full node whose safe head is
 *    within the state it keeps;
 * 2. else (a full node keeps only its newest blocks' state) the newest block read, where the state
 *    said unused, must descend from the safe head: the hash the EVM's BLOCKHASH gives for the safe
 *    head's height, read at that very block, must be the safe head's (within BLOCKHASH's 256 blocks);
 * 3. else (the safe head further back than that) the block at the safe head's height, read by its
 *    number, must be the safe head. Not pinned: a node on a fork of its own below the safe head could
 *    answer the newest block and its state while others answer this. Base's safe head lags the
 *    newest by a few minutes (well under 256 blocks of 2 s) on most days, so this is the rare path,
 *    kept so that a payment is not left pending for good behind such a node.
 * Any failure of 2 or 3 is thrown: the question is asked again next round.
 */
export async function unusedForGood(
  client: PublicClient,
  token: Address,
  { from, nonce }: Pick<SignedAuthorization, 'from' | 'nonce'>,
  latest: Block,
  safe: Block,
): Promise<boolean> {
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
  } catch {
    // Not answered (no state kept that far back, or no such block on this node): by the newest block's ancestry.
  }
  if (safe.number > latest.number) return false;
  const back = latest.number - safe.number;
  if (back === 0n) return latest.hash === safe.hash;
  if (back <= BLOCKHASH_REACH) return (await ancestorHash(client, latest.hash, safe.number)) === safe.hash;
  return (await client.getBlock({ blockNumber: safe.number })).hash === safe.hash;
}

/**
 * The hash of the ancestor at `height` of the block `at`, as the EVM sees it in that block: a call with
 * no contract (its code runs as a contract's creation, and what it returns is the answer) that returns
 * BLOCKHASH(height). Zero where `height` is not among the 256 blocks before `at`. Refused by a node
 * that does not have the block `at`.
 */
async function ancestorHash(client: PublicClient, at: Hash, height: bigint): Promise<Hash> {
  const code = concat([
    '0x7f', // PUSH32 height
    numberToHex(height, { size: 32 }),
    '0x40', // BLOCKHASH
    '0x600052', // PUSH1 0, MSTORE: the hash at memory 0
    '0x60206000f3', // PUSH1 32, PUSH1 0, RETURN: those 32 bytes
  ]);
  const { data } = await client.call({ data: code, blockHash: at });
  return (data ?? '0x') as Hash;
}

/**
 * Whether a node refused a block tag it does not know (`safe` on an older node), or answered no block
 * for it. Not a node that did not answer, or refused one request too many: that says nothing of the tag.
 */
const refusesTag = (error: unknown) =>
  error instanceof BaseError &&
  error.walk(
    (cause) => cause instanceof InvalidParamsRpcError || cause instanceof InvalidInputRpcError || cause instanceof BlockNotFoundError,
  ) !== null;

/** Whether a node failed a request with an internal error (-32603). */
const isInternalError = (error: unknown) => error instanceof BaseError && error.walk((cause) => cause instanceof InternalRpcError) !== null;
