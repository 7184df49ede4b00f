import { StartDeclined, type DesktopContext } from './desktop-context.js';
import type { ElectronApi } from './electron-api.js';

/** The installer's shortcut carries this id; Windows shows notifications only for a matching app id. */
export const APP_ID = 'dev.coffer.desktop';
/**
 * The id of an unpackaged run (`npm start`): Electron points the Start menu shortcut of the app id it
 * notifies under at its own executable, so under the installed app's id a development run would
 * rewrite the installed Coffer's shortcut.
 */
export const DEV_APP_ID = `${APP_ID}.npm-start`;

/**
 * Coffer launched again (second-instance), or reopened on macOS (activate): the dashboard opens.
 * Listened for from the first moment, so a launch while the engine still opens is not lost: it is
 * kept, and the dashboard opens once it can.
 */
export function createRelaunch() {
  let openDashboard: ((route: string) => void) | null = null;
  let openAsked = false;
  return {
    launchedAgain: () => {
      if (openDashboard === null) openAsked = true;
      else openDashboard('#/');
    },
    /** The dashboard can open now: a launch while Coffer started opens it. */
    ready(open: (route: string) => void): void {
      openDashboard = open;
      if (openAsked) openDashboard('#/');
    },
  };
}

/**
 * One Coffer at a time: the lock is taken before the app is ready; a second instance quits, and the
 * first hears of it (`launchedAgain`). False when this one is the second.
 */
export function claimSingleInstance(app: ElectronApi['app'], platform: NodeJS.Platform, launchedAgain: () => void): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return false;
  }
  app.on('second-instance', launchedAgain);
  // macOS: clicking the app again (Finder, Spotlight) opens the dashboard.
  if (platform === 'darwin') app.on('activate', launchedAgain);
  if (platform === 'win32') app.setAppUserModelId(app.isPackaged ? APP_ID : DEV_APP_ID);
  return true;
}

export async function whenAppReady(app: ElectronApi['app'], platform: NodeJS.Platform): Promise<void> {
  await app.whenReady();
  // Packaged on macOS, LSUIElement keeps Coffer out of the Dock (no flash); under `npm start` there
  // is no Info.plist of Coffer's, so it is hidden here.
  if (platform === 'darwin' && !app.isPackaged) app.dock?.hide();
}

/**
 * macOS: a packaged Coffer run from outside the Applications folder (straight from its disk image, or
 * a copy macOS translocated to a random read-only path) would hand MCP hosts and the login item a
 * path that is gone once the image is ejected or the app moved. It offers to move itself first.
 * Electron's move relaunches the copy once this process is gone and asks this one to quit
 * (electron_bundle_mover.mm); the start ends here with nothing made. Not asked in the smoke check.
 */
export async function offerMoveToApplications(context: DesktopContext): Promise<void> {
  const { electron, deps, log } = context;
  const { app } = electron;
  if (deps.platform !== 'darwin') return;
  if (!app.isPackaged || context.smoke || app.isInApplicationsFolder()) return;
  app.focus({ steal: true });
  const { response } = await electron.dialog.showMessageBox({
    type: 'question',
    title: 'Coffer',
    message: 'Move Coffer to the Applications folder?',
    detail:
      'Coffer is running from a disk image or a temporary copy. MCP hosts and start at login keep the path Coffer runs from, so they would lose it once the image is ejected.',
    buttons: ['Move to Applications', 'Not now'],
    defaultId: 0,
    cancelId: 1,
  });
  if (response !== 0) return;
  try {
    if (app.moveToApplicationsFolder()) throw new StartDeclined();
  } catch (error) {
    if (error instanceof StartDeclined) throw error;
    log(`coffer: could not move to Applications (${(error as Error).message}); starting from here`);
  }
}
