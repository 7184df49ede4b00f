import type { Menu } from 'electron';
import { panelShade, trayIconImage } from './tray-glyph.js';
import { menuTemplate } from './tray-template.js';
import type { ElectronApi } from './electron-api.js';
import {
  iconState,
  tooltip,
  trayMenu,
  UNREADABLE_STATE_MENU,
  type IconState,
  type MenuKind,
  type TrayAction,
  type TrayItem,
  type TrayState,
} from './tray-model.js';

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
  /** The environment, for the desktop the panel belongs to (tray-glyph.ts). */
  env: NodeJS.ProcessEnv;
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
 * The tray icon and its menu, the owner's hand on the brake. A menu must never change under the
 * owner's hand: a menu replaced while it shows drops the click on it, and that click could be
 * "Stop all agents". How that is kept depends on the platform (tray-model.ts MenuKind):
 *
 * - macOS and Windows: no menu is set on the tray. A click (macOS) or right-click (Windows) makes the
 *   menu from the state at that moment and pops it up (`popUpContextMenu`); nothing ever replaces a
 *   menu that shows. Setting one ahead cannot be made safe on macOS: its menu controller sends the
 *   root menu's `menu-will-show` again for each submenu opened and `menu-will-close` when a submenu
 *   closes while the root still shows, and then nothing when the root closes
 *   (shell/browser/ui/cocoa/electron_menu_controller.mm, menuWillOpen: / menuDidClose:), so whether
 *   the menu still shows cannot be known, and every agent's line is a submenu.
 * - Linux: Electron shows the tray through Chromium's StatusIconLinuxDbus, which cannot pop a menu
 *   up, sends no "menu-will-show" / "menu-will-close" (electron#28837; components/dbus/menu/menu.cc
 *   ignores "opened" and "closed"), and gives every menu set new item ids, so a click the panel sends
 *   from the menu it showed before is dropped without a sound. The menu is set ahead, holds nothing a
 *   payment changes, and is set again only when its items change (an agent deployed, stopped,
 *   resumed, renamed; start at login; a backup made), at most once a second.
 *
 * The icon and the tooltip follow every change on their own: setting them never touches the menu.
 */
export function createTrayController(options: TrayControllerOptions) {
  const { electron, platform, timers } = options;
  const menuKind: MenuKind = platform === 'linux' ? 'set-ahead' : 'built-as-it-opens';
  const image = (state: IconState) =>
    trayIconImage(
      electron.nativeImage,
      { platform, icons: options.icons, shade: panelShade(platform, electron.nativeTheme, options.env) },
      state,
    );
  const shade = () => panelShade(platform, electron.nativeTheme, options.env);

  let shownMenu = '';
  let shownLook = '';
  let shownItems: TrayItem[] = [];
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

  /** The menu's items and the icon's look for the state now. */
  const current = () => {
    const state = readState();
    return {
      items: state === null ? UNREADABLE_STATE_MENU : trayMenu(state, menuKind),
      look: { icon: state === null ? ('attention' as const) : iconState(state), tip: state === null ? 'Coffer' : tooltip(state) },
    };
  };

  const build = () => {
    timer = null;
    lastBuild = timers.now();
    const { items, look } = current();
    const panel = platform === 'darwin' ? '' : shade();
    const lookKey = JSON.stringify([look.icon, look.tip, panel]);
    if (lookKey !== shownLook) {
      shownLook = lookKey;
      tray.setImage(image(look.icon));
      tray.setToolTip(look.tip);
    }
    if (menuKind !== 'set-ahead') return;
    const next = JSON.stringify(items);
    if (next === shownMenu) return;
    shownMenu = next;
    shownItems = items;
    // On Linux a changed menu must be set again to show (Electron's Tray docs).
    tray.setContextMenu(electron.Menu.buildFromTemplate(menuTemplate(items, options.onAction)));
  };

  /** Something may have changed: the icon, the tooltip (and on Linux the menu) soon, throttled. */
  const update = () => {
    if (timer !== null) return;
    const wait = lastBuild + TRAY_REBUILD_MS - timers.now();
    if (wait <= 0) build();
    else timer = timers.setTimeout(build, wait);
  };

  /** macOS, Windows: the menu, made now from the state now, shown until the owner is done with it. */
  let popped: Menu | null = null;
  const popUp = () => {
    if (platform === 'linux') return;
    // Held until the next one: Electron keeps only a weak pointer to the menu it shows.
    popped = electron.Menu.buildFromTemplate(menuTemplate(current().items, options.onAction));
    tray.popUpContextMenu(popped);
  };

  const tray = new electron.Tray(image('normal'));
  if (platform === 'darwin') {
    // A quick second click would be a double-click, which opens no menu (tray_icon_cocoa.mm emits
    // `click` only for a single one): every click opens it.
    tray.setIgnoreDoubleClickEvents(true);
    tray.on('click', popUp);
    tray.on('right-click', popUp);
  } else {
    tray.on('click', () => options.onClick());
    if (platform === 'win32') tray.on('right-click', popUp);
  }
  electron.nativeTheme.on('updated', update);
  build();

  return {
    tray,
    update,
    /** Updates now (quitting: the icon, the tooltip and a set-ahead menu say "Stopping…" at once). */
    now: () => {
      if (timer !== null) timers.clearTimeout(timer);
      build();
    },
    /** The menu as it shows now: as last set (Linux), or as it would pop up (for the smoke check and the tests). */
    items: () => (menuKind === 'set-ahead' ? shownItems : current().items),
  };
}
export type TrayController = ReturnType<typeof createTrayController>;
