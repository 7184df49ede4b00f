import type { BrowserWindow } from 'electron';
import { assertPortFree } from '../server/boot/already-running.js';
import { startFirstStart } from '../server/boot/first-start.js';
import type { ServeConfig } from '../server/boot/serve-config.js';
import { StartDeclined, type DesktopContext } from './desktop-context.js';
import { openDashboardWindow } from './window.js';

/**
 * The first start on a data dir with no ledger: before a new treasury is made, the owner may restore
 * one (a backup file, or the recovery phrase) in a window of its own. A treasury made silently here
 * could not be restored over later: a restore never replaces one. Answers the window, to show the
 * dashboard in once Coffer runs, or that the owner closed it once they had chosen; closing it before,
 * or Quit, ends the start with nothing made.
 */
export async function offerRestore(
  context: DesktopContext,
  settings: ServeConfig,
): Promise<{ window: BrowserWindow | null; closedByOwner: boolean }> {
  const { electron, log } = context;
  const { app, dialog } = electron;
  // An app without a Dock icon is not brought to the front by itself (at login, say): the box would open behind other windows.
  if (context.deps.platform === 'darwin') app.focus({ steal: true });
  const { response } = await dialog.showMessageBox({
    type: 'question',
    title: 'Coffer',
    message: 'Welcome to Coffer',
    detail: 'Start a new treasury, or restore one you backed up (a backup file, or the recovery phrase) on this computer or another.',
    buttons: ['Start a new treasury', 'Restore a treasury…', 'Quit'],
    defaultId: 0,
    cancelId: 2,
    // Windows: plain buttons, not command links.
    noLink: true,
  });
  if (response === 2) throw new StartDeclined();
  if (response === 0) return { window: null, closedByOwner: false };
  await assertPortFree(settings.port, settings.dataDir);
  const setup = await startFirstStart(settings, log);
  // Until Coffer runs, quitting (the window closed: Electron's default quits then; Cmd+Q; a log out)
  // waits for a restore under way, so none is cut midway.
  let quitAsked = false;
  let window: BrowserWindow | null = null;
  const keepRunning = () => undefined;
  const quitAfterRestore = (event: { preventDefault(): void }) => {
    event.preventDefault();
    quitAsked = true;
    window?.destroy();
  };
  // The owner may have closed it already (a restore still finishing): a destroyed window throws.
  const showSetup = () => {
    if (window !== null && !window.isDestroyed()) window.focus();
  };
  app.on('window-all-closed', keepRunning);
  app.on('before-quit', quitAfterRestore);
  app.on('second-instance', showSetup);
  let outcome: 'new' | 'restored' | 'closed' = 'closed';
  let failure: unknown = null;
  try {
    const setupUrl = new URL(setup.setupUrl);
    window = await openDashboardWindow(electron, {
      baseUrl: setupUrl.origin,
      route: '#/',
      loginUrl: () => setup.setupUrl,
      existing: null,
    });
    const shown = window;
    const closed = new Promise<'closed'>((resolve) => shown.once('closed', () => resolve('closed')));
    outcome = await Promise.race([setup.chosen, closed]);
  } catch (error) {
    failure = error;
  }
  // A restore the owner started finishes before the window's closing counts.
  const chosen = await setup.stop();
  app.removeListener('window-all-closed', keepRunning);
  app.removeListener('before-quit', quitAfterRestore);
  app.removeListener('second-instance', showSetup);
  if (failure !== null) throw failure;
  if (quitAsked || chosen === null) throw new StartDeclined();
  // Closed once the owner had chosen: Coffer starts in the tray, and opens no window of its own.
  return outcome === 'closed' ? { window: null, closedByOwner: true } : { window, closedByOwner: false };
}
