/**
 * An EVM JSON-RPC as Coffer reaches it: one retry, 15 s a call; and the network its node says it
 * is, by the chain id it answers now (never by its URL: networks.ts).
 */
import { http, type HttpTransport } from 'viem';
import { evmNetworkOf, type EvmNetwork } from './networks.js';

/** The transport for an EVM JSON-RPC. */
export const rpcTransport = (rpcUrl: string): HttpTransport => http(rpcUrl, { retryCount: 1, timeout: 15_000 });

/** An EVM JSON-RPC and its network: a known one's USDC (`usdc` must agree), or `usdc` for another chain. */
export async function evmRpcAt(rpcUrl: string, usdc: string | undefined): Promise<{ transport: HttpTransport; network: EvmNetwork }> {
  const transport = rpcTransport(rpcUrl);
  const chainId = Number(BigInt((await transport({}).request({ method: 'eth_chainId' })) as string));
  return { transport, network: evmNetworkOf(chainId, usdc) };
}
