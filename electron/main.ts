import { app, dialog, Menu, Notification, Tray, nativeImage, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import { openCoffer } from '../server/boot/open-coffer.js';
import { startHttpServer } from '../server/boot/http-server.js';
import { startChainWatch } from '../server/boot/chain-watch.js';
import { removeConnectionFile, writeConnectionFile } from '../server/boot/connection-file.js';
import { resolveServeConfig } from '../server/cli/config.js';
import { iconState, tooltip, trayMenu, type TrayItem } from './tray-model.js';
import { runTrayAction, trayState } from './tray-actions.js';
import { notificationFor } from './notifications.js';
import { openDashboardWindow } from './window.js';
import { desktopMcpLaunch, installMcpBridge } from './mcp-launch.js';
import { packagePath, packageVersion } from '../server/boot/package-files.js';

/**
 * The desktop app: one instance, the engine and the localhost /v1 server in the main process, a tray
 * icon that is the owner's hand on the brake, desktop notifications, and the dashboard window.
 */
const ICONS = packagePath('build', 'icons');
const version = packageVersion();
const log = (message: string) => process.stderr.write(`${message}\n`);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  void main().catch((error: unknown) => {
    log(`coffer: ${(error as Error).message}`);
    app.exit(1);
  });
}

async function main(): Promise<void> {
  await app.whenReady();
  if (process.platform === 'darwin') app.dock?.hide();
  // The same data dir, port and network as `coffer serve` (~/.coffer, 7402, sim unless COFFER_* or the
  // launcher's flags say otherwise), so the CLI, the MCP bridge and agents find the desktop app too.
  const config = resolveServeConfig({});
  let coffer;
  let server;
  try {
    const bridge = installMcpBridge(packagePath('dist', 'app', 'coffer-mcp.mjs'), config.dataDir);
    coffer = await openCoffer({ ...config, log, mcpLaunch: desktopMcpLaunch(process.execPath, process.env, bridge) });
    // A taken port is an error, not a reason to move: agents' configs point at this one.
    server = await startHttpServer({ coffer, port: config.port, version, log });
  } catch (error) {
    dialog.showErrorBox('Coffer cannot start', (error as Error).message);
    await coffer?.close();
    app.exit(1);
    return;
  }
  const connectionFile = join(config.dataDir, 'connection.json');
  writeConnectionFile(connectionFile, { url: server.url, owner: coffer.owner, ownerKey: coffer.ownerKey, network: coffer.chain.network, pid: process.pid });
  const chainWatch = startChainWatch(coffer, log);
  const { engine, owner } = coffer;

  let window: BrowserWindow | null = null;
  let opening: Promise<void> | null = null;
  const open = (route: string) => {
    // One window: clicks while it is being created wait for it instead of making another.
    opening = (opening ?? Promise.resolve()).then(async () => {
      window = await openDashboardWindow({ baseUrl: server.url, route, loginUrl: () => server.loginUrl(), existing: window });
    }).catch((error: unknown) => void log(`window: ${(error as Error).message}`));
    return opening;
  };
  app.on('second-instance', () => void open('#/'));
  app.on('window-all-closed', () => {
    // Closing the window keeps Coffer running in the tray.
  });

  const icon = (state: 'normal' | 'attention') => {
    const image = nativeImage.createFromPath(join(ICONS, `tray-${state}.png`));
    if (process.platform === 'darwin') image.setTemplateImage(state === 'normal');
    return image;
  };
  const tray = new Tray(icon('normal'));
  tray.on('click', () => void open('#/'));

  const toMenu = (items: TrayItem[]): MenuItemConstructorOptions[] =>
    items.map((item): MenuItemConstructorOptions => {
      if (item.type === 'separator') return { type: 'separator' };
      if (item.type === 'label') return { label: item.label, enabled: false };
      if (item.type === 'submenu') return { label: item.label, submenu: toMenu(item.items) };
      return {
        label: item.label,
        enabled: item.enabled ?? true,
        ...(item.checked === undefined ? {} : { type: 'checkbox' as const, checked: item.checked }),
        click: () =>
          void runTrayAction(engine, owner, item.action, {
            open: (route) => void open(route),
            toggleStartAtLogin: () => app.setLoginItemSettings({ openAtLogin: !app.getLoginItemSettings().openAtLogin }),
            quit: () => app.quit(),
          }).then(refreshTray, (error: unknown) => log(`tray: ${(error as Error).message}`)),
      };
    });

  // One refresh at a time; an event during a refresh asks for one more, so none is lost.
  let refreshing = false;
  let again = false;
  async function refreshTray(): Promise<void> {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      do {
        again = false;
        const state = await trayState(engine, owner, app.getLoginItemSettings().openAtLogin);
        tray.setImage(icon(iconState(state)));
        tray.setToolTip(tooltip(state));
        tray.setContextMenu(Menu.buildFromTemplate(toMenu(trayMenu(state))));
      } while (again);
    } catch (error) {
      log(`tray: ${(error as Error).message}`);
    } finally {
      refreshing = false;
    }
  }
  await refreshTray();

  engine.events.subscribe((event) => {
    void refreshTray();
    const note = notificationFor(event);
    if (note && Notification.isSupported()) {
      const notification = new Notification({ title: note.title, body: note.body, silent: event.type === 'deposit' });
      notification.on('click', () => void open(note.route));
      notification.show();
    }
  });

  let quitting = false;
  app.on('before-quit', (event) => {
    // Every quit waits for the graceful stop: in-flight payments finish, SQLite closes.
    event.preventDefault();
    if (quitting) return;
    quitting = true;
    void server
      .stop()
      .then(() => chainWatch.stop())
      .then(() => coffer.close())
      .then(() => removeConnectionFile(connectionFile, process.pid))
      .finally(() => app.exit(0));
  });
  log(`Coffer ${version} running in the tray; dashboard at ${server.url}`);
}
