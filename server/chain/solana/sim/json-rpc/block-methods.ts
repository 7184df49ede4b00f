import { z } from 'zod';
import type { SimBlock, SimLedger } from '../ledger.js';
import { RpcError } from './error.js';
import { rpcMethod, type SimRpcMethod } from './method.js';
import { noParams } from './params.js';
import { encodeTransaction } from './transaction-encoding.js';

/** The most slots getBlocks and getBlocksWithLimit answer at once, as a node's limit. */
const MAX_BLOCK_RANGE = 500_000;

const slotParam = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
// A node gives blocks once they are confirmed, never at `processed`.
const blockCommitment = z.enum(['confirmed', 'finalized'], { error: 'Method does not support commitment below `confirmed`' }).optional();
const blocksConfig = z.object({ commitment: blockCommitment }).loose();
const blockConfig = z
  .object({
    encoding: z.enum(['json', 'jsonParsed', 'base58', 'base64']).optional(),
    transactionDetails: z.enum(['full', 'accounts', 'signatures', 'none']).optional(),
    rewards: z.boolean().optional(),
    maxSupportedTransactionVersion: z.number().int().optional(),
    commitment: blockCommitment,
  })
  .loose();
type BlockConfig = z.infer<typeof blockConfig>;

/** Blocks: one made every slot (none is skipped), from the first kept to the last made. */
export const blockMethods: Record<string, SimRpcMethod> = {
  getBlock: rpcMethod(z.tuple([slotParam, blockConfig.optional()]), ({ ledger }, [slot, config]) =>
    encodeBlock(blockAt(ledger, slot), config ?? {}),
  ),
  getBlockTime: rpcMethod(z.tuple([slotParam]), ({ ledger }, [slot]) => BigInt(Math.floor(blockAt(ledger, slot).blockTime / 1000))),
  // getBlocks(start, end?, config?): the end may be left out, null, or the config in its place, as a node takes it.
  getBlocks: rpcMethod(
    z.tuple([slotParam, z.union([slotParam, blocksConfig, z.null()]).optional(), blocksConfig.optional()]),
    ({ ledger }, [start, end]) => {
      const from = BigInt(start);
      const to = typeof end === 'number' ? BigInt(end) : from + BigInt(MAX_BLOCK_RANGE);
      if (to - from > BigInt(MAX_BLOCK_RANGE)) throw new RpcError(-32602, `Slot range too large; max ${MAX_BLOCK_RANGE}`);
      return blockSlots(ledger, from, to);
    },
  ),
  getBlocksWithLimit: rpcMethod(z.tuple([slotParam, z.number().int().min(0), blocksConfig.optional()]), ({ ledger }, [start, limit]) => {
    if (limit > MAX_BLOCK_RANGE) throw new RpcError(-32602, `Limit too large; max ${MAX_BLOCK_RANGE}`);
    const first = BigInt(start) > ledger.firstBlockSlot ? BigInt(start) : ledger.firstBlockSlot;
    return blockSlots(ledger, first, first + BigInt(limit) - 1n);
  }),
  getFirstAvailableBlock: rpcMethod(noParams, ({ ledger }) => ledger.firstBlockSlot),
};

/** The block made in a slot, or the error a node answers for a slot it cannot give one for. */
function blockAt(ledger: SimLedger, slot: number): SimBlock {
  const block = ledger.block(BigInt(slot));
  if (block === 'not_yet') throw new RpcError(-32004, `Block not available for slot ${slot}`);
  if (block === 'not_kept') throw new RpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`);
  return block;
}

/** The slots from `first` to `end` that have a block: all of them, from the first kept to the last made. */
function blockSlots(ledger: SimLedger, first: bigint, end: bigint): bigint[] {
  const from = first > ledger.firstBlockSlot ? first : ledger.firstBlockSlot;
  const last = end < ledger.slot ? end : ledger.slot;
  if (last < from) return [];
  return Array.from({ length: Number(last - from) + 1 }, (_, i) => from + BigInt(i));
}

/** A block as getBlock answers it: its transactions in full, their account keys, their signatures, or none. */
function encodeBlock(block: SimBlock, config: BlockConfig) {
  const details = config.transactionDetails ?? 'full';
  const head = {
    blockHeight: block.height,
    blockTime: BigInt(Math.floor(block.blockTime / 1000)),
    blockhash: block.blockhash,
    parentSlot: block.slot - 1n,
    previousBlockhash: block.previousBlockhash,
    ...(config.rewards === false ? {} : { rewards: [] }),
  };
  if (details === 'none') return head;
  if (details === 'signatures') return { ...head, signatures: block.transactions.map((row) => row.signature) };
  return {
    ...head,
    transactions: block.transactions.map((row) => {
      const { transaction, meta, version } = encodeTransaction(
        row,
        details === 'accounts' ? 'jsonParsed' : (config.encoding ?? 'json'),
        config.maxSupportedTransactionVersion,
      );
      if (details === 'full') return { transaction, meta, version };
      // Its account keys and signatures, and of its meta what balances and fees say (a node's `accounts`).
      const { accountKeys } = (transaction as { message: { accountKeys: unknown[] } }).message;
      const { err, fee, status, preBalances, postBalances, preTokenBalances, postTokenBalances } = meta;
      return {
        transaction: { accountKeys, signatures: (transaction as { signatures: string[] }).signatures },
        meta: { err, fee, status, preBalances, postBalances, preTokenBalances, postTokenBalances },
        version,
      };
    }),
  };
}
