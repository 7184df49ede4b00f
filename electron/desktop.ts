import type { BrowserWindow } from 'electron';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { openCoffer as OpenCoffer, OpenedCoffer } from '../server/boot/open-coffer.js';
import type { startHttpServer as StartHttpServer, RunningServer } from '../server/boot/http-server.js';
import type { startChainWatch as StartChainWatch } from '../server/boot/chain-watch.js';
import { announceConnection, removeConnectionFile } from '../server/boot/connection-file.js';
import { SimChainUnavailableError } from '../server/chain/load-sim-chain.js';
import type { ServeConfig } from '../server/cli/config.js';
import type { ElectronApi } from './electron-api.js';
import { createAutostart } from './autostart.js';
import { createDesktopLog } from './desktop-log.js';
import { desktopMcpLaunch, installMcpBridge } from './mcp-launch.js';
import { createNotifier } from './notifications.js';
import { runSmokeChecks } from './smoke.js';
import { createBalanceCache, runTrayAction, trayState } from './tray-actions.js';
import { createTrayController, type Timers, type TrayController } from './tray-controller.js';
import type { TrayAction } from './tray-model.js';
import { openDashboardWindow } from './window.js';
import { assertPortFree } from '../server/boot/already-running.js';
import { isFirstStart, startFirstStart } from '../server/boot/first-start.js';

/** The installer's shortcut carries this id; Windows shows notifications only for a matching app id. */
export const APP_ID = 'dev.coffer.desktop';
/** Quitting waits this long for in-flight payments and the ledger to close, then exits anyway. */
export const QUIT_DEADLINE_MS = 20_000;
/** Balances (read from the chain) are read again this often, and soon after anything happens. */
export const BALANCE_REFRESH_MS = 30_000;
const BALANCE_AFTER_EVENT_MS = 2_000;

/** What the desktop app needs besides Electron: the engine's entry points and the machine. */
export interface DesktopDeps {
  platform: NodeJS.Platform;
  argv: string[];
  env: NodeJS.ProcessEnv;
  execPath: string;
  home: string;
  version: string;
  /** The tray icons' folder. */
  icons: string;
  /** The bundled MCP bridge (dist/app/coffer-mcp.mjs). */
  mcpBridge: string;
  resolveConfig(): ServeConfig;
  openCoffer: typeof OpenCoffer;
  startHttpServer: typeof StartHttpServer;
  startChainWatch: typeof StartChainWatch;
  timers: Timers;
  stderr(line: string): void;
  stdout(line: string): void;
}

/** The owner chose to quit instead of starting on another network. */
class StartDeclined extends Error {}

/**
 * The desktop app: one instance, the engine and the localhost /v1 server in the main process, a tray
 * icon that is the owner's hand on the brake (menu from the ledger, never waiting on the chain),
 * desktop notifications, the dashboard window, start at login, and a quit that lets in-flight payments
 * finish within a deadline. A function of the Electron API (real in main.ts, a fake in the tests).
 */
export function createDesktop(electron: ElectronApi, deps: DesktopDeps) {
  const { app, dialog } = electron;
  const { platform, timers } = deps;
  const desktopLog = createDesktopLog(deps.stderr);
  const log = desktopLog.log;
  const smoke = deps.env.COFFER_SMOKE === '1';
  let quitting = false;
  let exited = false;
  /** What the graceful quit ends with: 1 after a failed smoke check. */
  let exitCode = 0;
  /** The tray, once there is one: taken down before the exit (Windows keeps a ghost icon otherwise). */
  let trayIcon: { destroy(): void } | null = null;
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    trayIcon?.destroy();
    app.exit(code);
  };
  /**
   * Coffer launched again (second-instance), or reopened on macOS (activate): the dashboard opens.
   * Listened for from the first moment, so a launch while the engine still opens is not lost: it is
   * kept, and the dashboard opens once it can.
   */
  let openDashboard: ((route: string) => void) | null = null;
  let openAsked = false;
  const launchedAgain = () => {
    if (openDashboard === null) openAsked = true;
    else openDashboard('#/');
  };

  const failToStart = (error: unknown) => {
    if (error instanceof StartDeclined) return exit(0);
    const where = desktopLog.file();
    log(`coffer: cannot start: ${(error as Error).message}`);
    dialog.showErrorBox('Coffer cannot start', `${(error as Error).message}${where ? `\n\nThe log is at ${where}` : ''}`);
    exit(1);
  };

  /** The config: the same as `coffer serve` (flags come as COFFER_* from the launcher); smoke: a throwaway one. */
  const config = (): ServeConfig => {
    const resolved = deps.resolveConfig();
    if (!smoke) return resolved;
    return { ...resolved, dataDir: mkdtempSync(join(tmpdir(), 'coffer-smoke-')), port: 0, keyStore: 'file' };
  };

  async function openEngine(settings: ServeConfig): Promise<{ coffer: OpenedCoffer; server: RunningServer }> {
    // A taken port is refused before the data dir is opened: a start that cannot listen leaves no
    // new treasury behind.
    await assertPortFree(settings.port, settings.dataDir);
    const bridge = installMcpBridge(deps.mcpBridge, settings.dataDir);
    const open = (network: string | undefined) =>
      deps.openCoffer({ ...settings, network, log, mcpLaunch: desktopMcpLaunch(deps.execPath, deps.env, bridge) });
    let coffer: OpenedCoffer;
    try {
      coffer = await open(settings.network);
    } catch (error) {
      if (!(error instanceof SimChainUnavailableError)) throw error;
      // A smoke run has no one to ask: it goes on where the sim chain cannot run (Windows CI) on devnet.
      if (smoke) {
        log(`smoke: ${error.message}; on devnet instead`);
        return listen(await open('devnet'), settings.port);
      }
      // Say so once, and offer what works here.
      const { response } = await dialog.showMessageBox({
        type: 'warning',
        title: 'Coffer',
        message: "Coffer's embedded test chain cannot run on this computer",
        detail: `${error.message}.\n\nDevnet is Solana's public test network: free test USDC, no real money.`,
        buttons: ['Use devnet', 'Quit'],
        defaultId: 0,
        cancelId: 1,
      });
      if (response !== 0) throw new StartDeclined();
      coffer = await open('devnet');
    }
    return listen(coffer, settings.port);
  }

  /**
   * The first start on a data dir with no ledger: before a new treasury is made, the owner may restore
   * one (a backup file, or the recovery phrase) in a window of its own. A treasury made silently here
   * could not be restored over later: a restore never replaces one. Answers the window, to show the
   * dashboard in once Coffer runs; closing it, or Quit, ends the start with nothing made.
   */
  async function offerRestore(settings: ServeConfig): Promise<BrowserWindow | null> {
    // An app without a Dock icon is not brought to the front by itself (at login, say): the box would open behind other windows.
    if (platform === 'darwin') app.focus({ steal: true });
    const { response } = await dialog.showMessageBox({
      type: 'question',
      title: 'Coffer',
      message: 'Welcome to Coffer',
      detail: 'Start a new treasury, or restore one you backed up (a backup file, or the recovery phrase) on this computer or another.',
      buttons: ['Start a new treasury', 'Restore a treasury…', 'Quit'],
      defaultId: 0,
      cancelId: 2,
      // Windows: plain buttons, not command links.
      noLink: true,
    });
    if (response === 2) throw new StartDeclined();
    if (response === 0) return null;
    await assertPortFree(settings.port, settings.dataDir);
    const setup = await startFirstStart(settings, log);
    // Until Coffer runs, quitting (the window closed: Electron's default quits then; Cmd+Q; a log out)
    // waits for a restore under way, so none is cut midway.
    let quitAsked = false;
    let window: BrowserWindow | null = null;
    const keepRunning = () => undefined;
    const quitAfterRestore = (event: { preventDefault(): void }) => {
      event.preventDefault();
      quitAsked = true;
      window?.destroy();
    };
    const showSetup = () => window?.focus();
    app.on('window-all-closed', keepRunning);
    app.on('before-quit', quitAfterRestore);
    app.on('second-instance', showSetup);
    let outcome: 'new' | 'restored' | 'closed' = 'closed';
    let failure: unknown = null;
    try {
      const setupUrl = new URL(setup.setupUrl);
      window = await openDashboardWindow(electron, {
        baseUrl: setupUrl.origin,
        route: '#/',
        loginUrl: () => setup.setupUrl,
        existing: null,
      });
      const shown = window;
      const closed = new Promise<'closed'>((resolve) => shown.once('closed', () => resolve('closed')));
      outcome = await Promise.race([setup.chosen, closed]);
    } catch (error) {
      failure = error;
    }
    // A restore the owner started finishes before the window's closing counts.
    const chosen = await setup.stop();
    app.removeListener('window-all-closed', keepRunning);
    app.removeListener('before-quit', quitAfterRestore);
    app.removeListener('second-instance', showSetup);
    if (failure !== null) throw failure;
    if (quitAsked || chosen === null) throw new StartDeclined();
    // Closed once the owner had chosen: Coffer starts in the tray.
    return outcome === 'closed' ? null : window;
  }

  async function listen(coffer: OpenedCoffer, port: number): Promise<{ coffer: OpenedCoffer; server: RunningServer }> {
    try {
      // A taken port is an error, not a reason to move: agents' configs point at this one.
      return { coffer, server: await deps.startHttpServer({ coffer, port, version: deps.version, log }) };
    } catch (error) {
      await coffer.close();
      throw error;
    }
  }

  async function start(): Promise<void> {
    if (!app.requestSingleInstanceLock()) {
      app.quit();
      return;
    }
    app.on('second-instance', launchedAgain);
    // macOS: clicking the app again (Finder, Spotlight) opens the dashboard.
    if (platform === 'darwin') app.on('activate', launchedAgain);
    if (platform === 'win32') app.setAppUserModelId(APP_ID);
    await app.whenReady();
    // Packaged on macOS, LSUIElement keeps Coffer out of the Dock (no flash); under `npm start` there
    // is no Info.plist of Coffer's, so it is hidden here.
    if (platform === 'darwin' && !app.isPackaged) app.dock?.hide();

    let settings: ServeConfig;
    let coffer: OpenedCoffer;
    let server: RunningServer;
    /** The window of a first start where the owner chose in the setup page. */
    let setupWindow: BrowserWindow | null = null;
    try {
      settings = config();
      desktopLog.toFile(join(settings.dataDir, 'logs', 'desktop.log'));
      // A smoke run's throwaway data dir is new every time, and no one is there to answer.
      if (!smoke && isFirstStart(settings.dataDir)) setupWindow = await offerRestore(settings);
      ({ coffer, server } = await openEngine(settings));
    } catch (error) {
      return failToStart(error);
    }
    const connectionFile = announceConnection(settings.dataDir, server.url, coffer);
    const chainWatch = deps.startChainWatch(coffer, log);
    const { engine, owner } = coffer;

    // The first start's window, if there was one, shows the dashboard next.
    let window: BrowserWindow | null = setupWindow;
    let opening: Promise<void> = Promise.resolve();
    const open = (route: string): Promise<void> => {
      // One window: clicks while it is being created wait for it instead of making another.
      opening = opening
        .then(async () => {
          window = await openDashboardWindow(electron, { baseUrl: server.url, route, loginUrl: () => server.loginUrl(), existing: window });
        })
        .catch((error: unknown) => {
          window = null;
          log(`window: ${(error as Error).message}`);
        });
      return opening;
    };

    const autostart = createAutostart(app, { platform, execPath: deps.execPath, env: deps.env, home: deps.home });
    const balances = createBalanceCache(engine, owner);
    const notifier = createNotifier(
      electron.Notification,
      (route) => void open(route),
      () => timers.now(),
    );

    const act = (action: TrayAction) => {
      try {
        // The owner is doing it: no notification of it comes back.
        notifier.asOwner(() =>
          runTrayAction(engine, owner, action, {
            open: (route) => void open(route),
            toggleStartAtLogin: () => autostart.set(!autostart.enabled()),
            quit: () => app.quit(),
          }),
        );
      } catch (error) {
        log(`tray: ${(error as Error).message}`);
      }
      tray.update();
    };
    const tray: TrayController = createTrayController({
      electron,
      platform,
      icons: deps.icons,
      state: () => ({ ...trayState(engine, owner, balances.last(), autostart.available ? autostart.enabled() : null), stopping: quitting }),
      onAction: act,
      onClick: () => void open('#/'),
      timers,
      log,
    });

    // Balances come from the chain: read now and then, and soon after something happened; the menu
    // shows the last ones known meanwhile.
    let soon: unknown = null;
    const refreshBalances = () => void balances.refresh().then(() => tray.update());
    const refreshSoon = () => {
      soon ??= timers.setTimeout(() => {
        soon = null;
        refreshBalances();
      }, BALANCE_AFTER_EVENT_MS);
    };
    let every: unknown = null;
    const refreshEvery = () => {
      every = timers.setTimeout(() => {
        refreshBalances();
        refreshEvery();
      }, BALANCE_REFRESH_MS);
    };
    refreshBalances();
    refreshEvery();

    const unsubscribe = engine.events.subscribe((event) => {
      tray.update();
      notifier.notify(event);
      refreshSoon();
    });

    openDashboard = (route) => void open(route);
    // Launched again while it started: the dashboard it asked for (the first start's window, if any, is it).
    if (openAsked) openDashboard('#/');
    trayIcon = tray.tray;
    app.on('window-all-closed', () => {
      // Closing the window keeps Coffer running in the tray.
    });

    app.on('before-quit', (event) => {
      // Every quit waits for the graceful stop: in-flight payments finish, SQLite closes; but never
      // longer than the deadline.
      event.preventDefault();
      if (quitting) return;
      quitting = true;
      tray.now();
      unsubscribe();
      for (const handle of [soon, every]) if (handle !== null) timers.clearTimeout(handle);
      const deadline = timers.setTimeout(() => {
        log(
          `coffer: stopping took more than ${QUIT_DEADLINE_MS / 1000} s; quitting anyway (pending payments are settled at the next start)`,
        );
        exit(exitCode);
      }, QUIT_DEADLINE_MS);
      void server
        .stop()
        .then(() => chainWatch.stop())
        .then(() => coffer.close())
        .then(() => removeConnectionFile(connectionFile, process.pid))
        .catch((error: unknown) => log(`coffer: while stopping: ${(error as Error).message}`))
        .finally(() => {
          timers.clearTimeout(deadline);
          exit(exitCode);
        });
    });
    log(`Coffer ${deps.version} running in the tray; dashboard at ${server.url}`);

    if (smoke) {
      const passed = await runSmokeChecks({ engine, owner, tray, open, window: () => window, act, timers, say: deps.stdout });
      exitCode = passed ? 0 : 1;
      app.quit();
      return;
    }
    // A first start someone launched (not at login) opens the dashboard: where the desktop shows no
    // tray at all (GNOME without the AppIndicator extension), the app would otherwise show nothing.
    // A treasury restored (or made) in the setup window is shown in that window.
    if (setupWindow !== null || (coffer.ownerCreated && !autostart.startedAtLogin(deps.argv))) void open('#/');
  }

  return { start: () => start().catch(failToStart) };
}
