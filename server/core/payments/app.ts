/**
 * Payments: an agent pays. Read this first. pay.ts (the /pay door: a registry service or any
 * recipient), x402-pay.ts (a seller's x402 offer, signed for the seller to send; the entry and rail
 * it is paid on chosen by x402-entry.ts), x402-sign-in.ts
 * (Sign-In-With-X where the agent paid before), held.ts (a payment held for the owner's yes, paid once
 * approved), chain-lookup.ts (a transfer read off the chain, for a paid API checking a receipt).
 * Every payment is judged in the one order of judge.ts, moved by move.ts through the one transfer
 * lifecycle (transfers/lifecycle.ts), refused by refusals.ts's decisions (written down by
 * refusal-log.ts), and answered by payment-result.ts. Whom a payment may go to, at every door, is
 * paid-to.ts's; which of an x402 offer's entries Coffer pays on a rail (shared with the Bazaar's
 * listing), x402-payable.ts's. A held payment the owner approves is paid by
 * held.ts payHeld; the approvals reach it through generation/app.ts, which pays one that buys an image
 * together with its task.
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { PayBody, X402PayBody, X402SignInBody } from '../../wire/schemas.js';
import { pay, spendHistory } from './pay.js';
import { payX402, reportX402Settlement } from './x402-pay.js';
import { signInX402 } from './x402-sign-in.js';
import { lookupTransfer } from './chain-lookup.js';
import { interruptedPayment } from './held.js';
import { beforeHeldPaymentYes as checkBeforeYes } from './paid-before-restore.js';
import type { ApprovalCarriers } from '../approvals/carriers.js';

export const paymentsApp = (ctx: EngineContext) => ({
  pay: (p: Principal, agentId: string, body: PayBody, idempotencyKey: string | null) => pay(ctx, p, agentId, body, idempotencyKey),
  payX402: (p: Principal, agentId: string, body: X402PayBody, idempotencyKey: string | null) =>
    payX402(ctx, p, agentId, body, idempotencyKey),
  reportX402Settlement: (p: Principal, agentId: string, paymentId: string, headers: Record<string, string>) =>
    reportX402Settlement(ctx, p, agentId, paymentId, headers),
  signInX402: (p: Principal, agentId: string, body: X402SignInBody) => signInX402(ctx, p, agentId, body),
  spendHistory: (p: Principal, agentId: string, limit?: number) => spendHistory(ctx, p, agentId, limit),
  lookupTransfer: (txSignature: string) => lookupTransfer(ctx, txSignature),
});

/** Before the owner's yes to a held payment: one the Coffer before a restore may have paid is looked for first. */
export const beforeHeldPaymentYes: ApprovalCarriers['beforePaymentYes'] = (ctx, approval) => checkBeforeYes(ctx, approval);

/** A held payment's approval a stopped process was carrying out: paid or not, read from its row. */
export const interruptedHeldPayment: ApprovalCarriers['interruptedPayment'] = (ctx, approval) => interruptedPayment(ctx, approval);
