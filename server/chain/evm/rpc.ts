/**
 * An EVM JSON-RPC as Coffer reaches it: one retry, 15 s a call; and the network its node says it
 * is, by the chain id it answers now (never by its URL: networks.ts).
 */
import { custom, http, type CustomTransport, type HttpTransport } from 'viem';
import { CofferError } from '../../wire/errors.js';
import { evmNetworkOf, type EvmNetwork } from './networks.js';

/** The transport for an EVM JSON-RPC. */
export const rpcTransport = (rpcUrl: string): HttpTransport => http(rpcUrl, { retryCount: 1, timeout: 15_000 });

/** An EVM JSON-RPC and its network: a known one's USDC (`usdc` must agree), or `usdc` for another chain. */
export async function evmRpcAt(rpcUrl: string, usdc: string | undefined): Promise<{ transport: HttpTransport; network: EvmNetwork }> {
  const transport = rpcTransport(rpcUrl);
  const chainId = Number(BigInt((await transport({}).request({ method: 'eth_chainId' })) as string));
  return { transport, network: evmNetworkOf(chainId, usdc) };
}

/**
 * The transport for an EVM JSON-RPC that did not answer its chain id when the rail opened (a node
 * away at Coffer's start): the chain it serves is asked before its first question goes through, and
 * asked again while it does not answer. A node that answers another chain than `expected` has
 * nothing asked of it, ever (security invariant: nothing signed for one chain goes to another, and
 * no balance of another chain is taken for the rail's); each question is refused with
 * `mismatch(served)`, its words.
 */
export function chainCheckedTransport(rpcUrl: string, expected: number, mismatch: (served: number) => string): CustomTransport {
  const inner = rpcTransport(rpcUrl)({});
  let checked: Promise<void> | null = null;
  const check = () =>
    (checked ??= (async () => {
      const served = Number(BigInt((await inner.request({ method: 'eth_chainId' })) as string));
      if (served !== expected) throw new CofferError('chain_unavailable', mismatch(served));
    })().catch((error: unknown) => {
      // Not answered: asked again by the next question. Answered for another chain: refused for good.
      if (!(error instanceof CofferError)) checked = null;
      throw error;
    }));
  return custom(
    {
      async request(args: { method: string; params?: unknown }) {
        await check();
        return inner.request(args as Parameters<typeof inner.request>[0]);
      },
    },
    { retryCount: 0 },
  );
}
