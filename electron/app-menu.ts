import type { MenuItemConstructorOptions } from 'electron';
import type { ElectronApi } from './electron-api.js';

/**
 * The application menu: the window's menu bar on Windows and Linux, the menu bar's on macOS. Without
 * one Electron sets its default (File, Edit, View with Reload and the developer tools, Window, Help),
 * and a Reload would throw away what the owner typed. This one holds the brake and Quit, which are the
 * only way out where the desktop shows no tray (GNOME without the AppIndicator extension), the edit
 * roles (copy and paste in the page need them on macOS), zoom and the window's roles.
 * `stopAll` is null until the engine runs (the first start's window): the brake is not offered then.
 */
function appMenuTemplate(options: {
  platform: NodeJS.Platform;
  stopAll: (() => void) | null;
  quit: () => void;
}): MenuItemConstructorOptions[] {
  const brake: MenuItemConstructorOptions[] =
    options.stopAll === null ? [] : [{ label: 'Stop all agents', click: options.stopAll }, { type: 'separator' }];
  return [
    // macOS names its first menu after the app whatever the label; elsewhere Alt+C opens it.
    {
      label: options.platform === 'darwin' ? 'Coffer' : '&Coffer',
      submenu: [...brake, { label: 'Quit Coffer', accelerator: 'CmdOrCtrl+Q', click: options.quit }],
    },
    { role: 'editMenu' },
    {
      label: '&View',
      submenu: [{ role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
    },
    { role: 'windowMenu' },
  ];
}

export function setAppMenu(electron: Pick<ElectronApi, 'Menu'>, options: Parameters<typeof appMenuTemplate>[0]): void {
  electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(appMenuTemplate(options)));
}
