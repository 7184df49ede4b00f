import type * as Electron from 'electron';

/**
 * The part of Electron's API the desktop app uses, typed by Electron's own declarations. main.ts
 * passes the real module; the tests pass a small fake of it (test/fixtures/fake-electron.ts), since
 * Electron's binary cannot run where they do.
 */
export type ElectronApi = Pick<
  typeof Electron,
  'app' | 'BrowserWindow' | 'Menu' | 'Notification' | 'Tray' | 'dialog' | 'nativeImage' | 'nativeTheme' | 'session' | 'shell'
>;
