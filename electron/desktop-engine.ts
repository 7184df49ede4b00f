import type { BrowserWindow } from 'electron';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenedCoffer } from '../server/boot/open-coffer.js';
import type { RunningServer } from '../server/boot/http-server.js';
import { assertPortFree } from '../server/boot/already-running.js';
import { isFirstStart } from '../server/boot/first-start.js';
import { SimChainUnavailableError } from '../server/chain/solana/sim/load.js';
import type { ServeConfig } from '../server/boot/serve-config.js';
import { StartDeclined, type DesktopContext } from './desktop-context.js';
import { offerRestore } from './desktop-first-start.js';
import { desktopMcpLaunch } from './mcp-launch.js';

export interface RunningEngine {
  coffer: OpenedCoffer;
  server: RunningServer;
}

/** The treasury Coffer runs on, opened: its settings, the engine and server, and the first start's window if any. */
export interface OpenedTreasury extends RunningEngine {
  settings: ServeConfig;
  /** The window of a first start where the owner chose in the setup page. */
  setupWindow: BrowserWindow | null;
  /** The owner closed the first start's window: they want no window now. */
  setupClosed: boolean;
}

/** The data dir's settings, the log written there, the first start if it is one, then the engine and server. */
export async function openTreasury(context: DesktopContext): Promise<OpenedTreasury> {
  const settings = desktopSettings(context);
  context.desktopLog.toFile(join(settings.dataDir, 'logs', 'desktop.log'));
  // A smoke run's throwaway data dir is new every time, and no one is there to answer.
  const setup =
    !context.smoke && isFirstStart(settings.dataDir) ? await offerRestore(context, settings) : { window: null, closedByOwner: false };
  const { coffer, server } = await openEngine(context, settings);
  return { settings, coffer, server, setupWindow: setup.window, setupClosed: setup.closedByOwner };
}

/** The config: the same as `coffer serve` (flags come as COFFER_* from the launcher); smoke: a throwaway one. */
function desktopSettings({ deps, smoke }: DesktopContext): ServeConfig {
  const resolved = deps.resolveConfig();
  if (!smoke) return resolved;
  return { ...resolved, dataDir: mkdtempSync(join(tmpdir(), 'coffer-smoke-')), port: 0, keyStore: 'file' };
}

/**
 * The engine on the data dir and the localhost /v1 server over it. Where the embedded chain cannot
 * run, the owner is offered devnet (a smoke run goes there without asking).
 */
async function openEngine(context: DesktopContext, settings: ServeConfig): Promise<RunningEngine> {
  const { deps, log, smoke } = context;
  // A taken port is refused before the data dir is opened: a start that cannot listen leaves no
  // new treasury behind.
  await assertPortFree(settings.port, settings.dataDir);
  const open = (network: string | undefined) =>
    deps.openCoffer({ ...settings, network, log, mcpLaunch: desktopMcpLaunch(deps.execPath, deps.env, deps.appEntry) });
  let coffer: OpenedCoffer;
  try {
    coffer = await open(settings.network);
  } catch (error) {
    if (!(error instanceof SimChainUnavailableError)) throw error;
    // A smoke run has no one to ask: it goes on where the sim chain cannot run (Windows CI) on devnet.
    if (smoke) {
      log(`smoke: ${error.message}; on devnet instead`);
      return listen(context, await open('devnet'), settings.port);
    }
    // Say so once, and offer what works here.
    const { response } = await context.electron.dialog.showMessageBox({
      type: 'warning',
      title: 'Coffer',
      message: "Coffer's embedded test chain cannot run on this computer",
      detail: `${error.message}.\n\nDevnet is Solana's public test network: free test USDC, no real money.`,
      buttons: ['Use devnet', 'Quit'],
      defaultId: 0,
      cancelId: 1,
    });
    if (response !== 0) throw new StartDeclined();
    coffer = await open('devnet');
  }
  return listen(context, coffer, settings.port);
}

async function listen({ deps, log }: DesktopContext, coffer: OpenedCoffer, port: number): Promise<RunningEngine> {
  try {
    // A taken port is an error, not a reason to move: agents' configs point at this one.
    return { coffer, server: await deps.startHttpServer({ coffer, port, version: deps.version, log }) };
  } catch (error) {
    await coffer.close();
    throw error;
  }
}
