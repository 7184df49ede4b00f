import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appImageOf } from './app-image.js';
import type { ElectronApi } from './electron-api.js';

/** Passed to Coffer when it starts at login: it then stays in the tray instead of opening a window. */
export const STARTED_AT_LOGIN_FLAG = '--hidden';

/**
 * A path as one quoted argument of a desktop entry's Exec (the Desktop Entry spec, "The Exec key"):
 * the characters reserved in a quoted argument (`"`, backquote, `$`, `\`) are escaped with a
 * backslash; then the value's own escape rule doubles every backslash (a literal backslash is four,
 * a literal `$` is `\\$`), and a literal `%` is `%%`. GLib (GNOME's session) reads the first two as
 * the spec says; it looks for a program named with the `%%` unexpanded, so a path holding `%` does not
 * start there (KDE's reader expands it).
 */
export function execArgument(path: string): string {
  const quoted = path.replace(/(["`$\\])/g, '\\$1');
  return `"${quoted.replace(/\\/g, '\\\\').replace(/%/g, '%%')}"`;
}

/** Whether Coffer starts at login: on, off, or asked for and waiting for the owner to allow it (macOS 13 and later). */
export type StartAtLogin = 'on' | 'off' | 'needs-approval';

/** Where macOS 13 and later lets the owner allow a login item (System Settings › General › Login Items). */
export const LOGIN_ITEMS_SETTINGS = 'x-apple.systempreferences:com.apple.LoginItems-Settings.extension';

export interface Autostart {
  /** False where it cannot work: in a development run (it would start Electron's default app). */
  readonly available: boolean;
  state(): StartAtLogin;
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
    // On AppImage the executable is in a mount made at each start: the entry names the image file.
    const command = appImageOf(options.execPath, options.env) ?? options.execPath;
    return {
      available,
      state: () => (existsSync(file) ? 'on' : 'off'),
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
            `Exec=${execArgument(command)} ${STARTED_AT_LOGIN_FLAG}`,
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
  const state = (): StartAtLogin => {
    if (!available) return 'off';
    const settings = app.getLoginItemSettings(asSet);
    // Windows: Task Manager (or Settings) may have switched it off while the Run key stays.
    if (options.platform === 'win32') return settings.openAtLogin && settings.executableWillLaunchAtLogin ? 'on' : 'off';
    // macOS 13 and later: registered, but the owner has not allowed it in System Settings yet.
    if (options.platform === 'darwin' && settings.status === 'requires-approval') return 'needs-approval';
    return settings.openAtLogin ? 'on' : 'off';
  };
  return {
    available,
    state,
    set(enabled) {
      if (options.platform === 'darwin' || options.platform === 'win32') {
        // `args` is read on Windows, where `enabled` (its default, said here) also turns Task
        // Manager's switch back on; macOS tells with wasOpenedAtLogin instead.
        app.setLoginItemSettings({ openAtLogin: enabled, ...asSet, ...(options.platform === 'win32' ? { enabled: true } : {}) });
      }
    },
    startedAtLogin: (argv) =>
      argv.includes(STARTED_AT_LOGIN_FLAG) || (options.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin === true),
  };
}
