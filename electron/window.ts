import { BrowserWindow, shell, session } from 'electron';
import { fileURLToPath } from 'node:url';
import { SESSION_COOKIE } from '../server/http/sessions.js';

const PRELOAD = fileURLToPath(new URL('./preload.cjs', import.meta.url));

/**
 * The dashboard window: the same bundle as in a browser, loaded from the local server, signed in by a
 * session cookie the main process sets (no token in the URL or the page's storage). Sandboxed, no
 * Node, isolated context; it cannot navigate away from the dashboard or open other windows.
 */
export async function openDashboardWindow(options: {
  baseUrl: string;
  route: string;
  issueSession: () => { sessionId: string; maxAgeSeconds: number };
  existing: BrowserWindow | null;
}): Promise<BrowserWindow> {
  const { baseUrl, route } = options;
  // A fresh session every time the window is shown: it never falls back to the signed-out page.
  const { sessionId, maxAgeSeconds } = options.issueSession();
  await session.defaultSession.cookies.set({
    url: baseUrl,
    name: SESSION_COOKIE,
    value: sessionId,
    httpOnly: true,
    sameSite: 'strict',
    expirationDate: Math.floor(Date.now() / 1000) + maxAgeSeconds,
  });
  if (options.existing && !options.existing.isDestroyed()) {
    await options.existing.loadURL(`${baseUrl}/${route}`);
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
  await window.loadURL(`${baseUrl}/${route}`);
  return window;
}
