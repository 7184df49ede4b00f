import { BaseError } from 'viem';
import { CofferError } from '../../wire/errors.js';

/**
 * Why a node call failed, in one short line: viem's own message carries the whole request (URL,
 * body, a signed transaction, version) over several lines, which a log or a refusal should not.
 */
export function nodeErrorWords(error: unknown): string {
  const refusal = cofferRefusalIn(error);
  if (refusal !== null) return refusal.message;
  if (!(error instanceof BaseError)) return (error as Error).message;
  // Some of viem's short messages span two lines ("Missing or invalid parameters.\nDouble check …").
  const short = error.shortMessage.replace(/\s*\n\s*/g, ' ').replace(/\.$/, '');
  return error.details && error.details !== error.shortMessage ? `${short} (${error.details})` : short;
}

/** A node that did not answer `what`, said in one short line; Coffer's own refusal (rpc.ts: a node of another chain) as it is. */
export function nodeUnanswered(network: string, what: string, error: unknown): CofferError {
  const refusal = cofferRefusalIn(error);
  if (refusal !== null) return refusal;
  return new CofferError('chain_unavailable', `the ${network} node did not answer ${what}: ${nodeErrorWords(error)}`, { cause: error });
}

/** A refusal of Coffer's own that viem wrapped on its way out of a transport (its causes, a few deep). */
export function cofferRefusalIn(error: unknown): CofferError | null {
  let cause = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth += 1) {
    if (cause instanceof CofferError) return cause;
    cause = cause.cause;
  }
  return null;
}

/**
 * An RPC's URL as a message may name it: its origin only. A hosted RPC's key rides in the path
 * (`/v2/<key>`) or the query (`?apikey=`), never to be logged or answered.
 */
export function rpcOrigin(rpcUrl: string): string {
  try {
    return new URL(rpcUrl).origin;
  } catch {
    return 'an RPC URL that does not parse';
  }
}
