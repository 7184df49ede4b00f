import type { openCoffer as OpenCoffer } from '../server/boot/open-coffer.js';
import type { startHttpServer as StartHttpServer } from '../server/boot/http-server.js';
import type { startChainWatch as StartChainWatch } from '../server/boot/chain-watch.js';
import type { ServeConfig } from '../server/boot/serve-config.js';
import type { ElectronApi } from './electron-api.js';
import { createDesktopLog, type DesktopLog } from './desktop-log.js';
import type { Timers } from './tray-controller.js';

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
  /** What Electron's executable is given to run this app (unpackaged, `npm start`); null when packaged. */
  appEntry: string | null;
  resolveConfig(): ServeConfig;
  openCoffer: typeof OpenCoffer;
  startHttpServer: typeof StartHttpServer;
  startChainWatch: typeof StartChainWatch;
  timers: Timers;
  stderr(line: string): void;
  stdout(line: string): void;
}

/** The owner chose to quit instead of starting (on another network, or at all): the app exits with 0. */
export class StartDeclined extends Error {}

/** What the steps of the desktop app's start share. */
export interface DesktopContext {
  electron: ElectronApi;
  deps: DesktopDeps;
  desktopLog: DesktopLog;
  log(message: string): void;
  /** COFFER_SMOKE=1: the packaged app checks itself (CI), on a throwaway data dir, with no one to ask. */
  smoke: boolean;
  /** The graceful stop has begun: the menu says so. */
  quitting: boolean;
  /** What the graceful quit ends with: 1 after a failed smoke check. */
  exitCode: number;
  /** The tray, once there is one: taken down before the exit (Windows keeps a ghost icon otherwise). */
  trayIcon: { destroy(): void } | null;
  /** Ends the app at once, with this code (the first call only). */
  exit(code: number): void;
}

export function createDesktopContext(electron: ElectronApi, deps: DesktopDeps): DesktopContext {
  const desktopLog = createDesktopLog(deps.stderr);
  let exited = false;
  const context: DesktopContext = {
    electron,
    deps,
    desktopLog,
    log: desktopLog.log,
    smoke: deps.env.COFFER_SMOKE === '1',
    quitting: false,
    exitCode: 0,
    trayIcon: null,
    exit(code) {
      if (exited) return;
      exited = true;
      context.trayIcon?.destroy();
      electron.app.exit(code);
    },
  };
  return context;
}
