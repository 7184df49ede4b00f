import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktop } from '../../electron/desktop.js';
import type { DesktopDeps } from '../../electron/desktop-context.js';
import { QUIT_DEADLINE_MS } from '../../electron/desktop-quit.js';
import { systemTimers, TRAY_REBUILD_MS } from '../../electron/tray-controller.js';
import { NOTIFICATION_REPEAT_MS } from '../../electron/notifications.js';
import { openCoffer } from '../../server/boot/open-coffer.js';
import { startHttpServer } from '../../server/boot/http-server.js';
import { startChainWatch } from '../../server/boot/chain-watch.js';
import { packagePath } from '../../server/package/package-files.js';
import type { ServeConfig } from '../../server/boot/serve-config.js';
import { SimChainUnavailableError } from '../../server/chain/solana/sim/load.js';
import { clickMenuItem, createFakeElectron, FakeTimers, menuLabels, type FakeElectron } from '../fixtures/fake-electron.js';
import { backupFileOf, fundedAgent, startCoffer, tempDataDir } from '../helpers/coffer.js';
import { createFirstStartClient } from '../../server/client/first-start-client.js';
import { isFirstStart } from '../../server/boot/first-start.js';
import { compileApp } from '../helpers/compiled-app.js';

/**
 * The desktop app (electron/desktop.ts) against a fake of Electron's API (test/fixtures/fake-electron.ts
 * says what it assumes of Electron) and the real engine: a real SQLite file, the embedded chain, the
 * real /v1 server. Electron's binary cannot run here; CI on hosted runners with displays runs the
 * packaged app's smoke mode (.github/workflows/desktop.yml), and docs/RELEASE.md lists what only eyes
 * can check.
 */
type Fake = FakeElectron['fake'];

interface Started {
  fake: Fake;
  calls: FakeElectron['calls'];
  timers: FakeTimers;
  dataDir: string;
  out: string[];
  err: string[];
  tray(): InstanceType<Fake['Tray']>;
  /** Calls the app's /v1 server with the owner key, as the CLI or an agent would. */
  api(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/** The settings serve and the desktop app resolve (server/boot/serve-config.ts), for a data dir: port 0, file keys. */
const serveConfig = (dataDir: string, settings: Partial<ServeConfig> = {}): ServeConfig => ({
  dataDir,
  port: 0,
  network: undefined,
  keyStore: 'file',
  usdcMint: undefined,
  baseRpc: undefined,
  baseUsdc: undefined,
  imageProviderUrl: undefined,
  imageProviderKey: undefined,
  ...settings,
});

async function startDesktop(
  options: {
    platform?: NodeJS.Platform;
    packaged?: boolean;
    env?: NodeJS.ProcessEnv;
    argv?: string[];
    darkTheme?: boolean;
    /** Windows: the taskbar's shade, when it differs from the apps'. */
    darkPanel?: boolean;
    deps?: Partial<DesktopDeps>;
    dataDir?: string;
    /** The buttons the user picks in the message boxes, in order (the first start's welcome first). */
    answers?: number[];
    /** What the user does while the app starts (the first start's window waits for them). */
    whileStarting?: (fake: Fake, timers: FakeTimers) => Promise<void>;
  } = {},
): Promise<Started> {
  const { fake, electron, calls } = createFakeElectron({
    packaged: options.packaged,
    darkTheme: options.darkTheme,
    darkPanel: options.darkPanel,
    platform: options.platform ?? 'linux',
  });
  const timers = new FakeTimers();
  const dataDir = options.dataDir ?? tempDataDir();
  const out: string[] = [];
  const err: string[] = [];
  fake.dialog.answers.push(...(options.answers ?? []));
  const desktop = createDesktop(electron, {
    platform: options.platform ?? 'linux',
    argv: options.argv ?? ['coffer'],
    env: options.env ?? {},
    execPath: process.execPath,
    home: dataDir,
    version: '9.9.9',
    icons: packagePath('build', 'icons'),
    appEntry: join(compiled.dir, 'electron', 'main.js'),
    resolveConfig: () => serveConfig(dataDir, { network: 'sim' }),
    openCoffer,
    startHttpServer,
    startChainWatch,
    timers,
    stderr: (line) => void err.push(line),
    stdout: (line) => void out.push(line),
    ...options.deps,
  });
  await Promise.all([desktop.start(), options.whileStarting?.(fake, timers)]);
  const connection = () =>
    JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { url: string; owner: string; ownerKey: string };
  return {
    fake,
    calls,
    timers,
    dataDir,
    out,
    err,
    tray: () => fake.Tray.instances[0]!,
    api: async (method, path, body, key) => {
      const { url, owner, ownerKey } = connection();
      const response = await fetch(`${url}${path}${path.includes('?') ? '&' : '?'}owner=${owner}`, {
        method,
        headers: { authorization: `Bearer ${key ?? ownerKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    stop: async () => {
      if (fake.app.exitCode === null) fake.app.quit();
      await waitFor(() => fake.app.exitCode !== null, 'the app exited');
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits for a condition by the wall clock (opening a data dir takes seconds when the suite runs in parallel). */
async function waitFor(what: () => boolean, label: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!what() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(what(), label).toBe(true);
}

/** The dashboard window the tray's "Open dashboard" opens in an app that had none. */
async function dashboardFromTray(app: Started) {
  clickMenuItem(app.tray().menu, 'Open dashboard');
  await waitFor(() => app.fake.BrowserWindow.instances[0]?.loaded.length === 1, 'the dashboard opened');
  return app.fake.BrowserWindow.instances[0]!;
}

// The MCP launch the app hands out runs the compiled app's entry with --coffer-mcp.
let compiled: ReturnType<typeof compileApp>;
beforeAll(() => {
  compiled = compileApp('desktop');
});
afterAll(() => compiled.remove());

describe('the desktop app on Linux, started by the user', () => {
  let app: Started;
  beforeAll(async () => {
    app = await startDesktop();
  });
  afterAll(async () => app.stop());

  it('has a tray whose menu holds the brake from the first moment, a connection file and a log file', () => {
    expect(menuLabels(app.tray().menu)).toEqual(
      expect.arrayContaining(['No agents yet', 'Stop all agents', 'Open dashboard', 'Quit Coffer']),
    );
    expect(existsSync(join(app.dataDir, 'connection.json'))).toBe(true);
    expect(readFileSync(join(app.dataDir, 'logs', 'desktop.log'), 'utf8')).toMatch(/Coffer 9\.9\.9 running in the tray/);
  });

  it('opens the dashboard on a first start the user launched (a desktop without a tray would show nothing), signed in by a fresh login URL', async () => {
    await waitFor(() => app.fake.BrowserWindow.instances.length === 1, 'a window opened');
    const window = app.fake.BrowserWindow.instances[0]!;
    expect(window.loaded[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?token=[\w-]+&next=%23%2F$/);
    expect(window.options.webPreferences).toMatchObject({
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      partition: 'coffer-dashboard',
    });
    // Web links, even this server's own (a generated image), open in the user's browser.
    const image = `${new URL(window.loaded[0]!).origin}/sim-images/x.svg`;
    expect(window.webContents.openHandler!({ url: image })).toEqual({ action: 'deny' });
    expect(app.fake.shell.opened).toEqual([image]);
    // A click on the icon (outside macOS) opens it again; so does starting Coffer a second time.
    app.tray().emit('click');
    app.fake.app.emit('second-instance');
    await waitFor(() => window.loaded.length === 3, 'the window loaded again');
    expect(app.fake.BrowserWindow.instances).toHaveLength(1);
  });

  it('offers no "Start at login" when not packaged (it would start Electron\'s default app)', () => {
    expect(menuLabels(app.tray().menu)).not.toContain('Start at login');
  });

  it('shows a light glyph on a dark panel and a dark one on a light panel', () => {
    expect(app.tray().image.path).toMatch(/tray-normal-on-light\.png$/);
    app.fake.nativeTheme.shouldUseDarkColors = true;
    app.fake.nativeTheme.emit('updated');
    app.timers.advance(TRAY_REBUILD_MS);
    expect(app.tray().image.path).toMatch(/tray-normal-on-dark\.png$/);
    for (const file of [
      'tray-normal-on-light.png',
      'tray-normal-on-dark.png',
      'tray-attention-on-light.png',
      'tray-attention-on-dark.png',
    ]) {
      expect(existsSync(packagePath('build', 'icons', file)), file).toBe(true);
    }
  });

  it('rebuilds the menu only when it changed, at most once a second', async () => {
    app.timers.advance(TRAY_REBUILD_MS);
    const rebuilt = () => app.tray().menusSet;
    const before = rebuilt();
    app.timers.advance(10 * TRAY_REBUILD_MS);
    expect(rebuilt()).toBe(before); // nothing changed: nothing rebuilt
    // A runaway burst: ten agents deployed in a second.
    for (let i = 0; i < 10; i++)
      expect((await app.api('POST', '/v1/agents/deploy', { agentId: `burst-${i}`, dailyBudget: '1', maxPerPayment: '1' })).status).toBe(
        200,
      );
    expect(rebuilt() - before).toBeLessThanOrEqual(1);
    app.timers.advance(TRAY_REBUILD_MS);
    expect(rebuilt() - before).toBeLessThanOrEqual(2); // ten changes, at most two menus
    expect(menuLabels(app.tray().menu)).toContain('● burst-9');
  });

  it('Linux: a burst of payments never replaces the menu (no balances in it), so a click on Stop all agents from the open menu is never dropped', async () => {
    const agent = await app.api('POST', '/v1/agents/deploy', { agentId: 'busy', dailyBudget: '100', maxPerPayment: '1', fund: '20' });
    expect(agent.status).toBe(200);
    app.timers.advance(TRAY_REBUILD_MS);
    // The user opens the menu; Linux tells the app nothing of it.
    const shown = app.tray().openInPanel();
    const set = app.tray().menusSet;
    for (let i = 0; i < 20; i++) {
      const paid = await app.api(
        'POST',
        '/v1/agents/busy/pay',
        { service: 'demo-weather', amount: '0.01', nonce: `burst-${i}` },
        agent.body.apiKey as string,
      );
      expect(paid.status).toBe(200);
      app.timers.advance(TRAY_REBUILD_MS);
    }
    // The balances moved (the tooltip says the treasury's), the menu did not.
    await app.api('POST', '/v1/treasury/faucet', { amount: '1' });
    app.timers.advance(30_000);
    await waitFor(() => {
      app.timers.advance(TRAY_REBUILD_MS);
      return /^Coffer: 9\d\d\.\d\d USDC on Solana, 1,000\.00 on Base \(sim\)/.test(app.tray().tooltip) && !app.tray().tooltip.includes('…');
    }, 'the tooltip shows the treasury balance');
    expect(app.tray().menusSet).toBe(set);
    expect(menuLabels(app.tray().menu).filter((label) => /USDC/.test(label))).toEqual([]);
    expect(app.tray().clickInPanel(shown, 'Stop all agents')).toBe(true);
    await waitFor(() => app.calls.every((call) => call.method !== 'tray.click-dropped'), 'no click dropped');
    await waitFor(() => {
      app.timers.advance(TRAY_REBUILD_MS);
      return menuLabels(app.tray().menu).includes('■ busy · stopped');
    }, 'the brake took');
  });

  it('"Stop all agents" in the menu stops every agent; the owner is not notified of what they just did', async () => {
    const before = app.fake.Notification.instances.length;
    clickMenuItem(app.tray().menu, 'Stop all agents');
    const agents = (await app.api('GET', '/v1/agents')).body.agents as { status: string }[];
    expect(agents.every((agent) => agent.status === 'suspended')).toBe(true);
    expect(app.fake.Notification.instances.slice(before).filter((n) => /stopped/.test(n.options.title))).toEqual([]);
    app.timers.advance(TRAY_REBUILD_MS);
    expect(app.tray().image.path).toMatch(/tray-attention-on-dark\.png$/);
  });

  it("the window's menu bar holds Stop all agents and Quit, and neither Reload nor the developer tools", async () => {
    expect((await app.api('POST', '/v1/agents/deploy', { agentId: 'menu-bar', dailyBudget: '1', maxPerPayment: '1' })).status).toBe(200);
    const bar = app.fake.Menu.application;
    expect(menuLabels(bar)).toEqual(expect.arrayContaining(['&Coffer', 'Stop all agents', 'Quit Coffer']));
    const roles = JSON.stringify(bar!.template).match(/"role":"\w+"/g) ?? [];
    expect(roles.filter((role) => /reload|devtools|viewmenu|filemenu|help/i.test(role))).toEqual([]);
    expect(roles).toContain('"role":"editMenu"');
    clickMenuItem(bar, 'Stop all agents');
    const agents = (await app.api('GET', '/v1/agents')).body.agents as { agentId: string; status: string }[];
    expect(agents.find((agent) => agent.agentId === 'menu-bar')?.status).toBe('suspended');
  });

  it('keeps notifications until clicked or closed, coalesces repeats per agent and kind, and a click opens the right page', async () => {
    app.timers.advance(5_000); // past the quiet that follows the owner's own stop
    await app.api('POST', '/v1/agents/burst-3/resume');
    const count = () => app.fake.Notification.instances.length;
    const before = count();
    // Stopped by someone else (the CLI): notified, once per agent within a minute.
    await app.api('POST', '/v1/agents/burst-3/kill');
    expect(count()).toBe(before + 1);
    const first = app.fake.Notification.instances.at(-1)!;
    expect(first.options.title).toBe('burst-3 stopped');
    // Named as the owner named it, as the tray lists it (its page still reached by its id).
    expect((await app.api('POST', '/v1/agents/burst-3/rename', { displayName: 'Burst three' })).status).toBe(200);
    await app.api('POST', '/v1/agents/burst-3/resume');
    await app.api('POST', '/v1/agents/burst-3/kill');
    await app.api('POST', '/v1/agents/burst-3/resume');
    await app.api('POST', '/v1/agents/burst-3/kill');
    expect(count()).toBe(before + 1);
    app.timers.advance(NOTIFICATION_REPEAT_MS);
    await app.api('POST', '/v1/agents/burst-3/resume');
    await app.api('POST', '/v1/agents/burst-3/kill');
    expect(count()).toBe(before + 2);
    expect(app.fake.Notification.instances.at(-1)!.options.title).toBe('Burst three stopped');
    expect(app.fake.Notification.instances.at(-1)!.options.body).toMatch(/\(and 2 more like it\)$/);
    // Retained until clicked: the click opens the agent's page.
    expect(first.shown).toBe(true);
    const window = app.fake.BrowserWindow.instances[0]!;
    const loads = window.loaded.length;
    first.emit('click');
    await waitFor(() => window.loaded.length === loads + 1, 'the click opened the page');
    expect(window.loaded.at(-1)).toMatch(/next=%23%2Fagents%2Fburst-3$/);
  });

  it('quits gracefully, the menu saying "Stopping…" while in-flight payments finish', async () => {
    app.fake.app.quit();
    expect(menuLabels(app.tray().menu)).toEqual(['Stopping… (in-flight payments finish first)']);
    await waitFor(() => app.fake.app.exitCode !== null, 'the app exited');
    expect(app.fake.app.exitCode).toBe(0);
    expect(existsSync(join(app.dataDir, 'connection.json'))).toBe(false);
  });
});

describe('the desktop app when things go wrong', () => {
  it('keeps the brake in the menu when the chain cannot be read at all', async () => {
    const app = await startDesktop({
      deps: {
        openCoffer: async (options) => {
          const coffer = await openCoffer(options);
          coffer.chain.usdcBalances = () => Promise.reject(new Error('RPC down'));
          coffer.chain.usdcBalance = () => Promise.reject(new Error('RPC down'));
          return coffer;
        },
      },
    });
    try {
      await app.api('POST', '/v1/agents/deploy', { agentId: 'offline-a', dailyBudget: '1', maxPerPayment: '1' });
      app.timers.advance(35_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      app.timers.advance(TRAY_REBUILD_MS);
      expect(menuLabels(app.tray().menu)).toEqual(
        expect.arrayContaining(['Treasury · sim', '● offline-a', 'Stop offline-a', 'Stop all agents', 'Quit Coffer']),
      );
      clickMenuItem(app.tray().menu, 'Stop offline-a');
      expect((await app.api('GET', '/v1/agents/offline-a/policy')).status).toBe(200);
    } finally {
      await app.stop();
    }
  });

  it('ends within its deadline when stopping hangs', async () => {
    // What the hung stop leaves open is closed by the test itself, before its data dir is removed
    // (removing it under a live ledger raced the ledger's own writes: ENOTEMPTY).
    const leftOpen: (() => Promise<void>)[] = [];
    const app = await startDesktop({
      deps: {
        openCoffer: async (options) => {
          const coffer = await openCoffer(options);
          leftOpen.push(() => coffer.close());
          return coffer;
        },
        startHttpServer: async (options) => {
          const server = await startHttpServer(options);
          leftOpen.unshift(() => server.stop());
          return { ...server, stop: () => new Promise<void>(() => undefined) };
        },
      },
    });
    app.fake.app.quit();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(app.fake.app.exitCode).toBeNull();
    app.timers.advance(QUIT_DEADLINE_MS);
    expect(app.fake.app.exitCode).toBe(0);
    expect(app.err.join('\n')).toMatch(/stopping took more than 20 s; quitting anyway/);
    for (const close of leftOpen) await close();
    rmSync(app.dataDir, { recursive: true, force: true });
  });

  it('says why it cannot start in an error dialog, configuration errors too, with where the log is', async () => {
    const { fake, electron } = createFakeElectron();
    const desktop = createDesktop(electron, {
      platform: 'linux',
      argv: [],
      env: {},
      execPath: process.execPath,
      home: '/tmp',
      version: '1',
      icons: '',
      appEntry: null,
      resolveConfig: () => {
        throw new Error('--port must be a number from 0 to 65535 (got "x")');
      },
      openCoffer,
      startHttpServer,
      startChainWatch,
      timers: new FakeTimers(),
      stderr: () => undefined,
      stdout: () => undefined,
    });
    await desktop.start();
    expect(fake.dialog.errors).toEqual([{ title: 'Coffer cannot start', content: expect.stringContaining('--port must be a number') }]);
    expect(fake.app.exitCode).toBe(1);
    // A taken port: the dialog says so and names the log.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    const dataDir = tempDataDir();
    const second = createFakeElectron();
    await createDesktop(second.electron, {
      platform: 'linux',
      argv: [],
      env: {},
      execPath: process.execPath,
      home: dataDir,
      version: '1',
      icons: packagePath('build', 'icons'),
      appEntry: join(compiled.dir, 'electron', 'main.js'),
      resolveConfig: () => serveConfig(dataDir, { port }),
      openCoffer,
      startHttpServer,
      startChainWatch,
      timers: new FakeTimers(),
      stderr: () => undefined,
      stdout: () => undefined,
    }).start();
    expect(second.fake.dialog.errors[0]?.content).toMatch(
      new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use[\\s\\S]*The log is at ${join(dataDir, 'logs', 'desktop.log')}`),
    );
    expect(second.fake.app.exitCode).toBe(1);
    // Nothing was created: no database, no keys (only the log that says why).
    expect(existsSync(join(dataDir, 'coffer.db'))).toBe(false);
    expect(existsSync(join(dataDir, 'keys'))).toBe(false);
    // The data dir was left usable (its lock released).
    const reopened = await openCoffer({ dataDir, keyStore: 'file', log: () => undefined });
    await reopened.close();
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('where the sim chain cannot run, one dialog offers devnet, and starts there', async () => {
    const asked: (string | undefined)[] = [];
    const app = await startDesktop({
      deps: {
        openCoffer: async (options) => {
          asked.push(options.network);
          if (options.network !== 'devnet') throw new SimChainUnavailableError('win32-x64');
          return openCoffer({ ...options, network: 'http://127.0.0.1:9' });
        },
      },
    });
    try {
      expect(asked).toEqual(['sim', 'devnet']);
      expect(app.fake.dialog.boxes).toEqual([
        expect.objectContaining({ message: 'Welcome to Coffer' }),
        expect.objectContaining({ buttons: ['Use devnet', 'Quit'], message: "Coffer's embedded test chain cannot run on this computer" }),
      ]);
      expect(app.fake.dialog.errors).toEqual([]);
      expect(menuLabels(app.tray().menu)).toContain('Stop all agents');
    } finally {
      await app.stop();
    }
  });

  it('a first start offers restore: a backup file restored in its window, Coffer starts on that treasury and shows it there', async () => {
    const passphrase = 'restored by the desktop app';
    const t = await startCoffer();
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      await fundedAgent(t, 'restored-scout', '3.00');
      bytes = await backupFileOf(t, passphrase);
    } finally {
      await t.stop();
    }
    const app = await startDesktop({
      answers: [1],
      whileStarting: async (fake) => {
        // The owner's part, as the setup page plays it: the file, then its passphrase.
        await waitFor(() => fake.BrowserWindow.instances[0]?.loaded.length === 1, 'the setup window opened');
        const setupUrl = new URL(fake.BrowserWindow.instances[0]!.loaded[0]!);
        expect(setupUrl.pathname).toBe('/setup');
        const setup = createFirstStartClient(setupUrl.origin, setupUrl.searchParams.get('token')!);
        expect(await setup.sendBackupFile(bytes)).toMatchObject({ network: 'sim' });
        expect(await setup.restoreFile({ passphrase })).toMatchObject({ state: 'restored' });
      },
    });
    try {
      expect(app.fake.dialog.boxes).toEqual([
        expect.objectContaining({ message: 'Welcome to Coffer', buttons: ['Start a new treasury', 'Restore a treasury…', 'Quit'] }),
      ]);
      expect(menuLabels(app.tray().menu)).toContain('● restored-scout');
      expect((await app.api('GET', '/v1/agents/restored-scout/balance')).body).toMatchObject({ balance: '3.00' });
      // The same window now shows the dashboard, signed in.
      await waitFor(() => app.fake.BrowserWindow.instances[0]!.loaded.length === 2, 'the dashboard loaded in the setup window');
      expect(app.fake.BrowserWindow.instances).toHaveLength(1);
      expect(app.fake.BrowserWindow.instances[0]!.loaded[1]).toMatch(/\/login\?token=[\w-]+&next=%23%2F$/);
      expect(app.fake.dialog.errors).toEqual([]);
    } finally {
      await app.stop();
    }
  });

  it('a first start waits for a restore under way when its window is closed, then starts in the tray on the restored treasury', async () => {
    const passphrase = 'closed while restoring';
    const t = await startCoffer();
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      await fundedAgent(t, 'kept', '2.00');
      bytes = await backupFileOf(t, passphrase);
    } finally {
      await t.stop();
    }
    const dataDir = tempDataDir();
    const app = await startDesktop({
      dataDir,
      answers: [1],
      whileStarting: async (fake) => {
        await waitFor(() => fake.BrowserWindow.instances[0]?.loaded.length === 1, 'the setup window opened');
        const setupUrl = new URL(fake.BrowserWindow.instances[0]!.loaded[0]!);
        const setup = createFirstStartClient(setupUrl.origin, setupUrl.searchParams.get('token')!);
        await setup.sendBackupFile(bytes);
        const restoring = setup.restoreFile({ passphrase });
        // Closed while the restore runs (it holds the data dir's lock): it is not cut.
        await waitFor(() => existsSync(join(dataDir, 'coffer.lock')), 'the restore started');
        fake.BrowserWindow.instances[0]!.userCloses();
        // Launched again meanwhile: the closed window is not brought up (Electron would throw).
        fake.app.emit('second-instance');
        await restoring.catch(() => undefined);
      },
    });
    try {
      expect(app.fake.app.exitCode).toBeNull();
      expect(menuLabels(app.tray().menu)).toContain('● kept');
      // The closed setup window stays closed; the launch made meanwhile opens the dashboard once it runs.
      await waitFor(() => app.fake.BrowserWindow.instances.length === 2, 'the relaunch opened the dashboard');
      expect(app.fake.BrowserWindow.instances[0]!.destroyed).toBe(true);
      expect(readdirSync(app.dataDir)).not.toContain('.first-start-upload.coffer');
    } finally {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a first start ends with nothing made when the owner quits the welcome or closes the setup window', async () => {
    const quit = await startDesktop({ answers: [2] });
    expect(quit.fake.app.exitCode).toBe(0);
    expect(quit.fake.Tray.instances).toHaveLength(0);
    expect(existsSync(join(quit.dataDir, 'coffer.db'))).toBe(false);
    await quit.stop();

    // Quit (Cmd+Q, a log out) while the setup window is open: nothing is made.
    const quitting = await startDesktop({
      answers: [1],
      whileStarting: async (fake) => {
        await waitFor(() => fake.BrowserWindow.instances[0]?.loaded.length === 1, 'the setup window opened');
        fake.app.quit();
      },
    });
    expect(quitting.fake.app.exitCode).toBe(0);
    expect(quitting.fake.Tray.instances).toHaveLength(0);
    expect(isFirstStart(quitting.dataDir)).toBe(true);
    await quitting.stop();

    const closed = await startDesktop({
      answers: [1],
      whileStarting: async (fake) => {
        await waitFor(() => fake.BrowserWindow.instances[0]?.loaded.length === 1, 'the setup window opened');
        fake.BrowserWindow.instances[0]!.userCloses();
      },
    });
    expect(closed.fake.app.exitCode).toBe(0);
    expect(closed.fake.dialog.errors).toEqual([]);
    expect(existsSync(join(closed.dataDir, 'coffer.db'))).toBe(false);
    await closed.stop();
  });

  it('Coffer launched again while it still starts opens the dashboard once it runs (not lost); quitting takes the tray icon down before the exit', async () => {
    const app = await startDesktop({
      argv: ['coffer', '--hidden'],
      // Started at login (no window of its own), and launched again by the user before the engine is open.
      whileStarting: async (fake) => {
        fake.app.emit('second-instance');
      },
    });
    try {
      await waitFor(() => app.fake.BrowserWindow.instances.length === 1, 'the dashboard opened for the launch made while starting');
      expect(app.fake.BrowserWindow.instances[0]!.loaded[0]).toMatch(/\/login\?token=/);
    } finally {
      await app.stop();
    }
    const destroyed = app.calls.findIndex((call) => call.method === 'tray.destroy');
    expect(destroyed).toBeGreaterThanOrEqual(0);
    expect(destroyed).toBeLessThan(app.calls.findIndex((call) => call.method === 'app.exit'));
    expect(app.tray().destroyed).toBe(true);
  });

  it('a quit asked while the engine still opens waits for it, then stops gracefully (nothing cut midway)', async () => {
    const dataDir = tempDataDir();
    try {
      await (await startDesktop({ dataDir, argv: ['coffer', '--hidden'] })).stop();
      const app = await startDesktop({
        dataDir,
        argv: ['coffer', '--hidden'],
        whileStarting: async (fake) => {
          await waitFor(() => existsSync(join(dataDir, 'coffer.lock')), 'the engine is opening');
          fake.app.quit();
        },
      });
      await waitFor(() => app.fake.app.exitCode !== null, 'the app exited');
      expect(app.fake.app.exitCode).toBe(0);
      // It ran, then stopped as any quit does: the tray taken down before the exit, the connection file gone.
      const exit = app.calls.findIndex((call) => call.method === 'app.exit');
      expect(app.calls.findIndex((call) => call.method === 'tray.destroy')).toBeGreaterThanOrEqual(0);
      expect(app.calls.findIndex((call) => call.method === 'tray.destroy')).toBeLessThan(exit);
      expect(existsSync(join(dataDir, 'connection.json'))).toBe(false);
      await app.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a quit held while the engine opens is held no longer than a graceful stop may take', async () => {
    const app = await startDesktop({
      argv: ['coffer', '--hidden'],
      whileStarting: async (fake, timers) => {
        fake.app.quit();
        // The open stalls past the deadline (here: the clock moves before it is done).
        timers.advance(QUIT_DEADLINE_MS);
      },
    });
    expect(app.fake.app.exitCode).toBe(0);
    expect(app.err.join('\n')).toMatch(/still opening 20 s after a quit; quitting anyway/);
    await app.stop();
  });

  it('a minimized dashboard is brought back by the next open, signed in afresh', async () => {
    const app = await startDesktop({ argv: ['coffer', '--hidden'] });
    try {
      const window = await dashboardFromTray(app);
      window.minimize();
      clickMenuItem(app.tray().menu, 'Open dashboard');
      await waitFor(() => window.loaded.length === 2, 'opened again');
      expect(window.isMinimized()).toBe(false);
      expect(app.fake.BrowserWindow.instances).toHaveLength(1);
    } finally {
      await app.stop();
    }
  });

  it('an open keeps what the owner typed and did not send: the page refuses the reload, and the window is brought up as it is', async () => {
    const app = await startDesktop({ argv: ['coffer', '--hidden'] });
    try {
      const window = await dashboardFromTray(app);
      window.webContents.refusesUnload = true;
      window.minimize();
      const focused = window.focused;
      clickMenuItem(app.tray().menu, 'Open dashboard');
      await waitFor(() => window.focused > focused, 'brought up');
      expect(window.loaded).toHaveLength(1);
      expect(window.isMinimized()).toBe(false);
      // A notification's page: reached inside the page (its route), the input kept.
      expect((await app.api('POST', '/v1/agents/deploy', { agentId: 'typed', dailyBudget: '1', maxPerPayment: '1' })).status).toBe(200);
      await app.api('POST', '/v1/agents/typed/kill');
      app.fake.Notification.instances.at(-1)!.emit('click');
      await waitFor(
        () => app.calls.some((call) => call.method === 'executeJavaScript' && String(call.args[0]).includes('#/agents/typed')),
        'the page went to the agent',
      );
      expect(window.loaded).toHaveLength(1);
      // Sent (or gone): the next open signs it in afresh.
      window.webContents.refusesUnload = false;
      clickMenuItem(app.tray().menu, 'Open dashboard');
      await waitFor(() => window.loaded.length === 2, 'signed in afresh');
      // The owner closing the window with input still typed closes it: only Coffer's reload is refused.
      window.webContents.refusesUnload = true;
      expect(window.userCloses()).toBe(true);
    } finally {
      await app.stop();
    }
  });

  it('a window that fails to load is closed, and the next open makes a new one', async () => {
    const app = await startDesktop({ argv: ['coffer', '--hidden'] });
    try {
      expect(app.fake.BrowserWindow.instances).toHaveLength(0); // started at login: stays in the tray
      app.fake.BrowserWindow.failNextLoad = new Error('ERR_CONNECTION_REFUSED');
      clickMenuItem(app.tray().menu, 'Open dashboard');
      await waitFor(() => app.fake.BrowserWindow.instances[0]?.destroyed === true, 'the failed window was closed');
      expect(app.err.join('\n')).toMatch(/window: ERR_CONNECTION_REFUSED/);
      clickMenuItem(app.tray().menu, 'Open dashboard');
      await waitFor(() => app.fake.BrowserWindow.instances.length === 2, 'a new window');
    } finally {
      await app.stop();
    }
  });
});

describe('the desktop app per platform', () => {
  it('macOS: a click opens the menu, not the dashboard; the app is reopened with activate; template icons; no Dock icon', async () => {
    const app = await startDesktop({ platform: 'darwin', argv: ['coffer'] });
    try {
      // A click pops the menu up (made then); it never opens the dashboard, and no menu is set ahead.
      const windowsBefore = app.fake.BrowserWindow.instances.length;
      expect(menuLabels(app.tray().openInPanel().menu)[0]).toBe('Stop all agents');
      expect(app.tray().menusSet).toBe(0);
      // A quick second click opens the menu too (macOS would call it a double-click otherwise).
      expect(app.tray().ignoresDoubleClicks).toBe(true);
      expect(app.fake.BrowserWindow.instances).toHaveLength(windowsBefore);
      expect(app.tray().image).toMatchObject({ template: true, path: expect.stringMatching(/trayTemplate\.png$/) });
      expect(app.calls.some((call) => call.method === 'dock.hide')).toBe(true);
      // The first start's welcome box is brought to the front: an app with no Dock icon is not, by itself.
      expect(app.calls.find((call) => call.method === 'app.focus')?.args).toEqual([{ steal: true }]);
      expect(app.fake.dialog.boxes).toEqual([expect.objectContaining({ message: 'Welcome to Coffer' })]);
      const windows = app.fake.BrowserWindow.instances.length;
      app.fake.app.emit('activate');
      await waitFor(
        () => app.fake.BrowserWindow.instances.length + (app.fake.BrowserWindow.instances[0]?.loaded.length ?? 0) > windows + 1,
        'activate opened the dashboard',
      );
      await app.api('POST', '/v1/agents/deploy', { agentId: 'mac-a', dailyBudget: '1', maxPerPayment: '1' });
      await app.api('POST', '/v1/agents/mac-a/kill');
      app.timers.advance(TRAY_REBUILD_MS);
      expect(app.tray().image).toMatchObject({ template: true, path: expect.stringMatching(/trayAttentionTemplate\.png$/) });
    } finally {
      await app.stop();
    }
  });

  it('a later launch someone made shows the dashboard (GNOME without the AppIndicator extension shows no tray); one at login stays in the tray', async () => {
    const dataDir = tempDataDir();
    try {
      const windowsOf = async (argv: string[]) => {
        const app = await startDesktop({ dataDir, argv });
        try {
          // The dashboard opens once the app runs; give it the moment it takes.
          if (!argv.includes('--hidden')) await waitFor(() => app.fake.BrowserWindow.instances.length > 0, 'a window opened');
          return app.fake.BrowserWindow.instances.length;
        } finally {
          await app.stop();
        }
      };
      expect(await windowsOf(['coffer'])).toBe(1); // the first start
      expect(await windowsOf(['coffer'])).toBe(1); // a later launch from the app grid
      expect(await windowsOf(['coffer', '--hidden'])).toBe(0); // at login
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('macOS: the menu is made at the click and nothing replaces it while it shows: Stop all agents after pointing at an agent and a new held request is never lost', async () => {
    const app = await startDesktop({ platform: 'darwin', argv: ['coffer', '--hidden'] });
    try {
      const agent = await app.api('POST', '/v1/agents/deploy', { agentId: 'mac-b', dailyBudget: '10', maxPerPayment: '1', fund: '5' });
      expect(agent.status).toBe(200);
      app.timers.advance(TRAY_REBUILD_MS);
      // "&" is not a mnemonic: the name reads as typed.
      expect((await app.api('POST', '/v1/agents/mac-b/rename', { displayName: 'R&D' })).status).toBe(200);
      expect(JSON.stringify(app.tray().openInPanel().menu!.template)).toContain('"label":"Stop R&&D"');
      const shown = app.tray().openInPanel();
      // The owner points at the agent's line and back: macOS tells the root menu it closed.
      shown.menu!.submenuOpensAndCloses();
      // Meanwhile the agent asks for a payment above its "ask above".
      expect((await app.api('POST', '/v1/agents/mac-b/policy', { askAbove: '0.005' })).status).toBe(200);
      const held = await app.api('POST', '/v1/agents/mac-b/pay', { service: 'demo-weather', amount: '0.01' }, agent.body.apiKey as string);
      expect(held.status).toBe(202);
      app.timers.advance(5 * TRAY_REBUILD_MS);
      expect(app.tray().clickInPanel(shown, 'Stop all agents')).toBe(true);
      expect(app.calls.filter((call) => call.method === 'tray.click-dropped')).toEqual([]);
      const agents = (await app.api('GET', '/v1/agents')).body.agents as { status: string }[];
      expect(agents.map((listed) => listed.status)).toEqual(['suspended']);
      // The next click makes the menu afresh: it says what changed, the brake first.
      expect(menuLabels(shown.menu)[0]).toBe('Stop all agents');
      expect(menuLabels(app.tray().openInPanel().menu)).toEqual(expect.arrayContaining([expect.stringMatching(/^■ R&&D · .* · stopped$/)]));
    } finally {
      await app.stop();
    }
  });

  it('Linux: a budget passing its warning share and a new held request with the menu open change nothing in it, so Stop all agents from it is never dropped', async () => {
    const app = await startDesktop();
    try {
      const agent = await app.api('POST', '/v1/agents/deploy', { agentId: 'near', dailyBudget: '0.05', maxPerPayment: '1', fund: '5' });
      app.timers.advance(TRAY_REBUILD_MS);
      const shown = app.tray().openInPanel();
      const set = app.tray().menusSet;
      const pay = () => app.api('POST', '/v1/agents/near/pay', { service: 'demo-weather', amount: '0.01' }, agent.body.apiKey as string);
      // To 80 % of its daily budget, then a payment that waits for the owner.
      for (let i = 0; i < 4; i++) expect((await pay()).status).toBe(200);
      expect((await app.api('POST', '/v1/agents/near/policy', { askAbove: '0.005' })).status).toBe(200);
      expect((await pay()).status).toBe(202);
      app.timers.advance(5 * TRAY_REBUILD_MS);
      await waitFor(() => {
        app.timers.advance(TRAY_REBUILD_MS);
        return /1 near a limit · 1 approval waiting$/.test(app.tray().tooltip);
      }, 'the tooltip says it');
      expect(app.tray().image.path).toMatch(/tray-attention-on-light\.png$/);
      expect(app.tray().menusSet).toBe(set);
      expect(app.tray().clickInPanel(shown, 'Stop all agents')).toBe(true);
      expect(app.calls.filter((call) => call.method === 'tray.click-dropped')).toEqual([]);
      expect(((await app.api('GET', '/v1/agents')).body.agents as { status: string }[])[0]?.status).toBe('suspended');
    } finally {
      await app.stop();
    }
  });

  it('Windows: the app id matches the installer shortcut, so notifications show; start at login goes through Electron, on and off again', async () => {
    const app = await startDesktop({ platform: 'win32', packaged: true });
    // Windows pops the menu up on a right-click, made then; nothing is set on the tray ahead.
    const menu = () => app.tray().openInPanel().menu;
    const checkbox = () =>
      JSON.stringify(menu()!.template).match(/"label":"Start at login","enabled":true,"type":"checkbox","checked":(\w+)/)?.[1];
    try {
      expect(app.calls).toContainEqual({ method: 'setAppUserModelId', args: ['dev.coffer.desktop'] });
      expect(checkbox()).toBe('false');
      clickMenuItem(menu(), 'Start at login');
      expect(app.calls).toContainEqual({
        method: 'setLoginItemSettings',
        args: [{ openAtLogin: true, args: ['--hidden'], enabled: true }],
      });
      expect(app.fake.app.loginItems).toEqual([{ path: process.execPath, args: ['--hidden'] }]);
      app.timers.advance(TRAY_REBUILD_MS);
      // Windows finds the login item only by its path and arguments: read back with them, it is on.
      expect(checkbox()).toBe('true');
      clickMenuItem(menu(), 'Start at login');
      expect(app.calls).toContainEqual({
        method: 'setLoginItemSettings',
        args: [{ openAtLogin: false, args: ['--hidden'], enabled: true }],
      });
      expect(app.fake.app.loginItems).toEqual([]);
      app.timers.advance(TRAY_REBUILD_MS);
      expect(checkbox()).toBe('false');
      // On again, then switched off in Task Manager: the menu says off, and a click turns it on there too.
      clickMenuItem(menu(), 'Start at login');
      app.fake.app.startupApproved = false;
      expect(checkbox()).toBe('false');
      clickMenuItem(menu(), 'Start at login');
      expect(app.fake.app.startupApproved).toBe(true);
      expect(checkbox()).toBe('true');
    } finally {
      await app.stop();
    }
  });

  it('macOS, run from a disk image or a translocated copy: it offers to move itself to Applications first (MCP configs and start at login need a place that stays)', async () => {
    const dataDir = tempDataDir();
    try {
      const moved = await startDesktop({
        platform: 'darwin',
        packaged: true,
        dataDir,
        answers: [0],
        whileStarting: async (fake) => void (fake.app.inApplicationsFolder = false),
      });
      expect(moved.fake.dialog.boxes[0]).toMatchObject({ message: 'Move Coffer to the Applications folder?' });
      expect(moved.calls.map((call) => call.method)).toContain('moveToApplicationsFolder');
      // The copy in Applications starts instead: this one made nothing and ends.
      await waitFor(() => moved.fake.app.exitCode !== null, 'it quit for the moved copy');
      expect(moved.fake.app.exitCode).toBe(0);
      expect(moved.fake.Tray.instances).toHaveLength(0);
      expect(existsSync(join(dataDir, 'coffer.db'))).toBe(false);
      // "Not now": it starts from where it is.
      const stayed = await startDesktop({
        platform: 'darwin',
        packaged: true,
        argv: ['coffer', '--hidden'],
        answers: [1],
        whileStarting: async (fake) => void (fake.app.inApplicationsFolder = false),
      });
      expect(stayed.fake.dialog.boxes[0]).toMatchObject({ message: 'Move Coffer to the Applications folder?' });
      expect(stayed.fake.Tray.instances).toHaveLength(1);
      await stayed.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('macOS 13 and later: start at login waiting for the owner to allow it says so, and opens System Settings there', async () => {
    const app = await startDesktop({ platform: 'darwin', packaged: true, argv: ['coffer', '--hidden'] });
    try {
      app.fake.app.loginItemNeedsApproval = true;
      clickMenuItem(app.tray().openInPanel().menu, 'Start at login');
      expect(menuLabels(app.tray().openInPanel().menu)).toContain('Start at login: allow Coffer in System Settings…');
      clickMenuItem(app.tray().openInPanel().menu, 'Start at login: allow Coffer in System Settings…');
      expect(app.fake.shell.opened).toEqual(['x-apple.systempreferences:com.apple.LoginItems-Settings.extension']);
      // Allowed there: a plain checked item again.
      app.fake.app.loginItemNeedsApproval = false;
      expect(JSON.stringify(app.tray().openInPanel().menu!.template)).toMatch(
        /"label":"Start at login","enabled":true,"type":"checkbox","checked":true/,
      );
    } finally {
      await app.stop();
    }
  });

  it('Windows: a right-click pops the menu up with balances, made then; nothing replaces it while it shows; the glyph follows the taskbar', async () => {
    const app = await startDesktop({ platform: 'win32', darkTheme: false, darkPanel: true });
    try {
      // Unpackaged (npm start): an app id of its own, so the installed Coffer's Start menu shortcut is left alone.
      expect(app.calls).toContainEqual({ method: 'setAppUserModelId', args: ['dev.coffer.desktop.npm-start'] });
      // Windows 10's default: a dark taskbar beside light apps.
      expect(app.tray().image.path).toMatch(/tray-normal-on-dark\.png$/);
      const agent = await app.api('POST', '/v1/agents/deploy', { agentId: 'win-a', dailyBudget: '0.05', maxPerPayment: '1', fund: '2.5' });
      await app.api('POST', '/v1/agents/deploy', { agentId: 'win-b', dailyBudget: '1', maxPerPayment: '1' });
      app.timers.advance(30_000);
      await waitFor(() => {
        app.timers.advance(TRAY_REBUILD_MS);
        return menuLabels(app.tray().openInPanel().menu).includes('● win-a · 2.50 USDC on Solana, 0.00 on Base');
      }, 'the balance shows');
      const shown = app.tray().openInPanel();
      expect(menuLabels(shown.menu).some((label) => /^Treasury: 997\.50 USDC on Solana, 1,000\.00 on Base · sim$/.test(label))).toBe(true);
      // The menu shows; payments past a warning share, a held request and a stop meanwhile leave it as
      // it is, Stop all agents from it works, and the next one says what changed.
      const before = JSON.stringify(shown.menu!.template);
      const pay = () => app.api('POST', '/v1/agents/win-a/pay', { service: 'demo-weather', amount: '0.01' }, agent.body.apiKey as string);
      for (let i = 0; i < 4; i++) expect((await pay()).status).toBe(200);
      expect((await app.api('POST', '/v1/agents/win-a/policy', { askAbove: '0.005' })).status).toBe(200);
      expect((await pay()).status).toBe(202);
      await app.api('POST', '/v1/agents/win-a/kill');
      app.timers.advance(5 * TRAY_REBUILD_MS);
      expect(JSON.stringify(shown.menu!.template)).toBe(before);
      expect(app.tray().menusSet).toBe(0);
      expect(app.tray().clickInPanel(shown, 'Stop all agents')).toBe(true);
      expect(((await app.api('GET', '/v1/agents')).body.agents as { status: string }[]).map((listed) => listed.status)).toEqual([
        'suspended',
        'suspended',
      ]);
      expect(menuLabels(app.tray().openInPanel().menu)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^■ win-a · [\d.,]+ USDC on Solana, [\d.,]+ on Base · stopped$/)]),
      );
      // A left click opens the dashboard, as on Linux.
      const windows = app.fake.BrowserWindow.instances.length;
      app.tray().emit('click');
      await waitFor(
        () => app.fake.BrowserWindow.instances.length > windows || app.fake.BrowserWindow.instances.some((w) => w.loaded.length > 1),
        'the dashboard opened',
      );
    } finally {
      await app.stop();
    }
  });

  it('Windows: a shutdown or log-off runs the graceful stop and holds the session until it is done (no before-quit comes then)', async () => {
    const app = await startDesktop({ platform: 'win32', argv: ['coffer', '--hidden'] });
    let quitEvents = 0;
    app.fake.app.on('before-quit', () => (quitEvents += 1));
    // Windows asks its top-level windows; Coffer keeps a hidden one for it, never shown.
    const watcher = app.fake.BrowserWindow.instances.find(
      (window) => window.options.show === false && window.listenerCount('query-session-end') > 0,
    );
    expect(watcher).toBeDefined();
    expect(watcher!.shown).toBe(false);
    let held = 0;
    watcher!.emit('query-session-end', { reasons: ['logoff'], preventDefault: () => (held += 1) });
    expect(held).toBe(1);
    expect(app.tray().tooltip).toBe('Coffer: stopping…');
    // The session ends before the stop did: it is not begun twice.
    watcher!.emit('session-end', { reasons: ['logoff'], preventDefault: () => undefined });
    await waitFor(() => app.fake.app.exitCode !== null, 'the app exited');
    expect(app.fake.app.exitCode).toBe(0);
    expect(quitEvents).toBe(0);
    expect(existsSync(join(app.dataDir, 'connection.json'))).toBe(false);
    expect(readFileSync(join(app.dataDir, 'logs', 'desktop.log'), 'utf8')).toMatch(/Windows is ending the session \(logoff\): stopping/);
    await app.stop();
  });

  it('Linux, packaged: start at login is an XDG autostart entry that starts Coffer in the tray', async () => {
    const app = await startDesktop({
      platform: 'linux',
      packaged: true,
      env: { APPIMAGE: '/home/ada/Apps/Coffer.AppImage', APPDIR: '/tmp/.mount_CofferAb' },
      deps: { execPath: '/tmp/.mount_CofferAb/coffer' },
    });
    const entry = join(app.dataDir, '.config', 'autostart', 'coffer.desktop');
    try {
      clickMenuItem(app.tray().menu, 'Start at login');
      expect(readFileSync(entry, 'utf8')).toMatch(
        /^\[Desktop Entry\]\nType=Application\nName=Coffer\n[\s\S]*Exec="\/home\/ada\/Apps\/Coffer\.AppImage" --hidden\n/,
      );
      app.timers.advance(TRAY_REBUILD_MS);
      clickMenuItem(app.tray().menu, 'Start at login');
      expect(existsSync(entry)).toBe(false);
    } finally {
      await app.stop();
    }
  });
});

/**
 * The desktop app in smoke mode as CI runs it packaged, its output lines collected in `out`. Smoke mode
 * ignores the data dir, port and key store it is given (a throwaway data dir, port 0, a file key store).
 */
function startSmoke(electron: FakeElectron['electron'], out: string[], overrides: Partial<DesktopDeps> = {}) {
  return createDesktop(electron, {
    platform: 'linux',
    argv: [],
    env: { COFFER_SMOKE: '1' },
    execPath: process.execPath,
    home: '/tmp',
    version: '1',
    icons: packagePath('build', 'icons'),
    appEntry: join(compiled.dir, 'electron', 'main.js'),
    resolveConfig: () => serveConfig('/nonexistent/coffer', { port: 7402, keyStore: 'auto' }),
    openCoffer,
    startHttpServer,
    startChainWatch,
    timers: systemTimers,
    stderr: () => undefined,
    stdout: (line) => void out.push(line),
    ...overrides,
  }).start();
}

describe('the smoke mode (COFFER_SMOKE=1) that CI runs in the packaged app', () => {
  it('checks the tray and menu, the window signing in, Stop all from the menu and the MCP launch, then quits with 0', async () => {
    const { fake, electron } = createFakeElectron();
    const out: string[] = [];
    await startSmoke(electron, out);
    await waitFor(() => fake.app.exitCode !== null, 'the smoke run quit');
    expect(out).toEqual([
      'smoke: tray and menu: ok',
      'smoke: window signs in: ok',
      'smoke: "Stop all agents" from the menu: ok',
      'smoke: MCP launch: ok',
    ]);
    expect(fake.app.exitCode).toBe(0);
  });

  it('asks no one where the sim chain cannot run (Windows CI): it goes on, on devnet', async () => {
    const { fake, electron } = createFakeElectron();
    const out: string[] = [];
    const networks: (string | undefined)[] = [];
    await startSmoke(electron, out, {
      platform: 'win32',
      openCoffer: async (options) => {
        networks.push(options.network);
        if (options.network !== 'devnet') throw new SimChainUnavailableError('win32-x64');
        return openCoffer({ ...options, network: 'http://127.0.0.1:9' });
      },
    });
    await waitFor(() => fake.app.exitCode !== null, 'the smoke run quit');
    expect(networks).toEqual([undefined, 'devnet']);
    expect(fake.dialog.boxes).toEqual([]);
    expect(out.filter((line) => line.endsWith(': ok'))).toHaveLength(4);
    expect(fake.app.exitCode).toBe(0);
  });

  it('exits 1 when a check fails (here: the window never signs in)', async () => {
    const { fake, electron } = createFakeElectron();
    const out: string[] = [];
    const timers = new FakeTimers();
    fake.BrowserWindow.signsIn = false;
    const started = startSmoke(electron, out, {
      timers,
    });
    await waitFor(() => fake.BrowserWindow.instances.length === 1, 'the window opened');
    for (let i = 0; i < 200 && fake.app.exitCode === null; i++) {
      timers.advance(1_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await started;
    expect(out).toContain('smoke: window signs in: FAILED (not signed in after 20 s)');
    await waitFor(() => fake.app.exitCode !== null, 'the smoke run ended');
    expect(fake.app.exitCode).toBe(1);
  });
});
