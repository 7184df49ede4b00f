import type { OpenedCoffer } from './open-coffer.js';

export const CHAIN_WATCH_INTERVAL_MS = 15_000;

/**
 * Every 15 s: record USDC that arrived in the treasury from outside (on each rail read from an RPC),
 * settle payments still pending because the chain could not confirm them earlier, and carry on the
 * image generations they paid for. Runs never overlap; a failing round (RPC down) is logged once per
 * outage and retried on the next tick.
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
  let failing = false;
  const tick = () => {
    running ??= (async () => {
      try {
        const deposits = await coffer.engine.pollDeposits(coffer.owner);
        if (deposits > 0) log(`recorded ${deposits} new deposit(s) to the treasury`);
        await coffer.engine.reconcile();
        // Work paid for while the chain was away is started now that its payment is known.
        coffer.engine.resumeTasks({ retryFailedRefunds: false });
        if (failing) log('chain watch: the RPC answers again');
        failing = false;
      } catch (error) {
        if (!failing) log(`chain watch: ${(error as Error).message} (will retry every ${intervalMs / 1000} s)`);
        failing = true;
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
