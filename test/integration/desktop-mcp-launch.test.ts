import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fundedAgent, tempDataDir } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { desktopMcpLaunch } from '../../electron/mcp-launch.js';
import { MCP_FLAG } from '../../electron/mcp-mode.js';
import { compileApp } from '../helpers/compiled-app.js';

/**
 * The MCP config the desktop app hands out (deploy, a new key, an approved agent) must start Coffer's
 * MCP bridge, not a second copy of the app, and without ELECTRON_RUN_AS_NODE (the packaged app's
 * fuses turn it off). Assumed of Electron, from its docs and sources: its executable runs the app's
 * main script (packaged: the one in its asar; unpackaged: the path it is given) in a main process
 * whose Node sees the arguments as given (`process.argv`) and has stdio over the pipes a host gives
 * it. Here Node runs the compiled main script and stands in for that executable; the packaged app's
 * own launch is checked by its smoke mode on hosted runners (.github/workflows/desktop.yml).
 * AppImage: the executable lives in a mount that changes at every start, and the runtime sets
 * APPIMAGE to the image file (https://docs.appimage.org/packaging-guide/environment-variables.html).
 */

describe('the MCP launch the desktop app prints', () => {
  const dataDir = tempDataDir();
  let compiled: ReturnType<typeof compileApp>;
  let main: string;
  beforeAll(() => {
    compiled = compileApp('mcp-launch');
    main = join(compiled.dir, 'electron', 'main.js');
  });
  afterAll(() => compiled.remove());
  const t = useCoffer(() => ({ dataDir, mcpLaunch: desktopMcpLaunch(process.execPath, {}, main) }));

  /** Connects as an MCP host would, with exactly the launch's command, arguments and environment. */
  async function hostOf(launch: { command: string; args: string[]; env?: Record<string, string> }, extraEnv: Record<string, string> = {}) {
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: launch.command,
        args: launch.args,
        env: { PATH: process.env.PATH ?? '', ...extraEnv, ...launch.env },
      }),
    );
    return client;
  }

  /** A funded agent's variables, as its MCP config carries them (with a fresh key). */
  async function agentEnv(agentId: string): Promise<Record<string, string>> {
    await fundedAgent(t, agentId, '1.00');
    const key = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/key`));
    return { COFFER_URL: t.url, COFFER_OWNER: t.owner, COFFER_AGENT_ID: agentId, COFFER_API_KEY: key.body.apiKey as string };
  }

  /** The balance the bridge reads for a host started with this launch. */
  async function balanceThrough(launch: Parameters<typeof hostOf>[0], extraEnv: Record<string, string> = {}) {
    const client = await hostOf(launch, extraEnv);
    try {
      return await balanceOf(client);
    } finally {
      await client.close();
    }
  }

  const balanceOf = async (client: Client) =>
    ((await client.callTool({ name: 'check_balance', arguments: {} })) as { structuredContent?: { balance?: string } }).structuredContent
      ?.balance;

  it('starts the app as the MCP bridge (--coffer-mcp), with nothing in its environment but the agent, and its tools work', async () => {
    await fundedAgent(t, 'desktop-agent', '1.00');
    const key = await t.api('POST', t.withOwner('/v1/agents/desktop-agent/key'));
    const { mcpConfig } = key.body;
    expect(mcpConfig).toEqual({
      command: process.execPath,
      args: [main, MCP_FLAG],
      env: { COFFER_URL: t.url, COFFER_OWNER: t.owner, COFFER_AGENT_ID: 'desktop-agent', COFFER_API_KEY: key.body.apiKey },
    });
    const client = await hostOf(mcpConfig);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['check_balance', 'pay', 'fetch_paid', 'kill_agent', 'set_policy']),
      );
      expect(await balanceOf(client)).toBe('1.00');
    } finally {
      await client.close();
    }
  });

  it("serves where the main process's stdin is a stream that has already ended (Electron on Windows): it reads descriptor 0", async () => {
    const env = await agentEnv('windows-agent');
    const windowsMain = fileURLToPath(new URL('../fixtures/electron-windows-stdin.mjs', import.meta.url));
    expect(
      await balanceThrough({ command: process.execPath, args: ['--import', pathToFileURL(windowsMain).href, main, MCP_FLAG], env }),
    ).toBe('1.00');
  });

  it('an MCP host configured by an earlier version (the bridge file, ELECTRON_RUN_AS_NODE) still reaches the bridge', async () => {
    // With the fuse off, Electron ignores the variable and runs the app with these arguments.
    const env = { ELECTRON_RUN_AS_NODE: '1', ...(await agentEnv('old-config')) };
    expect(await balanceThrough({ command: process.execPath, args: [main, join(dataDir, 'mcp', 'coffer-mcp.mjs'), 'mcp'], env })).toBe(
      '1.00',
    );
  });

  it('on AppImage, where user namespaces are restricted (Ubuntu 24.04), the --no-sandbox its AppRun puts first is ignored', async () => {
    // electron-builder's own AppRun logic (the pinned app-builder-lib's template), run by bash: where
    // `unshare -Ur true` fails it puts --no-sandbox before the arguments, unless they hold it already.
    const template = readFileSync(join('node_modules', 'app-builder-lib', 'out', 'targets', 'appimage', 'appImageUtil.js'), 'utf8');
    const from = template.indexOf('HAVE_NO_SANDBOX=0');
    const to = template.indexOf('error()', from);
    expect(from, "AppRun's --no-sandbox logic is where it was").toBeGreaterThan(0);
    const logic = template.slice(from, to).replace(/\\\$/g, '$');
    expect(logic).toMatch(/unshare -Ur true[\s\S]*exec "\$BIN" "\$\{NO_SANDBOX\[@\]\}" "\$\{args\[@\]\}"/);
    const dir = tempDataDir();
    try {
      const stub = join(dir, 'bin');
      mkdirSync(stub);
      // A system whose user namespaces are restricted: unshare fails.
      writeFileSync(join(stub, 'unshare'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
      // The packaged executable runs its app's main with every argument, Chromium's switches included.
      const executable = join(dir, 'coffer');
      const handed = join(dir, 'arguments');
      writeFileSync(
        executable,
        `#!/bin/sh\necho "$@" > ${JSON.stringify(handed)}\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(main)} "$@"\n`,
        { mode: 0o755 },
      );
      const appImage = join(dir, 'Coffer.AppImage');
      writeFileSync(
        appImage,
        [
          '#!/bin/bash',
          'args=("$@")',
          'NUMBER_OF_ARGS="$#"',
          'isEulaAccepted=1',
          `BIN=${JSON.stringify(executable)}`,
          logic,
          'atexit',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      const launch = desktopMcpLaunch('/tmp/.mount_CofferXyz/coffer', { APPIMAGE: appImage, APPDIR: '/tmp/.mount_CofferXyz' }, null);
      expect(launch).toEqual({ command: appImage, args: [MCP_FLAG], env: {} });
      const env = { PATH: `${stub}:${process.env.PATH ?? ''}`, ...(await agentEnv('appimage-agent')) };
      expect(await balanceThrough(launch, env)).toBe('1.00');
      // What AppRun handed the executable: its --no-sandbox first, then the launch's own.
      expect(readFileSync(handed, 'utf8').trim()).toBe('--no-sandbox --coffer-mcp');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the command is the executable itself once packaged (no script to run), and the image file on AppImage', () => {
    expect(desktopMcpLaunch('/Applications/Coffer.app/Contents/MacOS/Coffer', {}, null)).toEqual({
      command: '/Applications/Coffer.app/Contents/MacOS/Coffer',
      args: [MCP_FLAG],
      env: {},
    });
    const mounted = { APPIMAGE: '/home/ada/Apps/Coffer.AppImage', APPDIR: '/tmp/.mount_CofferXyz' };
    expect(desktopMcpLaunch('/tmp/.mount_CofferXyz/coffer', mounted, null).command).toBe('/home/ada/Apps/Coffer.AppImage');
    // Variables inherited from another AppImage (Coffer started from an editor's terminal) are not Coffer's.
    const inherited = { APPIMAGE: '/home/ada/Apps/Editor.AppImage', APPDIR: '/tmp/.mount_EditorAb' };
    expect(desktopMcpLaunch('/opt/Coffer/coffer', inherited, null).command).toBe('/opt/Coffer/coffer');
    expect(desktopMcpLaunch('/tmp/.mount_EditorAbX/coffer', inherited, null).command).toBe('/tmp/.mount_EditorAbX/coffer');
  });
});
