/**
 * What a payment answers with, whatever its door: its state and the receipt the agent sends as
 * `X-Payment` (server/wire/receipts.ts), proved by the agent's own key.
 */
import bs58 from 'bs58';
import type { EngineContext } from '../context.js';
import { formatUsdc } from '../../wire/money.js';
import { iso } from '../../wire/views.js';
import { baseReceiptProofMessage, encodeBaseReceipt, encodeReceipt, receiptProofMessage } from '../../wire/receipts.js';
import { addressOn, chainOf } from '../rails.js';
import type { AgentRecord, PaymentRecord } from '../ports/store.js';
import type { Payment } from '../../wire/answers/payments.js';

export async function paymentResult(ctx: EngineContext, payment: PaymentRecord, agent: AgentRecord): Promise<Payment> {
  if (payment.rail === 'base') return basePaymentResult(ctx, payment, agent);
  const claims = {
    v: 1 as const,
    network: ctx.chain.network,
    txSignature: payment.txSignature ?? '',
    amount: formatUsdc(payment.amount),
    currency: 'USDC' as const,
    timestamp: iso(payment.createdAt),
    recipient: payment.recipient,
    payer: agent.walletAddress,
    paymentId: payment.id,
    memo: payment.memo,
  };
  // Ed25519 is deterministic: a replayed payment gets the very same receipt.
  const proof = bs58.encode(await ctx.vault.signMessage(agent.walletAddress, receiptProofMessage(claims)));
  const receipt = { ...claims, proof };
  return {
    paymentId: payment.id,
    txSignature: receipt.txSignature,
    amount: receipt.amount,
    currency: receipt.currency,
    status: payment.status,
    timestamp: receipt.timestamp,
    xPaymentHeader: encodeReceipt(receipt),
    service: payment.serviceId,
    recipient: payment.recipient,
    payer: agent.walletAddress,
    memo: payment.memo,
    network: ctx.chain.network,
    rail: 'sol',
  };
}

/** A payment on Base: its receipt names the rail, the chain's id and the transaction's hash, proved by the agent's Base account. */
async function basePaymentResult(ctx: EngineContext, payment: PaymentRecord, agent: AgentRecord): Promise<Payment> {
  const chain = chainOf(ctx, 'base');
  const payer = addressOn(ctx, agent.walletAddress, 'base');
  const claims = {
    v: 1 as const,
    rail: 'base' as const,
    network: chain.network,
    chainId: chain.chainId ?? 0,
    txSignature: payment.txSignature ?? '',
    amount: formatUsdc(payment.amount),
    currency: 'USDC' as const,
    timestamp: iso(payment.createdAt),
    recipient: payment.recipient,
    payer,
    paymentId: payment.id,
    memo: payment.memo,
  };
  // EIP-191 with RFC 6979 nonces is deterministic too: a replayed payment gets the very same receipt.
  const proof = await ctx.vault.signEvmMessage(payer, baseReceiptProofMessage(claims));
  return {
    paymentId: payment.id,
    txSignature: claims.txSignature,
    amount: claims.amount,
    currency: claims.currency,
    status: payment.status,
    timestamp: claims.timestamp,
    xPaymentHeader: encodeBaseReceipt({ ...claims, proof }),
    service: payment.serviceId,
    recipient: payment.recipient,
    payer,
    memo: payment.memo,
    network: chain.network,
    rail: 'base',
  };
}
