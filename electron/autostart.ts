import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElectronApi } from './electron-api.js';

/** Passed to Coffer when it starts at login: it then stays in the tray instead of opening a window. */
export const STARTED_AT_LOGIN_FLAG = '--hidden';

export interface Autostart {
  /** False where it cannot work: in a development run (it would start Electron's default app). */
  readonly available: boolean;
  enabled(): boolean;
  set(enabled: boolean): void;
  /** Whether this run was started at login. */
  startedAtLogin(argv: string[]): boolean;
}

/**
 * Starting at login. Electron's setLoginItemSettings works on macOS and Windows only (its docs: "@platform
 * darwin,win32"); on Linux it is an XDG autostart entry (https://specifications.freedesktop.org/autostart-spec/).
 * Offered only in a packaged app: under `npm start` the executable is Electron's, not Coffer's.
 */
export function createAutostart(
  app: ElectronApi['app'],
  options: { platform: NodeJS.Platform; execPath: string; env: NodeJS.ProcessEnv; home: string },
): Autostart {
  const available = app.isPackaged && (options.platform === 'darwin' || options.platform === 'win32' || options.platform === 'linux');
  if (options.platform === 'linux') {
    const file = join(options.env.XDG_CONFIG_HOME || join(options.home, '.config'), 'autostart', 'coffer.desktop');
    // On AppImage the executable is in a mount made at each start: $APPIMAGE is the file itself.
    const command = options.env.APPIMAGE || options.execPath;
    return {
      available,
      enabled: () => existsSync(file),
      set(enabled) {
        if (!enabled) return rmSync(file, { force: true });
        mkdirSync(join(file, '..'), { recursive: true });
        writeFileSync(
          file,
          [
            '[Desktop Entry]',
            'Type=Application',
            'Name=Coffer',
            'Comment=A treasury for your AI agents',
            // Quoted, with the characters the Desktop Entry spec reserves in a quoted argument escaped.
            `Exec="${command.replace(/(["`$\\])/g, '\\$1')}" ${STARTED_AT_LOGIN_FLAG}`,
            'Terminal=false',
            'X-GNOME-Autostart-enabled=true',
            '',
          ].join('\n'),
        );
      },
      startedAtLogin: (argv) => argv.includes(STARTED_AT_LOGIN_FLAG),
    };
  }
  // Windows matches a login item on its path and its arguments (Electron's getLoginItemSettings
  // docs; browser_win.cc): it is read with the very arguments it is set with, or it reads as off.
  const asSet = { args: [STARTED_AT_LOGIN_FLAG] };
  return {
    available,
    enabled: () => available && app.getLoginItemSettings(asSet).openAtLogin,
    set(enabled) {
      if (options.platform === 'darwin' || options.platform === 'win32') {
        // `args` is read on Windows; macOS tells with wasOpenedAtLogin instead.
        app.setLoginItemSettings({ openAtLogin: enabled, ...asSet });
      }
    },
    startedAtLogin: (argv) =>
      argv.includes(STARTED_AT_LOGIN_FLAG) || (options.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin === true),
  };
}
