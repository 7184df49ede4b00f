import type { BrowserWindow } from 'electron';
import { packagePath } from '../server/package/package-files.js';
import type { ElectronApi } from './electron-api.js';

const PRELOAD = packagePath('electron', 'preload.cjs');
/**
 * The window's session: in memory only (a partition name without `persist:`), so nothing of the
 * dashboard's sign-in ever lands on disk; it lasts while Coffer runs.
 */
export const WINDOW_PARTITION = 'coffer-dashboard';

/**
 * The dashboard window: the same bundle as in a browser, loaded from the local server and signed in
 * the same way, by a fresh one-time login URL each time it is shown (the page trades it for a
 * session token it keeps in its own sessionStorage; no cookie). Sandboxed, no Node, isolated
 * context; it cannot navigate away from the dashboard or open other windows: web links (a generated
 * image, even one this server serves) open in the user's browser.
 */
export async function openDashboardWindow(
  electron: Pick<ElectronApi, 'BrowserWindow' | 'session' | 'shell'>,
  options: {
    baseUrl: string;
    route: string;
    /** A fresh one-time login URL of the owner (`http://127.0.0.1:PORT/login?token=...`). */
    loginUrl: () => string;
    existing: BrowserWindow | null;
  },
): Promise<BrowserWindow> {
  const { baseUrl } = options;
  // A fresh sign-in every time the window is shown: it never falls back to the signed-out page, and
  // lands on the route asked for (the page checks it is a #/ route).
  const signedIn = `${options.loginUrl()}&next=${encodeURIComponent(options.route)}`;
  if (options.existing && !options.existing.isDestroyed()) {
    // A minimized window is not brought back by show() or focus() (Electron's BrowserWindow docs).
    if (options.existing.isMinimized()) options.existing.restore();
    await signInAgain(options.existing, signedIn, options.route);
    options.existing.show();
    options.existing.focus();
    return options.existing;
  }
  const session = electron.session.fromPartition(WINDOW_PARTITION);
  session.setPermissionRequestHandler((_contents, permission, grant) => grant(permission === 'clipboard-sanitized-write'));
  session.setPermissionCheckHandler((_contents, permission) => permission === 'clipboard-sanitized-write');

  const window = new electron.BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    title: 'Coffer',
    show: false,
    webPreferences: {
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      preload: PRELOAD,
      spellcheck: false,
      partition: WINDOW_PARTITION,
    },
  });
  // Only the dashboard loads here; a web link goes to the user's browser, anything else nowhere.
  const leave = (event: { preventDefault(): void }, url: string) => {
    if (url.startsWith(`${baseUrl}/`)) return;
    event.preventDefault();
    if (/^https?:\/\//.test(url)) void electron.shell.openExternal(url);
  };
  window.webContents.on('will-navigate', leave);
  window.webContents.on('will-redirect', leave);
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void electron.shell.openExternal(url);
    return { action: 'deny' };
  });
  // A page holding input the owner typed refuses to unload (renderer/src/lib/unsaved-input.ts). That
  // refusal is for Coffer's own reload only (signInAgain): the owner closing the window, or any other
  // unload, goes ahead (without this, Electron cancels the close without a word).
  window.webContents.on('will-prevent-unload', (event) => {
    if (!reloading.has(window)) event.preventDefault();
  });
  window.once('ready-to-show', () => window.show());
  try {
    await window.loadURL(signedIn);
  } catch (error) {
    // A window that could not load would stay hidden forever: close it, and say why.
    window.destroy();
    throw error;
  }
  return window;
}

/** Windows being signed in afresh by signInAgain: their page may refuse that, and only that. */
const reloading = new WeakSet<BrowserWindow>();

/**
 * Loads the open window on a fresh sign-in, unless its page holds input the owner typed and did not
 * send (renderer/src/lib/unsaved-input.ts): the page's beforeunload cancels, Electron emits
 * `will-prevent-unload`, and the load is cancelled (loadURL then rejects with ERR_ABORTED). The
 * refusal itself ends the wait. The window is then brought up as it is; a route asked for (a
 * notification's page) is reached inside the page, which keeps the input.
 */
async function signInAgain(window: BrowserWindow, signedIn: string, route: string): Promise<void> {
  let onRefused: () => void = () => undefined;
  const refused = new Promise<'refused'>((resolve) => {
    onRefused = () => resolve('refused');
    window.webContents.once('will-prevent-unload', onRefused);
  });
  reloading.add(window);
  const loading = window.loadURL(signedIn).then(() => 'loaded' as const);
  try {
    if ((await Promise.race([loading, refused])) === 'refused' && route !== '#/') {
      // A #/ route only (openDashboardWindow's callers name routes of the dashboard's own).
      if (/^#\/[\w\-/%.]*$/.test(route)) await window.webContents.executeJavaScript(`location.hash = ${JSON.stringify(route)}`);
    }
  } finally {
    reloading.delete(window);
    window.webContents.removeListener('will-prevent-unload', onRefused);
    // A refused load settles later, as a failure nobody waits for.
    loading.catch(() => undefined);
  }
}
