import type { OpenedCoffer } from './open-coffer.js';
import { RAILS, type Rail } from '../wire/rails.js';
import { railName } from '../wire/rail-words.js';

export const CHAIN_WATCH_INTERVAL_MS = 15_000;

/**
 * Every 15 s: record USDC that arrived in the treasury from outside (on each rail read from an RPC),
 * settle payments still pending because the chain could not confirm them earlier, and carry on the
 * image generations they paid for. Each rail is a round of its own, and a rail's rounds never
 * overlap: a rail whose node is away, or takes questions and goes quiet, holds back nothing on the
 * other. What fails is logged once per outage, and retried on that rail's next tick.
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
  // The rails that leave something to watch: one read from an RPC, or the embedded Base chain.
  const watched = RAILS.filter((rail) => (rail === 'sol' ? !coffer.chain.isSim : coffer.base !== null));
  if (watched.length === 0) return { stop: async () => undefined, tick: async () => undefined };
  // What could not be done (a rail's RPC, the settling of what is pending there), said once an outage.
  const failing = new Set<string>();
  const outcome = (what: string, error: unknown) => {
    if (error === null) {
      if (failing.delete(what)) log(`chain watch: ${what} answers again`);
    } else if (!failing.has(what)) {
      failing.add(what);
      log(`chain watch: ${what}: ${error instanceof Error ? error.message : String(error)} (will retry every ${intervalMs / 1000} s)`);
    }
  };
  const round = async (rail: Rail) => {
    const name = railName(rail);
    try {
      const { recorded, unread } = await coffer.engine.pollDeposits(coffer.owner, [rail]);
      if (recorded > 0) log(`recorded ${recorded} new deposit(s) to the treasury on ${name}`);
      outcome(`${name}'s RPC`, unread[0]?.error ?? null);
    } catch (error) {
      outcome(`reading deposits on ${name}`, error);
    }
    try {
      await coffer.engine.reconcile([rail]);
      // Work paid for while the chain was away is started now that its payment is known.
      coffer.engine.resumeTasks({ retryFailedRefunds: false });
      outcome(`settling what is pending on ${name}`, null);
    } catch (error) {
      outcome(`settling what is pending on ${name}`, error);
    }
  };
  const running = new Map<Rail, Promise<void>>();
  const tick = () =>
    Promise.all(
      watched.map((rail) => {
        let current = running.get(rail);
        if (current === undefined) {
          current = round(rail).finally(() => running.delete(rail));
          running.set(rail, current);
        }
        return current;
      }),
    ).then(() => undefined);
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return {
    tick,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
