import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../server/package/package-files.js';
import { userPath, userShellEnv } from '../helpers/user-shell.js';
import { tempDataDir } from '../helpers/coffer.js';

/**
 * Issue 22, point 8: `npx coffer link` in a checkout printed `coffer status` and the MCP config
 * {"command":"coffer",...}, which ran under npx (npm puts the package's bin on the PATH of what it
 * runs) but nowhere else: "coffer: command not found" in the user's shell, "spawn coffer ENOENT" in
 * an MCP host. Here the server and `coffer link` run through real npx in this checkout, and what they
 * print is run the way the user's shell and an MCP host run it: the user's PATH, without npm's
 * node_modules folders and without a global coffer.
 */

const root = packagePath();

describe.skipIf(process.platform === 'win32')('what `npx coffer link` and the dashboard print runs from the shell and an MCP host', () => {
  const dataDir = tempDataDir();
  const home = mkdtempSync(join(tmpdir(), 'coffer-home-'));
  const userEnv = userShellEnv(home);
  const running: ChildProcess[] = [];
  let serve: { child: ChildProcess; exited: Promise<number | null>; url: string };

  /** `npx coffer ...` typed in the checkout (offline: npx links this package into its cache, fetching nothing). */
  const npx = (args: string[], env: Record<string, string> = {}) => {
    const child = spawn('npx', ['coffer', ...args], {
      cwd: root,
      env: { ...userEnv, npm_config_offline: 'true', npm_config_update_notifier: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: npx runs coffer under a shell, and the whole group is ended at the end.
      detached: true,
    });
    running.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const output = { text: '' };
    child.stdout!.on('data', (chunk) => (output.text += chunk));
    child.stderr!.on('data', (chunk) => (output.text += chunk));
    const until = async (pattern: RegExp, ms = 45_000) => {
      for (let waited = 0; waited < ms && !pattern.test(output.text); waited += 50) {
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(output.text).toMatch(pattern);
      return pattern.exec(output.text)!;
    };
    return { child, exited, output, until };
  };
  const stop = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
  };
  const owner = () => JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { owner: string; ownerKey: string };
  const post = async (path: string, body: unknown) => {
    const { owner: id, ownerKey } = owner();
    const response = await fetch(`${serve.url}${path}?owner=${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  /** A shell command line run as the user's terminal runs it. */
  const sh = (line: string) => spawnSync('/bin/sh', ['-c', line], { cwd: home, env: userEnv, encoding: 'utf8', timeout: 30_000 });
  /** An MCP host given one server entry: the SDK's stdio client, the entry's command, args and env, the user's PATH. */
  const connect = async (config: { command: string; args: string[]; env?: Record<string, string> }) => {
    const client = new Client({ name: 'mcp-host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { PATH: userPath, HOME: home, ...config.env },
        cwd: home,
        stderr: 'pipe',
      }),
    );
    return client;
  };
  const balanceThroughMcp = async (config: { command: string; args: string[]; env?: Record<string, string> }) => {
    const client = await connect(config);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['check_balance', 'pay', 'fetch_paid']));
      const result = (await client.callTool({ name: 'check_balance', arguments: {} })) as {
        isError?: boolean;
        content: { text: string }[];
        structuredContent?: { agentId?: string; balance?: string };
      };
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      return result.structuredContent;
    } finally {
      await client.close();
    }
  };

  beforeAll(async () => {
    // The premise: the user's shell has no coffer of its own, so only what is printed can run it.
    expect(sh('command -v coffer').status, `a coffer on the user's PATH: ${sh('command -v coffer').stdout}`).not.toBe(0);
    expect(sh('command -v node && command -v npx').status, `node and npx on the user's PATH: ${userPath}`).toBe(0);
    const started = npx(['serve', '--data-dir', dataDir, '--port', '0'], { COFFER_KEYSTORE: 'file' });
    const [, url] = await started.until(/(http:\/\/127\.0\.0\.1:\d+)/);
    serve = { child: started.child, exited: started.exited, url: url! };
  }, 60_000);
  afterAll(async () => {
    for (const child of running) await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('npx coffer link: the printed Next commands run in the user shell, and the printed MCP config in an MCP host', async () => {
    const linking = npx(['link', '--data-dir', dataDir], { COFFER_NO_BROWSER: '1' });
    const [, token] = await linking.until(/link\?token=(lnk_[\w-]+)/);
    const completed = await post(`/v1/link-sessions/${token}/complete`, { agentId: 'npx-agent', fund: '1.50' });
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    expect(await linking.exited, linking.output.text).toBe(0);
    const output = linking.output.text;
    expect(output).toMatch(/Linked as agent npx-agent/);
    expect(output).toContain(`Saved to ${home}${sep}`);

    // The commands under "Next:", each followed by its explanation, and the MCP host's JSON.
    const next = output.slice(output.indexOf('Next:\n'));
    const commands = [...next.matchAll(/^ {2}(\S.*)\n {6}\S/gm)].map((match) => match[1]!);
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatch(/ status$/);
    expect(commands[1]).toMatch(/ pay demo-weather 0\.01$/);
    const mcpJson = /^ {4}(\{.*\})$/m.exec(next)?.[1];
    expect(mcpJson, output).toBeDefined();
    const mcpConfig = (JSON.parse(mcpJson!) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.coffer!;
    expect(mcpConfig.args.at(-1)).toBe('mcp');

    const status = sh(commands[0]!);
    expect(status.status, `${commands[0]}: ${status.stderr}`).toBe(0);
    expect(status.stdout).toMatch(/Agent npx-agent at http:\/\/127\.0\.0\.1:\d+/);
    expect(status.stdout).toMatch(/balance\s+1\.50 USDC/);
    const paid = sh(commands[1]!);
    expect(paid.status, `${commands[1]}: ${paid.stderr}`).toBe(0);
    expect(paid.stdout).toMatch(/Paid 0\.01 USDC on Solana to \w+ for demo-weather \(pay_/);

    // No env in the link's config: the linked config file in the user's HOME names the agent.
    expect(await balanceThroughMcp(mcpConfig)).toMatchObject({ agentId: 'npx-agent', balance: '1.49' });
  });

  it('the MCP config that deploy hands out (dashboard, API) from a server started with npx runs in an MCP host', async () => {
    const deployed = await post('/v1/agents/deploy', { agentId: 'deployed-agent', dailyBudget: '5.00', maxPerPayment: '1.00' });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
    expect(await post('/v1/agents/deployed-agent/allocate', { amount: '0.75' })).toMatchObject({ status: 200 });
    const { mcpConfig } = deployed.body as { mcpConfig: { command: string; args: string[]; env: Record<string, string> } };
    expect(mcpConfig.env).toMatchObject({ COFFER_AGENT_ID: 'deployed-agent', COFFER_URL: serve.url });
    expect(await balanceThroughMcp(mcpConfig)).toMatchObject({ agentId: 'deployed-agent', balance: '0.75' });
  });
});
