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
 * longer than the deadline. The menu says "Stopping…" meanwhile. On Windows a shutdown, restart or
 * log-off runs the same stop (see watchSessionEnd).
 */
export function stopGracefullyOnQuit(context: DesktopContext, running: RunningParts): void {
  const stop = gracefulStop(context, running);
  context.electron.app.on('before-quit', (event) => {
    event.preventDefault();
    stop();
  });
  if (context.deps.platform === 'win32') watchSessionEnd(context, stop);
}

/** The graceful stop, begun once (later calls do nothing); then the exit, with the context's code. */
function gracefulStop(context: DesktopContext, running: RunningParts): () => void {
  const { deps, log } = context;
  const { timers } = deps;
  return () => {
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
  };
}

/**
 * Windows emits no before-quit, will-quit or quit on a shutdown, restart or log-off (Electron's app
 * docs): it asks each top-level window instead (WM_QUERYENDSESSION, then WM_ENDSESSION), which
 * Electron gives a BrowserWindow as `query-session-end` and `session-end`. Coffer mostly has no window
 * open, so a hidden one of its own, never shown and loading nothing, listens. The ask begins the
 * graceful stop and holds the session (preventDefault: Windows lists Coffer as preventing the
 * shutdown) until the payments in flight are done and the ledger is closed, which ends the app and so
 * lets the session go on; the stop's deadline bounds the wait. Once the session ends regardless (the
 * owner chose "shut down anyway"), the stop is begun if it was not; what it leaves pending is settled
 * at the next start.
 */
function watchSessionEnd(context: DesktopContext, stop: () => void): void {
  const { electron, log } = context;
  const watcher = new electron.BrowserWindow({
    show: false,
    width: 1,
    height: 1,
    skipTaskbar: true,
    webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false },
  });
  watcher.on('query-session-end', (event) => {
    log(`coffer: Windows is ending the session (${event.reasons.join(', ')}): stopping`);
    stop();
    // Held while the stop runs: the exit at its end lets the session go on.
    event.preventDefault();
  });
  watcher.on('session-end', (event) => {
    log(`coffer: the session ends (${event.reasons.join(', ')})`);
    stop();
  });
}
