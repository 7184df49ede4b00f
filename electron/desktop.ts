import { announceConnection } from '../server/boot/connection-file.js';
import type { ElectronApi } from './electron-api.js';
import { setAppMenu } from './app-menu.js';
import { createAutostart } from './autostart.js';
import { createDashboardOpener } from './dashboard-opener.js';
import { createDesktopContext, StartDeclined, type DesktopContext, type DesktopDeps } from './desktop-context.js';
import { openTreasury } from './desktop-engine.js';
import { claimSingleInstance, createRelaunch, offerMoveToApplications, whenAppReady } from './desktop-instance.js';
import { QUIT_DEADLINE_MS, stopGracefullyOnQuit } from './desktop-quit.js';
import { startBalanceRefresh, startDesktopTray } from './desktop-tray.js';
import { createNotifier } from './notifications.js';
import { runSmokeChecks } from './smoke.js';
import { createBalanceCache } from './tray-actions.js';

/**
 * The desktop app: one instance, the engine and the localhost /v1 server in the main process, a tray
 * icon that is the owner's hand on the brake (menu from the ledger, never waiting on the chain),
 * desktop notifications, the dashboard window, start at login, and a quit that lets in-flight payments
 * finish within a deadline. A function of the Electron API (real in main.ts, a fake in the tests).
 */
export function createDesktop(electron: ElectronApi, deps: DesktopDeps) {
  const context = createDesktopContext(electron, deps);
  return { start: () => start(context).catch((error: unknown) => failToStart(context, error)) };
}

/** The start, step by step, in this order. */
async function start(context: DesktopContext): Promise<void> {
  const { electron, deps, log } = context;
  const { app } = electron;
  const relaunch = createRelaunch();
  if (!claimSingleInstance(app, deps.platform, relaunch.launchedAgain)) return;
  // Until the graceful stop is in place, a quit (Cmd+Q, the first start's window closed once the
  // owner chose) waits for the engine to open, so nothing is cut midway; then it runs that stop.
  const opening = holdQuitWhileOpening(context);
  await whenAppReady(app, deps.platform);
  await offerMoveToApplications(context);
  // Before anything shows (the first start's window): no Reload, and Quit where no tray is seen.
  setAppMenu(electron, { platform: deps.platform, stopAll: null, quit: () => app.quit() });
  const { settings, coffer, server, setupWindow, setupClosed } = await openTreasury(context);
  const { engine, owner } = coffer;
  const connectionFile = announceConnection(settings.dataDir, server.url, coffer);
  const chainWatch = deps.startChainWatch(coffer, log);
  // The first start's window, if there was one, shows the dashboard next.
  const dashboard = createDashboardOpener(electron, server, log, setupWindow);
  const open = (route: string) => void dashboard.open(route);
  const autostart = createAutostart(app, { platform: deps.platform, execPath: deps.execPath, env: deps.env, home: deps.home });
  const balances = createBalanceCache(engine, owner);
  const notifier = createNotifier(
    electron.Notification,
    open,
    () => deps.timers.now(),
    () => engine.readSettings({ kind: 'owner', owner }).timeZone,
    (agentId) => engine.ctx.store.getAgent(owner, agentId)?.displayName ?? agentId,
  );
  // Solana always; Base unless this data dir runs with it off (COFFER_BASE_RPC=off).
  const rails = coffer.base === null ? (['sol'] as const) : (['sol', 'base'] as const);
  const { tray, act } = startDesktopTray(context, { engine, owner, rails, balances, autostart, notifier, open });
  setAppMenu(electron, { platform: deps.platform, stopAll: () => act({ kind: 'stop-all' }), quit: () => act({ kind: 'quit' }) });
  const balanceRefresh = startBalanceRefresh(balances, tray, deps.timers);
  const unsubscribe = engine.events.subscribe((event) => {
    tray.update();
    notifier.notify(event);
    balanceRefresh.soon();
  });
  // Launched again while it started: the dashboard it asked for (the first start's window, if any, is it).
  relaunch.ready(open);
  context.trayIcon = tray.tray;
  stopGracefullyOnQuit(context, { tray, unsubscribe, balanceRefresh, server, chainWatch, coffer, connectionFile });
  log(`Coffer ${deps.version} running in the tray; dashboard at ${server.url}`);
  if (opening.release()) return app.quit();

  if (context.smoke) return smokeAndQuit(context, { engine, owner, tray, open: dashboard.open, window: dashboard.window, act });
  // A launch someone made (not at login) opens the dashboard, the first and every later one: where
  // the desktop shows no tray at all (GNOME without the AppIndicator extension), the app would
  // otherwise show nothing and offer no way to quit. A treasury restored (or made) in the setup
  // window is shown in that window; one whose window the owner closed starts in the tray.
  if (setupWindow !== null || (!setupClosed && !autostart.startedAtLogin(deps.argv))) open('#/');
}

/** COFFER_SMOKE=1: the checks (smoke.ts), then the graceful quit, with exit code 1 when one failed. */
async function smokeAndQuit(context: DesktopContext, running: Omit<Parameters<typeof runSmokeChecks>[0], 'timers' | 'say'>): Promise<void> {
  const passed = await runSmokeChecks({ ...running, timers: context.deps.timers, say: context.deps.stdout });
  context.exitCode = passed ? 0 : 1;
  context.electron.app.quit();
}

/** A start that cannot go on says why, in a dialog and the log, and exits 1 (0 when the owner chose to quit). */
function failToStart(context: DesktopContext, error: unknown): void {
  if (error instanceof StartDeclined) return context.exit(0);
  const where = context.desktopLog.file();
  context.log(`coffer: cannot start: ${(error as Error).message}`);
  context.electron.dialog.showErrorBox('Coffer cannot start', `${(error as Error).message}${where ? `\n\nThe log is at ${where}` : ''}`);
  context.exit(1);
}

/**
 * From the start until the graceful stop is in place: closing the last window keeps Coffer running
 * (as it does later, in the tray), and a quit is held and remembered, for as long as a graceful stop
 * may take at most: an open that stalls (a keychain prompt, a slow disk) does not keep the owner
 * from quitting. `release` lets quits through again and says whether one was asked meanwhile.
 */
function holdQuitWhileOpening(context: DesktopContext): { release(): boolean } {
  const { electron, deps, log } = context;
  const { app } = electron;
  let asked = false;
  let deadline: unknown = null;
  app.on('window-all-closed', () => {
    // Closing the window keeps Coffer running (in the tray, once it runs).
  });
  const hold = (event: { preventDefault(): void }) => {
    event.preventDefault();
    asked = true;
    deadline ??= deps.timers.setTimeout(() => {
      log(`coffer: still opening ${QUIT_DEADLINE_MS / 1000} s after a quit; quitting anyway (nothing was paid meanwhile)`);
      context.exit(0);
    }, QUIT_DEADLINE_MS);
  };
  app.on('before-quit', hold);
  return {
    release() {
      app.removeListener('before-quit', hold);
      if (deadline !== null) deps.timers.clearTimeout(deadline);
      return asked;
    },
  };
}
