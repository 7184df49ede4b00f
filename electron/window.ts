import { BrowserWindow, shell, session } from 'electron';
import { packagePath } from '../server/boot/package-files.js';

const PRELOAD = packagePath('electron', 'preload.cjs');

/**
 * The dashboard window: the same bundle as in a browser, loaded from the local server and signed in
 * the same way, by a fresh one-time login URL each time it is shown (the page trades it for a
 * session token it keeps in its own sessionStorage; no cookie). Sandboxed, no Node, isolated
 * context; it cannot navigate away from the dashboard or open other windows.
 */
export async function openDashboardWindow(options: {
  baseUrl: string;
  route: string;
  /** A fresh one-time login URL of the owner (`http://127.0.0.1:PORT/login?token=...`). */
  loginUrl: () => string;
  existing: BrowserWindow | null;
}): Promise<BrowserWindow> {
  const { baseUrl } = options;
  // A fresh sign-in every time the window is shown: it never falls back to the signed-out page, and
  // lands on the route asked for (the page checks it is a #/ route).
  const signedIn = `${options.loginUrl()}&next=${encodeURIComponent(options.route)}`;
  if (options.existing && !options.existing.isDestroyed()) {
    await options.existing.loadURL(signedIn);
    options.existing.show();
    options.existing.focus();
    return options.existing;
  }
  session.defaultSession.setPermissionRequestHandler((_contents, permission, grant) => grant(permission === 'clipboard-sanitized-write'));
  session.defaultSession.setPermissionCheckHandler((_contents, permission) => permission === 'clipboard-sanitized-write');

  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    title: 'Coffer',
    show: false,
    webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true, preload: PRELOAD, spellcheck: false },
  });
  // Only the dashboard loads here; a web link goes to the user's browser, anything else nowhere.
  const leave = (event: { preventDefault(): void }, url: string) => {
    if (url.startsWith(`${baseUrl}/`)) return;
    event.preventDefault();
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
  };
  window.webContents.on('will-navigate', leave);
  window.webContents.on('will-redirect', leave);
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url) && !url.startsWith(`${baseUrl}/`)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.once('ready-to-show', () => window.show());
  await window.loadURL(signedIn);
  return window;
}
