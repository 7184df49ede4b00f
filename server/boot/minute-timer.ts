import type { Engine } from '../core/engine.js';

/** How often what is due is looked for. */
export const MINUTE_TIMER_INTERVAL_MS = 60_000;

/**
 * The engine's clock for what comes due while nobody asks: every minute (and soon after start, for
 * what came due while Coffer was not running) requests nobody decided in time expire (a held
 * payment's budget is free again), the owner is told of policies ending within a day, and the
 * scheduled backups that are due are written. Runs never overlap; stop() waits for one under way,
 * so the ledger is not closed beneath it.
 */
export function startMinuteTimer(engine: Engine, log: (message: string) => void, intervalMs = MINUTE_TIMER_INTERVAL_MS) {
  let running: Promise<void> | null = null;
  const tick = () => {
    // Each job on its own: one that fails is said, and neither keeps the other from running.
    running ??= Promise.resolve()
      .then(() => engine.expireWaiting())
      .catch((error: unknown) => log(`expiring requests nobody decided failed: ${String(error)}`))
      .then(() => engine.remindOfExpiries())
      .catch((error: unknown) => log(`telling the owner of policies that end failed: ${String(error)}`))
      .then(() => engine.runDueBackups())
      .then(({ failed }) => {
        if (failed > 0) log('a scheduled backup failed: GET /v1/backup (or the Back up page) says why; it is tried again within the hour');
      })
      .catch((error: unknown) => log(`the scheduled backups could not be looked at: ${String(error)}`))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const first = setTimeout(() => void tick(), Math.min(5_000, intervalMs));
  const timer = setInterval(() => void tick(), intervalMs);
  first.unref();
  timer.unref();
  return {
    tick,
    stop: async () => {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
