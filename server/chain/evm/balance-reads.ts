/**
 * Many wallets' USDC on an EVM chain in one `eth_call`: viem's Multicall3 sent with its creation code
 * ("deployless": no contract need be deployed on the chain, the embedded one has none), so a
 * dashboard's page of agents on a public RPC is one request, not one an account, which public nodes
 * soon rate-limit. A node that answers such a call with an error of its own (some gateways want a
 * `to`) is asked one wallet at a time from then on; a node that does not answer at all is said so,
 * in a short message (viem's would carry the whole call).
 */
import { BaseError, getAddress, HttpRequestError, RpcError, TimeoutError, type Address, type PublicClient } from 'viem';
import { cofferRefusalIn, nodeUnanswered } from './node-errors.js';
import { USDC_ABI } from './usdc-abi.js';

/**
 * The calldata of the balance reads one `eth_call` carries at most (36 bytes a wallet): 100 wallets,
 * about 28.6 KB of creation code with their encoding (22.5 KB) and Multicall3's code (5.6 KB), under
 * the 48 KB EIP-3860 allows (about 187 wallets). Each call of more wallets is read at its own `latest`.
 */
const MULTICALL_BYTES = 3_600;

export function createBalanceReads(client: PublicClient, usdc: Address, network: string) {
  let oneAtATime = false;
  const unreachable = (error: unknown) => nodeUnanswered(network, 'the USDC balances', error);
  const balanceOf = (wallet: string) => ({
    address: usdc,
    abi: USDC_ABI,
    functionName: 'balanceOf' as const,
    args: [getAddress(wallet)] as const,
  });

  return async (wallets: string[]): Promise<Map<string, bigint>> => {
    const unique = [...new Set(wallets)];
    if (unique.length === 0) return new Map();
    if (!oneAtATime) {
      try {
        const balances = await client.multicall({
          contracts: unique.map(balanceOf),
          allowFailure: false,
          deployless: true,
          batchSize: MULTICALL_BYTES,
        });
        return new Map(unique.map((wallet, index) => [wallet, balances[index]!]));
      } catch (error) {
        if (!refusedByNode(error)) throw unreachable(error);
        oneAtATime = true;
      }
    }
    try {
      return new Map(await Promise.all(unique.map(async (wallet) => [wallet, await client.readContract(balanceOf(wallet))] as const)));
    } catch (error) {
      throw unreachable(error);
    }
  };
}

/**
 * The node answered the call with an error of its own (JSON-RPC), rather than not answering. Not a
 * refusal of Coffer's own on the way (rpc.ts: a node away, or of another chain), which viem wraps as
 * an RPC error too: it would turn the multicall off for good.
 */
function refusedByNode(error: unknown): boolean {
  if (!(error instanceof BaseError) || cofferRefusalIn(error) !== null) return false;
  const unanswered = error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError);
  return (
    !(unanswered instanceof HttpRequestError || unanswered instanceof TimeoutError) &&
    error.walk((cause) => cause instanceof RpcError) instanceof RpcError
  );
}
