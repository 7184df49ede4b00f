/**
 * An EVM JSON-RPC as Coffer reaches it: one retry, 15 s a call; and the network its node says it
 * is, by the chain id it answers now (never by its URL: networks.ts).
 */
import { custom, http, type CustomTransport, type HttpTransport } from 'viem';
import { CofferError } from '../../wire/errors.js';
import { nodeErrorWords } from './node-errors.js';
import { evmNetworkOf, type EvmNetwork } from './networks.js';

/** The transport for an EVM JSON-RPC. */
export const rpcTransport = (rpcUrl: string): HttpTransport => http(rpcUrl, { retryCount: 1, timeout: 15_000 });

/**
 * An EVM JSON-RPC and its network: a known one's USDC (`usdc` must agree), or `usdc` for another chain.
 * A node that does not answer its chain id is refused `chain_unavailable` in one line (viem's message
 * names the URL, and a hosted RPC's URL carries its key).
 */
export async function evmRpcAt(rpcUrl: string, usdc: string | undefined): Promise<{ transport: HttpTransport; network: EvmNetwork }> {
  const transport = rpcTransport(rpcUrl);
  let answer: unknown;
  try {
    answer = await transport({}).request({ method: 'eth_chainId' });
  } catch (error) {
    throw new CofferError('chain_unavailable', `the EVM RPC did not answer which chain it serves: ${nodeErrorWords(error)}`, {
      cause: error,
    });
  }
  return { transport, network: evmNetworkOf(Number(BigInt(answer as string)), usdc) };
}

/** How long a node that did not answer its chain id is taken as away before it is asked again. */
const ASKED_AGAIN_AFTER_MS = 10_000;

/**
 * The transport for an EVM JSON-RPC that did not answer its chain id when the rail opened (a node
 * away at Coffer's start, `unanswered` the words of its failure then): the chain it serves is asked
 * before its first question goes through. Until it answers, each question is refused as it was, the
 * node asked again at most every ASKED_AGAIN_AFTER_MS by `now` (a node that takes questions and goes
 * quiet costs its client's timeouts once, not once a question: a start's reconcile asks one a
 * pending row). A node that answers another chain than `expected` has nothing asked of it, ever
 * (security invariant: nothing signed for one chain goes to another, and no balance of another
 * chain is taken for the rail's): each question is refused with `mismatch(served)`, its words.
 */
export function chainCheckedTransport(
  rpcUrl: string,
  expected: { name: string; chainId: number },
  mismatch: (served: number) => string,
  unanswered: string,
  now: () => number = Date.now,
): CustomTransport {
  const inner = rpcTransport(rpcUrl)({});
  const awayFor = (words: string, cause?: unknown) => ({
    refusal: new CofferError('chain_unavailable', `the ${expected.name} node did not answer which chain it serves: ${words}`, { cause }),
    since: now(),
  });
  let away: { refusal: CofferError; since: number } | null = awayFor(unanswered);
  let wrongChain: CofferError | null = null;
  let asking: Promise<void> | null = null;
  let checked = false;
  const ask = async () => {
    let served: number;
    try {
      served = Number(BigInt((await inner.request({ method: 'eth_chainId' })) as string));
    } catch (error) {
      away = awayFor(nodeErrorWords(error), error);
      throw away.refusal;
    }
    away = null;
    if (served !== expected.chainId) throw (wrongChain = new CofferError('chain_unavailable', mismatch(served)));
    checked = true;
  };
  const check = async () => {
    if (checked) return;
    if (wrongChain !== null) throw wrongChain;
    // A clock set back (a host's time corrected) ends the wait, rather than making it last as long.
    if (away !== null) {
      const waited = now() - away.since;
      if (waited >= 0 && waited < ASKED_AGAIN_AFTER_MS) throw away.refusal;
    }
    await (asking ??= ask().finally(() => (asking = null)));
  };
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
