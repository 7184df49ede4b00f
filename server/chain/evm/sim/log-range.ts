/**
 * An `eth_getLogs` filter's block range held to the chain's head. EDR walks every block number in a
 * range, existing or not: `toBlock` 2^64 - 1 (a no-key call on `/evm-rpc`) held the chain, and with it
 * the Base rail, for good. A node reads such a range as the blocks there are: up to the head, and
 * none where the range begins past it.
 */

/** A block named by its number, as EDR reads one: `0x…` (any number of digits), or `{blockNumber: '0x…'}` (EIP-1898). */
function numberOf(block: unknown): bigint | null {
  const text = typeof block === 'object' && block !== null ? (block as { blockNumber?: unknown }).blockNumber : block;
  return typeof text === 'string' && /^0x[0-9a-f]+$/i.test(text) ? BigInt(text) : null;
}

/** The filter with `toBlock` past the head read as the head; null where `fromBlock` is past it (no logs). */
export async function logFilterWithinHead(params: readonly unknown[], head: () => Promise<bigint>): Promise<readonly unknown[] | null> {
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null) return params;
  const { fromBlock, toBlock } = filter as { fromBlock?: unknown; toBlock?: unknown };
  const from = numberOf(fromBlock);
  const to = numberOf(toBlock);
  if (from === null && to === null) return params;
  const last = await head();
  if (from !== null && from > last) return null;
  if (to === null || to <= last) return params;
  return [{ ...filter, toBlock: `0x${last.toString(16)}` }, ...params.slice(1)];
}
