import { BaseError } from 'viem';
import { CofferError } from '../../wire/errors.js';

/**
 * A node that did not answer, said in one short line: viem's own message carries the whole request
 * (URL, body, version) over several lines, which a log or a refusal should not.
 */
export function nodeUnanswered(network: string, what: string, error: unknown): CofferError {
  const why =
    error instanceof BaseError
      ? `${error.shortMessage.replace(/\.$/, '')}${error.details && error.details !== error.shortMessage ? ` (${error.details})` : ''}`
      : (error as Error).message;
  return new CofferError('chain_unavailable', `the ${network} node did not answer ${what}: ${why}`, { cause: error });
}
