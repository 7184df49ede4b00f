import type { Engine } from '../core/engine.js';

/** How often due scheduled backups are looked for. */
export const BACKUP_CHECK_INTERVAL_MS = 60_000;

/**
 * The scheduled backups' clock: every minute (and soon after start, for one that came due while
 * Coffer was not running) the engine writes those that are due. Runs never overlap; stop() waits for
 * one under way, so the ledger is not closed beneath it.
 */
export function startBackupTimer(engine: Engine, log: (message: string) => void, intervalMs = BACKUP_CHECK_INTERVAL_MS) {
  let running: Promise<void> | null = null;
  const tick = () => {
    running ??= engine
      .runDueBackups()
      .then(({ failed }) => {
        if (failed > 0) log('a scheduled backup failed: GET /v1/backup (or the Back up page) says why; it is tried again within the hour');
      })
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
