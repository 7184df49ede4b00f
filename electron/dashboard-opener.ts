import type { BrowserWindow } from 'electron';
import type { RunningServer } from '../server/boot/http-server.js';
import type { ElectronApi } from './electron-api.js';
import { openDashboardWindow } from './window.js';

/**
 * The one dashboard window of a running Coffer: opened on a route, or, if it is open, loaded on that
 * route and shown. `initial`: the first start's window, if there was one, which shows the dashboard next.
 */
export function createDashboardOpener(
  electron: ElectronApi,
  server: RunningServer,
  log: (message: string) => void,
  initial: BrowserWindow | null,
) {
  let window: BrowserWindow | null = initial;
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
  return { open, window: () => window };
}
