import { BaseError, ContractFunctionRevertedError } from 'viem';
import { CofferError } from '../../wire/errors.js';

/**
 * Why the token refused an EIP-3009 transfer, read the same way on every EVM chain (Circle's USDC and
 * Coffer's test USDC share their revert reasons; OpenZeppelin's token reports a short balance as a
 * custom error): the paying wallet short of USDC is 402 insufficient_funds; an authorization past its
 * end is `transaction_expired` (it never moved money and never will: `dropped`); one already used is
 * `used` (the caller finds where it landed); any other revert is the chain's refusal. Null when the
 * error is no revert at all (the node could not be asked).
 */
export function authorizationRefusal(error: unknown): CofferError | 'used' | null {
  const revert = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : null;
  if (!(revert instanceof ContractFunctionRevertedError)) return null;
  const reason = revert.reason ?? revert.data?.errorName ?? revert.shortMessage;
  if (revert.data?.errorName === 'ERC20InsufficientBalance' || /transfer amount exceeds balance/.test(reason)) {
    return new CofferError('insufficient_funds', 'the paying wallet does not hold enough USDC');
  }
  if (/authorization is expired/.test(reason)) return new CofferError('transaction_expired', 'the authorization expired before it landed');
  if (/authorization is used or canceled/.test(reason)) return 'used';
  return new CofferError('chain_rejected', `the token refused the transfer: ${reason}`);
}
