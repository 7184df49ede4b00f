import type { OpenedCoffer } from './open-coffer.js';
import { RAILS } from '../wire/rails.js';
import { railName } from '../wire/rail-words.js';

export const CHAIN_WATCH_INTERVAL_MS = 15_000;

/**
 * Every 15 s: record USDC that arrived in the treasury from outside (on each rail read from an RPC),
 * settle payments still pending because the chain could not confirm them earlier, and carry on the
 * image generations they paid for. Runs never overlap; what fails (a rail's RPC down) is logged once
 * per outage, retried on the next tick, and holds back nothing else.
 * The embedded Solana chain alone needs none of it: it decides a transfer as it is sent. The embedded
 * Base chain leaves some pending: an x402 payment whose seller has not settled it (nor said so), and
 * a transfer that reverted in its block while its authorization can still run (evm/chain.ts
 * submitTransfer). Each is settled here once the chain says what became of it, or dropped once its
 * authorization has ended, giving its budget back.
 */
export function startChainWatch(
  coffer: OpenedCoffer,
  log: (message: string) => void,
  intervalMs = CHAIN_WATCH_INTERVAL_MS,
): { stop(): Promise<void>; tick(): Promise<void> } {
  let running: Promise<void> | null = null;
  // What could not be read (a rail's node, or the settling of what is pending), said once an outage.
  const failing = new Set<string>();
  const outcome = (what: string, error: Error | null) => {
    if (error === null) {
      if (failing.delete(what)) log(`chain watch: ${what} answers again`);
    } else if (!failing.has(what)) {
      failing.add(what);
      log(`chain watch: ${what}: ${error.message} (will retry every ${intervalMs / 1000} s)`);
    }
  };
  const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));
  // Each part on its own: one rail's node away holds back neither the other rail's deposits nor the
  // settling of what is pending (reconcile.ts asks each row's own chain, and leaves a row pending
  // where its chain cannot be asked).
  const tick = () => {
    running ??= (async () => {
      try {
        const { recorded, unread } = await coffer.engine.pollDeposits(coffer.owner);
        if (recorded > 0) log(`recorded ${recorded} new deposit(s) to the treasury`);
        for (const rail of RAILS) outcome(`${railName(rail)}'s RPC`, unread.find((each) => each.rail === rail)?.error ?? null);
      } catch (error) {
        outcome('reading deposits', asError(error));
      }
      try {
        await coffer.engine.reconcile();
        // Work paid for while the chain was away is started now that its payment is known.
        coffer.engine.resumeTasks({ retryFailedRefunds: false });
        outcome('settling what is pending', null);
      } catch (error) {
        outcome('settling what is pending', asError(error));
      }
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const nothingLeftPending = coffer.chain.isSim && coffer.base === null;
  if (nothingLeftPending) return { stop: async () => undefined, tick: async () => undefined };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return {
    tick,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
