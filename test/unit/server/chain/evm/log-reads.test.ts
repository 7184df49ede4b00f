import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeEventTopics, getAddress, type Hash, type PublicClient } from 'viem';
import { transfersTo } from '../../../../../server/chain/evm/log-reads.js';
import { USDC_ABI } from '../../../../../server/chain/evm/usdc-abi.js';

const USDC = getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e');
const TREASURY = getAddress('0x00000000000000000000000000000000000000a1');
const OUTSIDER = getAddress('0x00000000000000000000000000000000000000b2');
const TX = `0x${'ab'.repeat(32)}` as Hash;

/** A Transfer log of `value` to the treasury, as a node answers eth_getLogs. */
const transferLog = (blockNumber: bigint, logIndex: number, value: bigint) => ({
  address: USDC,
  topics: encodeEventTopics({ abi: USDC_ABI, eventName: 'Transfer', args: { from: OUTSIDER, to: TREASURY } }),
  data: encodeAbiParameters([{ type: 'uint256' }], [value]),
  blockNumber: `0x${blockNumber.toString(16)}`,
  blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
  logIndex: `0x${logIndex.toString(16)}`,
  transactionHash: TX,
  transactionIndex: '0x0',
  removed: false,
});

/** A node at the edge of the world (its eth_getLogs answer given), read through viem's own client. */
async function readWith(logs: ReturnType<typeof transferLog>[], latest: bigint) {
  const { createPublicClient, custom } = await import('viem');
  const client = createPublicClient({
    transport: custom({
      async request({ method }: { method: string }) {
        if (method === 'eth_blockNumber') return `0x${latest.toString(16)}`;
        if (method === 'eth_getLogs') return logs;
        if (method === 'eth_getBlockByNumber') return { timestamp: '0x6500', number: `0x${latest.toString(16)}` };
        throw new Error(`not asked of this node: ${method}`);
      },
    }),
  }) as PublicClient;
  return (await transfersTo(client, USDC, TREASURY, latest - 5n)).transfers.map(({ transferIndex, amount }) => [transferIndex, amount]);
}

describe('transfersTo', () => {
  it("keys each transfer by its place in its transaction, which a reorg into another block keeps (not the block's log index)", async () => {
    // Read at block 100, its transfers the block's 5th and 7th logs; the same transaction mined again
    // at block 101 after a reorg, now its 2nd and 4th: the same places, so the same deposits.
    const before = await readWith([transferLog(100n, 7, 2n), transferLog(100n, 5, 1n)], 100n);
    const after = await readWith([transferLog(101n, 2, 1n), transferLog(101n, 4, 2n)], 101n);
    expect(before).toEqual([
      [0, 1n],
      [1, 2n],
    ]);
    expect(after).toEqual(before);
    // A node that repeats a log in its answer: still one deposit of it.
    expect(await readWith([transferLog(100n, 5, 1n), transferLog(100n, 7, 2n), transferLog(100n, 5, 1n)], 100n)).toEqual(before);
  });
});
