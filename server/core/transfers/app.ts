/**
 * Transfers: the one lifecycle of every move of money (a payment, an x402 payment, an allocation, a
 * return, a faucet mint, a refund). Read lifecycle.ts first: it orders the steps every door's move
 * takes (sign, reserve and record in one write, submit, settle). reconcile.ts settles what a stopped
 * process left pending, against the chain; seller-sent.ts settles a move the seller sends (x402).
 */
import type { EngineContext } from '../context.js';
import { reconcilePending } from './reconcile.js';
import type { Rail } from '../../wire/rails.js';

export const transfersApp = (ctx: EngineContext) => ({
  /** Settles every move left pending against the chain, on these rails (at start, and every 15 s by the chain watch: boot/chain-watch.ts). */
  reconcile: (rails?: readonly Rail[]) => reconcilePending(ctx, rails),
});
