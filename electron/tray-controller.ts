import type { Menu, MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import type { ElectronApi } from './electron-api.js';
import { iconState, tooltip, trayMenu, type IconState, type TrayAction, type TrayItem, type TrayState } from './tray-model.js';

/** The menu is rebuilt at most this often: a runaway agent must not make the brake flicker. */
export const TRAY_REBUILD_MS = 1_000;

export interface Timers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The clock and timers of the running process (tests pass fake ones). */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface TrayControllerOptions {
  electron: Pick<ElectronApi, 'Tray' | 'Menu' | 'nativeImage' | 'nativeTheme'>;
  platform: NodeJS.Platform;
  /** The folder of the tray icons (build/icons). */
  icons: string;
  /** The tray's state: from the ledger and the last balances known, so it answers without the chain. */
  state(): TrayState;
  onAction(action: TrayAction): void;
  /** A click on the icon (outside macOS, where a click opens the menu). */
  onClick(): void;
  timers: Timers;
  log(message: string): void;
}

/**
 * The tray icon and its menu. A menu is set from the first moment and always: if the state cannot be
 * read, a minimal one that still holds "Stop all agents" and "Quit". It is set again only when what it
 * shows changed (the icon and the tooltip change on their own), at most once a second, and never
 * while it is open (a menu replaced under the cursor closes or jumps): a change then waits for
 * `menu-will-close`.
 *
 * Linux is different: Electron shows the tray there through Chromium's StatusIconLinuxDbus, whose menu
 * sends no "menu-will-show" / "menu-will-close" (electron#28837; components/dbus/menu/menu.cc ignores
 * "opened" and "closed"), so an open menu cannot be known; and every menu set gets new item ids, so a
 * click the panel sends from the menu it showed before is dropped without a sound. That click could
 * be Stop all agents. So on Linux the menu holds nothing a payment changes (no balances: they are in
 * the tooltip) and is set again only when its items change (an agent stopped, resumed, added, a
 * request waiting): a burst of payments never replaces it.
 */
export function createTrayController(options: TrayControllerOptions) {
  const { electron, platform, timers } = options;
  const image = (state: IconState) => {
    if (platform === 'darwin') {
      // Template images (black and alpha) follow the menu bar in light and dark; the attention icon
      // differs in its shape (a dot), since a template cannot be red.
      const icon = electron.nativeImage.createFromPath(
        join(options.icons, state === 'normal' ? 'trayTemplate.png' : 'trayAttentionTemplate.png'),
      );
      icon.setTemplateImage(true);
      return icon;
    }
    // A light glyph on a dark panel, a dark one on a light panel.
    const panel = electron.nativeTheme.shouldUseDarkColors ? 'dark' : 'light';
    return electron.nativeImage.createFromPath(join(options.icons, `tray-${state}-on-${panel}.png`));
  };

  // Balances change with every payment: in a Linux menu they would replace it under the cursor.
  const amounts = platform !== 'linux';
  let shownMenu = '';
  let shownLook = '';
  let shownItems: TrayItem[] = [];
  let menuOpen = false;
  let dirty = false;
  let lastBuild = Number.NEGATIVE_INFINITY;
  let timer: unknown = null;

  const readState = (): TrayState | null => {
    try {
      return options.state();
    } catch (error) {
      options.log(`tray: could not read the state (${(error as Error).message}); showing the brake only`);
      return null;
    }
  };

  const toTemplate = (items: TrayItem[]): MenuItemConstructorOptions[] =>
    items.map((item): MenuItemConstructorOptions => {
      if (item.type === 'separator') return { type: 'separator' };
      if (item.type === 'label') return { label: item.label, enabled: false };
      if (item.type === 'submenu') return { label: item.label, submenu: toTemplate(item.items) };
      return {
        label: item.label,
        enabled: item.enabled ?? true,
        ...(item.checked === undefined ? {} : { type: 'checkbox' as const, checked: item.checked }),
        click: () => options.onAction(item.action),
      };
    });

  const FALLBACK: TrayItem[] = [
    { type: 'label', label: 'Coffer could not read its state' },
    { type: 'action', label: 'Stop all agents', action: { kind: 'stop-all' } },
    { type: 'action', label: 'Open dashboard', action: { kind: 'open', route: '#/' } },
    { type: 'separator' },
    { type: 'action', label: 'Quit Coffer', action: { kind: 'quit' } },
  ];

  const build = () => {
    timer = null;
    lastBuild = timers.now();
    const state = readState();
    const items = state === null ? FALLBACK : trayMenu(state, { amounts });
    const icon = state === null ? 'attention' : iconState(state);
    const tip = state === null ? 'Coffer' : tooltip(state);
    const panel = platform === 'darwin' ? '' : electron.nativeTheme.shouldUseDarkColors ? 'dark' : 'light';
    // The icon and the tooltip are set on their own: they never replace the menu.
    const look = JSON.stringify([icon, tip, panel]);
    if (look !== shownLook) {
      shownLook = look;
      tray.setImage(image(icon));
      tray.setToolTip(tip);
    }
    const next = JSON.stringify(items);
    if (next === shownMenu) return;
    shownMenu = next;
    shownItems = items;
    const menu: Menu = electron.Menu.buildFromTemplate(toTemplate(items));
    menu.on('menu-will-show', () => {
      menuOpen = true;
    });
    menu.on('menu-will-close', () => {
      menuOpen = false;
      if (dirty) update();
    });
    // On Linux a changed menu must be set again to show (Electron's Tray docs).
    tray.setContextMenu(menu);
  };

  /** Something may have changed: rebuild soon (throttled), or after the open menu closes. */
  const update = () => {
    if (menuOpen) {
      dirty = true;
      return;
    }
    dirty = false;
    if (timer !== null) return;
    const wait = lastBuild + TRAY_REBUILD_MS - timers.now();
    if (wait <= 0) build();
    else timer = timers.setTimeout(build, wait);
  };

  const tray = new electron.Tray(image('normal'));
  if (platform !== 'darwin') tray.on('click', () => options.onClick());
  electron.nativeTheme.on('updated', update);
  build();

  return {
    tray,
    update,
    /** Rebuilds now, open menu or not (quitting: the menu must say "Stopping…" at once). */
    now: () => {
      if (timer !== null) timers.clearTimeout(timer);
      menuOpen = false;
      build();
    },
    isMenuOpen: () => menuOpen,
    /** The menu as last set (for the smoke check and the tests). */
    items: () => shownItems,
  };
}
export type TrayController = ReturnType<typeof createTrayController>;
