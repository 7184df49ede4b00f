import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { CofferError } from '../../wire/errors.js';
import type { RpcTransactionError } from './sim/transaction-errors.js';

/** The SPL Token program's error 1 (TokenError::InsufficientFunds). */
const TOKEN_INSUFFICIENT_FUNDS = 1;

/**
 * Why a Coffer transfer failed, read the same way on every chain: the token program's "insufficient
 * funds" at the transfer's own instruction is the paying wallet short of USDC (402
 * insufficient_funds); anything else, at any other instruction (a fee payer short of SOL for a new
 * account's rent is the system program's error 1 inside the account creation), is the chain's
 * refusal (chain_rejected). `err` is the JSON-RPC shape of the error, as both chains give it.
 */
export function transferRefusal(err: RpcTransactionError, txWire: string, description: string): CofferError {
  const instructionError = typeof err === 'object' ? err.InstructionError : undefined;
  if (Array.isArray(instructionError)) {
    const [index, cause] = instructionError as [unknown, unknown];
    const custom = typeof cause === 'object' && cause !== null ? (cause as { Custom?: unknown }).Custom : undefined;
    if (custom === TOKEN_INSUFFICIENT_FUNDS && index === tokenInstructionIndex(txWire)) {
      return new CofferError('insufficient_funds', 'the paying wallet does not hold enough USDC');
    }
  }
  return new CofferError('chain_rejected', `the transaction failed on chain: ${description}`);
}

/** Where the token program's instruction (the TransferChecked) sits in a transaction: after the account creation, when there is one. */
function tokenInstructionIndex(txWire: string): number | null {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(txWire));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  if (!('instructions' in message)) return null;
  const index = message.instructions.findIndex(
    (instruction) => message.staticAccounts[instruction.programAddressIndex] === TOKEN_PROGRAM_ADDRESS,
  );
  return index < 0 ? null : index;
}
