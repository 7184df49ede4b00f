import { BaseError } from 'viem';
import { CofferError } from '../../wire/errors.js';

/**
 * Why a node call failed, in one short line: viem's own message carries the whole request (URL,
 * body, a signed transaction, version) over several lines, which a log or a refusal should not.
 */
export function nodeErrorWords(error: unknown): string {
  if (!(error instanceof BaseError)) return (error as Error).message;
  const short = error.shortMessage.replace(/\.$/, '');
  return error.details && error.details !== error.shortMessage ? `${short} (${error.details})` : short;
}

/** A node that did not answer `what`, said in one short line. */
export function nodeUnanswered(network: string, what: string, error: unknown): CofferError {
  return new CofferError('chain_unavailable', `the ${network} node did not answer ${what}: ${nodeErrorWords(error)}`, { cause: error });
}
