import type { Engine } from '../server/core/engine.js';
import { LOGIN_ITEMS_SETTINGS, type Autostart } from './autostart.js';
import type { DesktopContext } from './desktop-context.js';
import type { createNotifier } from './notifications.js';
import { runTrayAction, trayState, type BalanceCache } from './tray-actions.js';
import { createTrayController, type Timers, type TrayController } from './tray-controller.js';
import type { TrayAction } from './tray-model.js';
import type { Rail } from '../server/wire/rails.js';

/** Balances (read from the chain) are read again this often, and soon after anything happens. */
export const BALANCE_REFRESH_MS = 30_000;
const BALANCE_AFTER_EVENT_MS = 2_000;

/**
 * The tray icon, the owner's hand on the brake: its menu from the ledger and the last balances known
 * (never waiting on the chain), "Stopping…" once the graceful stop began; and what its items do.
 */
export function startDesktopTray(
  context: DesktopContext,
  parts: {
    engine: Engine;
    owner: string;
    /** The rails open on this data dir: the menu shows a balance on each. */
    rails: readonly Rail[];
    balances: BalanceCache;
    autostart: Autostart;
    notifier: Pick<ReturnType<typeof createNotifier>, 'asOwner'>;
    open(route: string): void;
  },
): { tray: TrayController; act(action: TrayAction): void } {
  const { electron, deps, log } = context;
  const { engine, owner, rails, balances, autostart, notifier, open } = parts;
  const act = (action: TrayAction) => {
    try {
      // The owner is doing it: no notification of it comes back.
      notifier.asOwner(() =>
        runTrayAction(engine, owner, action, {
          open,
          toggleStartAtLogin: () => {
            const now = autostart.state();
            if (now === 'needs-approval') void electron.shell.openExternal(LOGIN_ITEMS_SETTINGS);
            else autostart.set(now === 'off');
          },
          quit: () => electron.app.quit(),
        }),
      );
    } catch (error) {
      log(`tray: ${(error as Error).message}`);
    }
    tray.update();
  };
  const tray: TrayController = createTrayController({
    electron,
    platform: deps.platform,
    env: deps.env,
    icons: deps.icons,
    state: () => ({
      ...trayState(engine, owner, {
        balances: balances.last(),
        rails,
        startAtLogin: autostart.available ? autostart.state() : null,
      }),
      stopping: context.quitting,
    }),
    onAction: act,
    onClick: () => open('#/'),
    timers: deps.timers,
    log,
  });
  return { tray, act };
}

/**
 * Balances come from the chain: read now and then, and soon after something happened; the menu
 * shows the last ones known meanwhile.
 */
export function startBalanceRefresh(balances: BalanceCache, tray: Pick<TrayController, 'update'>, timers: Timers) {
  let soon: unknown = null;
  let every: unknown = null;
  const refreshBalances = () => void balances.refresh().then(() => tray.update());
  const refreshEvery = () => {
    every = timers.setTimeout(() => {
      refreshBalances();
      refreshEvery();
    }, BALANCE_REFRESH_MS);
  };
  refreshBalances();
  refreshEvery();
  return {
    /** Something happened: the balances are read again soon (once for a burst). */
    soon(): void {
      soon ??= timers.setTimeout(() => {
        soon = null;
        refreshBalances();
      }, BALANCE_AFTER_EVENT_MS);
    },
    stop(): void {
      for (const handle of [soon, every]) if (handle !== null) timers.clearTimeout(handle);
    },
  };
}
export type BalanceRefresh = ReturnType<typeof startBalanceRefresh>;
