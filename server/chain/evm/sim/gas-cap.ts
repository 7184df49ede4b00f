/**
 * The most gas a request from outside may ask of the embedded chain: what one transaction may use
 * from Osaka on (EIP-7825), refused above it as an Osaka node refuses it, before anything is run or
 * journaled. EDR keeps a record of each step it runs, some 150 bytes a unit of gas: a no-key
 * `eth_call` of an endless loop asking 2^64 - 1 gas grew the process until the kernel killed it; at
 * the cap one takes some 6 s and 2.6 GB at its peak on a developer's machine.
 */
import { parseTransaction, type Hex } from 'viem';
import { CALL_GAS_LIMIT, JsonRpcError } from './edr-node.js';

/** The methods that run a call the caller describes, its `gas` among its fields. */
const CALLS = new Set(['eth_call', 'eth_estimateGas', 'eth_createAccessList']);

const over = (gas: bigint) => new JsonRpcError(-32000, `transaction gas limit (${gas}) is greater than the cap (${CALL_GAS_LIMIT})`);

/** The node's refusal of a request asking more gas than the cap; null where it asks no more (or names none it can read). */
export function gasCapRefusal(method: string, params: readonly unknown[]): JsonRpcError | null {
  if (CALLS.has(method)) {
    const gas = (params[0] as { gas?: unknown } | null | undefined)?.gas;
    return typeof gas === 'string' && /^0x[0-9a-f]+$/i.test(gas) && BigInt(gas) > CALL_GAS_LIMIT ? over(BigInt(gas)) : null;
  }
  if (method === 'eth_sendRawTransaction' && typeof params[0] === 'string') {
    let gas: bigint | undefined;
    try {
      gas = parseTransaction(params[0] as Hex).gas;
    } catch {
      return null; // The node refuses what it cannot read, in its words.
    }
    return gas !== undefined && gas > CALL_GAS_LIMIT ? over(gas) : null;
  }
  return null;
}
