import type { OpenedCoffer } from '../server/boot/open-coffer.js';
import type { RunningServer } from '../server/boot/http-server.js';
import { removeConnectionFile } from '../server/boot/connection-file.js';
import type { DesktopContext } from './desktop-context.js';
import type { BalanceRefresh } from './desktop-tray.js';
import type { TrayController } from './tray-controller.js';

/** Quitting waits this long for in-flight payments and the ledger to close, then exits anyway. */
export const QUIT_DEADLINE_MS = 20_000;

/** What runs while Coffer does, stopped on the way out. */
export interface RunningParts {
  tray: Pick<TrayController, 'now'>;
  /** Stops listening to the engine's events. */
  unsubscribe(): void;
  balanceRefresh: Pick<BalanceRefresh, 'stop'>;
  server: Pick<RunningServer, 'stop'>;
  chainWatch: { stop(): Promise<void> };
  coffer: Pick<OpenedCoffer, 'close'>;
  connectionFile: string;
}

/**
 * Every quit waits for the graceful stop: in-flight payments finish, SQLite closes; but never
 * longer than the deadline. The menu says "Stopping…" meanwhile.
 */
export function stopGracefullyOnQuit(context: DesktopContext, running: RunningParts): void {
  const { electron, deps, log } = context;
  const { timers } = deps;
  electron.app.on('before-quit', (event) => {
    event.preventDefault();
    if (context.quitting) return;
    context.quitting = true;
    running.tray.now();
    running.unsubscribe();
    running.balanceRefresh.stop();
    const deadline = timers.setTimeout(() => {
      log(`coffer: stopping took more than ${QUIT_DEADLINE_MS / 1000} s; quitting anyway (pending payments are settled at the next start)`);
      context.exit(context.exitCode);
    }, QUIT_DEADLINE_MS);
    void running.server
      .stop()
      .then(() => running.chainWatch.stop())
      .then(() => running.coffer.close())
      .then(() => removeConnectionFile(running.connectionFile, process.pid))
      .catch((error: unknown) => log(`coffer: while stopping: ${(error as Error).message}`))
      .finally(() => {
        timers.clearTimeout(deadline);
        context.exit(context.exitCode);
      });
  });
}
