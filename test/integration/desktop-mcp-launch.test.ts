import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fundedAgent, tempDataDir } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { desktopMcpLaunch, installMcpBridge } from '../../electron/mcp-launch.js';
import { compileApp } from '../helpers/compiled-app.js';

/**
 * The MCP config the desktop app hands out (deploy, a new key, an approved agent) must start Coffer's
 * MCP bridge, not a second copy of the app. Assumed of Electron, from its docs: with
 * ELECTRON_RUN_AS_NODE=1 its executable "starts the process as a normal Node.js process"
 * (https://www.electronjs.org/docs/latest/api/environment-variables#electron_run_as_node), so the
 * app's single-instance lock and window never come into it; here Node itself stands in for that
 * executable. AppImage: the executable lives in a mount that changes at every start, and the runtime
 * sets APPIMAGE to the image file (https://docs.appimage.org/packaging-guide/environment-variables.html).
 */

describe('the MCP launch the desktop app prints', () => {
  const dataDir = tempDataDir();
  let compiled: ReturnType<typeof compileApp>;
  let bridge: ReturnType<typeof installMcpBridge>;
  beforeAll(() => {
    compiled = compileApp('mcp-launch');
    bridge = installMcpBridge(join(compiled.dir, 'coffer-mcp.mjs'), dataDir);
  });
  afterAll(() => compiled.remove());
  const t = useCoffer(() => ({ dataDir, mcpLaunch: desktopMcpLaunch(process.execPath, {}, bridge) }));

  it('starts the MCP bridge as an MCP host would, and its tools work', async () => {
    await fundedAgent(t, 'desktop-agent', '1.00');
    const key = await t.api('POST', t.withOwner('/v1/agents/desktop-agent/key'));
    const { mcpConfig } = key.body;
    expect(mcpConfig).toEqual({
      command: process.execPath,
      args: [join(dataDir, 'mcp', 'coffer-mcp.mjs'), 'mcp'],
      env: {
        ELECTRON_RUN_AS_NODE: '1',
        COFFER_URL: t.url,
        COFFER_OWNER: t.owner,
        COFFER_AGENT_ID: 'desktop-agent',
        COFFER_API_KEY: key.body.apiKey,
      },
    });
    // An MCP host passes exactly this: the command, the args, the env (and its own PATH).
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: mcpConfig.command,
        args: mcpConfig.args,
        env: { PATH: process.env.PATH ?? '', ...mcpConfig.env },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['check_balance', 'pay', 'fetch_paid', 'kill_agent', 'set_policy']),
      );
      const balance = (await client.callTool({ name: 'check_balance', arguments: {} })) as { structuredContent?: { balance?: string } };
      expect(balance.structuredContent?.balance).toBe('1.00');
    } finally {
      await client.close();
    }
  });

  it('the bridge is a private copy outside the app, written again only when the app brings another one', () => {
    const BUNDLE = join(compiled.dir, 'coffer-mcp.mjs');
    const target = installMcpBridge(BUNDLE, dataDir);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const written = statSync(target).mtimeMs;
    expect(installMcpBridge(BUNDLE, dataDir)).toBe(target);
    expect(statSync(target).mtimeMs).toBe(written);
    const newer = join(dataDir, 'newer-bundle.mjs');
    writeFileSync(newer, `${readFileSync(BUNDLE, 'utf8')}\n// next version\n`);
    installMcpBridge(newer, dataDir);
    expect(readFileSync(target, 'utf8')).toMatch(/next version/);
    installMcpBridge(BUNDLE, dataDir);
  });

  it("on AppImage it starts where user namespaces are restricted (Ubuntu 24.04): the AppRun's --no-sandbox never reaches Node", async () => {
    // electron-builder's own AppRun logic (the pinned app-builder-lib's template), run by bash: where
    // `unshare -Ur true` fails it puts --no-sandbox before the arguments, unless they hold it already.
    const template = readFileSync(join('node_modules', 'app-builder-lib', 'out', 'targets', 'appimage', 'appImageUtil.js'), 'utf8');
    const from = template.indexOf('HAVE_NO_SANDBOX=0');
    const to = template.indexOf('error()', from);
    expect(from, "AppRun's --no-sandbox logic is where it was").toBeGreaterThan(0);
    const logic = template.slice(from, to).replace(/\\\$/g, '$');
    expect(logic).toMatch(/unshare -Ur true[\s\S]*exec "\$BIN" "\$\{NO_SANDBOX\[@\]\}" "\$\{args\[@\]\}"/);
    const dir = tempDataDir();
    const stub = join(dir, 'bin');
    mkdirSync(stub);
    // A system whose user namespaces are restricted: unshare fails.
    writeFileSync(join(stub, 'unshare'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const appImage = join(dir, 'Coffer.AppImage');
    writeFileSync(
      appImage,
      [
        '#!/bin/bash',
        'args=("$@")',
        'NUMBER_OF_ARGS="$#"',
        'isEulaAccepted=1',
        `BIN=${JSON.stringify(process.execPath)}`,
        logic,
        'atexit',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const env = { PATH: `${stub}:${process.env.PATH ?? ''}`, ELECTRON_RUN_AS_NODE: '1', APPIMAGE: appImage };
    // The launch as it was: Node takes the --no-sandbox put before the script for its own option.
    const before = spawnSync(appImage, [bridge, 'mcp'], { env, encoding: 'utf8', timeout: 20_000 });
    expect(before.status).not.toBe(0);
    expect(before.stderr).toMatch(/bad option: --no-sandbox/);
    // The launch the app hands out now: an MCP host starts it, and its tools answer.
    await fundedAgent(t, 'appimage-agent', '1.00');
    const key = await t.api('POST', t.withOwner('/v1/agents/appimage-agent/key'));
    const launch = desktopMcpLaunch('/tmp/.mount_CofferXyz/coffer', { APPIMAGE: appImage }, bridge);
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: launch.command,
        args: launch.args,
        env: {
          ...env,
          ...launch.env,
          COFFER_URL: t.url,
          COFFER_OWNER: t.owner,
          COFFER_AGENT_ID: 'appimage-agent',
          COFFER_API_KEY: key.body.apiKey as string,
        },
      }),
    );
    try {
      const balance = (await client.callTool({ name: 'check_balance', arguments: {} })) as { structuredContent?: { balance?: string } };
      expect(balance.structuredContent?.balance).toBe('1.00');
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on AppImage the command is the image file, not the mount the app runs from', () => {
    const launch = desktopMcpLaunch(
      '/tmp/.mount_CofferXyz/coffer',
      { APPIMAGE: '/home/ada/Apps/Coffer.AppImage' },
      '/home/ada/.coffer/mcp/coffer-mcp.mjs',
    );
    expect(launch).toEqual({
      command: '/home/ada/Apps/Coffer.AppImage',
      args: ['/home/ada/.coffer/mcp/coffer-mcp.mjs', 'mcp', '--no-sandbox'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
    expect(desktopMcpLaunch('/Applications/Coffer.app/Contents/MacOS/Coffer', {}, '/b.mjs').command).toBe(
      '/Applications/Coffer.app/Contents/MacOS/Coffer',
    );
  });
});
