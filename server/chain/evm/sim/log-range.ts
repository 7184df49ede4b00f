/**
 * An `eth_getLogs` filter's block range held to the chain's head. EDR walks every block number in a
 * range, existing or not: `toBlock` 2^64 - 1 (a no-key call on `/evm-rpc`) held the chain, and with it
 * the Base rail, for good. A node reads such a range as the blocks there are: up to the head, and
 * none where the range begins past it.
 */
const QUANTITY = /^0x[0-9a-f]{1,64}$/i;

/** The filter with `toBlock` past the head read as the head; null where `fromBlock` is past it (no logs). */
export async function logFilterWithinHead(params: readonly unknown[], head: () => Promise<bigint>): Promise<readonly unknown[] | null> {
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null) return params;
  const { fromBlock, toBlock } = filter as { fromBlock?: unknown; toBlock?: unknown };
  const past = async (block: unknown) => typeof block === 'string' && QUANTITY.test(block) && BigInt(block) > (await head());
  if (await past(fromBlock)) return null;
  if (!(await past(toBlock))) return params;
  return [{ ...filter, toBlock: `0x${(await head()).toString(16)}` }, ...params.slice(1)];
}
