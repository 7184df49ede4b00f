import { createDefaultRpcTransport, createSolanaRpcFromTransport, getSolanaErrorFromJsonRpcError, type RpcTransport } from '@solana/kit';

/**
 * A Solana JSON-RPC client of an RPC URL (devnet, mainnet, a provider's), as kit's createSolanaRpc
 * makes it, save for one thing: an error answer whose code @solana/errors does not know (a
 * provider's own, such as 429 for "too many requests") is thrown in the RPC's own words. kit 8.4
 * throws "Cannot read properties of undefined (reading 'length')" for those, building its message,
 * and that is what the owner and the agent would be told the chain said.
 */
export function clusterRpc(url: string) {
  return createSolanaRpcFromTransport(saidInItsWords(createDefaultRpcTransport({ url })));
}

/** An RPC's error answer in its own words ("error 429: Too many requests"): it was reached, and refused. */
export class RpcAnswered extends Error {}

function saidInItsWords(transport: RpcTransport): RpcTransport {
  return async <T>(config: Parameters<RpcTransport>[0]): Promise<T> => {
    const answer = await transport<T>(config);
    const error = (answer as { error?: unknown } | null)?.error;
    if (error !== null && typeof error === 'object') {
      try {
        getSolanaErrorFromJsonRpcError(error);
      } catch (unreadable) {
        const { code, message } = error as { code?: unknown; message?: unknown };
        throw new RpcAnswered(`error ${String(code)}: ${typeof message === 'string' ? message : 'no message'}`, { cause: unreadable });
      }
    }
    return answer;
  };
}
