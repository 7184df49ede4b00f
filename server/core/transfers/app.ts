/**
 * Transfers: the one lifecycle of every move of money (a payment, an x402 payment, an allocation, a
 * return, a faucet mint, a refund). Read lifecycle.ts first: it orders the steps every door's move
 * takes (sign, reserve and record in one write, submit, settle). reconcile.ts settles what a stopped
 * process left pending, against the chain; seller-sent.ts settles a move the seller sends (x402).
 */
import type { EngineContext } from '../context.js';
import { reconcilePending } from './reconcile.js';

export const transfersApp = (ctx: EngineContext) => ({
  /** Settles every move left pending against the chain (at start, and every 15 s by the chain watch: boot/chain-watch.ts). */
  reconcile: () => reconcilePending(ctx),
});
