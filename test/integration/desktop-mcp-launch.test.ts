import { readFileSync, statSync, writeFileSync } from 'node:fs';
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

  it('on AppImage the command is the image file, not the mount the app runs from', () => {
    const launch = desktopMcpLaunch(
      '/tmp/.mount_CofferXyz/coffer',
      { APPIMAGE: '/home/ada/Apps/Coffer.AppImage' },
      '/home/ada/.coffer/mcp/coffer-mcp.mjs',
    );
    expect(launch).toEqual({
      command: '/home/ada/Apps/Coffer.AppImage',
      args: ['/home/ada/.coffer/mcp/coffer-mcp.mjs', 'mcp'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
    expect(desktopMcpLaunch('/Applications/Coffer.app/Contents/MacOS/Coffer', {}, '/b.mjs').command).toBe(
      '/Applications/Coffer.app/Contents/MacOS/Coffer',
    );
  });
});
