import { CofferError } from '../../wire/errors.js';
import { isTransactionSignature } from '../../wire/rails.js';
import type { EngineContext } from '../context.js';
import type { TransferFound } from '../ports/chain.js';
import type { ChainTransfer, TransactionLookup } from '../../wire/answers/chain.js';

const transferView = (transfer: TransferFound): ChainTransfer => ({
  txSignature: transfer.txSignature,
  succeeded: transfer.succeeded,
  error: transfer.error,
  from: transfer.from,
  to: transfer.to,
  toTokenAccount: transfer.toTokenAccount,
  mint: transfer.mint,
  amount: transfer.amount.toString(),
  memo: transfer.memo,
  blockTime: transfer.blockTime,
  slot: transfer.slot === null ? null : transfer.slot.toString(),
});

/**
 * Reads one USDC transfer off the chain Coffer holds. What a block explorer would show: public chain
 * data, so it needs no key. Paid APIs on the sim network verify receipts with it.
 */
export async function lookupTransfer(ctx: EngineContext, txSignature: string): Promise<TransactionLookup> {
  if (!isTransactionSignature(txSignature)) throw new CofferError('invalid_signature', 'not a transaction signature (base58, 64 bytes)');
  const transfer = await ctx.chain.findTransfer(txSignature);
  if (transfer === null) throw new CofferError('transaction_not_found', `no USDC transfer ${txSignature} on ${ctx.chain.network}`);
  return { network: ctx.chain.network, usdcMint: ctx.chain.usdc, transfer: transferView(transfer) };
}
