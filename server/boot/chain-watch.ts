import type { OpenedCoffer } from './open-coffer.js';

export const CHAIN_WATCH_INTERVAL_MS = 15_000;

/**
 * On RPC networks, every 15 s: record USDC that arrived in the treasury from outside (on each rail
 * read from an RPC), settle
 * payments still pending because the chain could not confirm them earlier, and carry on the image
 * generations they paid for. Runs never overlap; a
 * failing round (RPC down) is logged once per outage and retried on the next tick.
 * The embedded chains need neither: nothing outside the process sends to them, and they decide a
 * transaction as it is sent, but for one case: a Base transfer that reverted in its block while its
 * authorization can still run stays pending (evm/chain.ts submitTransfer) until the next start's
 * reconciliation, or a later one asked of it.
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
  const embeddedOnly = coffer.chain.isSim && (coffer.base === null || coffer.base.chain.isSim);
  if (embeddedOnly) return { stop: async () => undefined, tick: async () => undefined };
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
