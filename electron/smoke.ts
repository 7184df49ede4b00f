import type { BrowserWindow } from 'electron';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Engine } from '../server/core/engine.js';
import type { Principal } from '../server/core/auth.js';
import type { Timers, TrayController } from './tray-controller.js';
import type { TrayAction, TrayItem } from './tray-model.js';

/** How long the window may take to sign in. */
const SIGN_IN_WITHIN_MS = 20_000;

const flatten = (items: TrayItem[]): TrayItem[] =>
  items.flatMap((item) => (item.type === 'submenu' ? [item, ...flatten(item.items)] : [item]));

/**
 * `COFFER_SMOKE=1`: the packaged app checks itself where it runs (CI on each desktop platform, with a
 * display): the tray and its menu exist, the window signs in, "Stop all agents" from the menu stops
 * every agent, and the MCP launch the app hands out starts and lists its tools. Each check prints
 * one line; the app then quits (exit 0 when every check held).
 */
export async function runSmokeChecks(options: {
  engine: Engine;
  owner: string;
  tray: TrayController;
  open(route: string): Promise<void>;
  window(): BrowserWindow | null;
  act(action: TrayAction): void;
  timers: Timers;
  say(line: string): void;
}): Promise<boolean> {
  const { engine, owner } = options;
  const principal: Principal = { kind: 'owner', owner };
  const sleep = (ms: number) => new Promise<void>((resolve) => options.timers.setTimeout(resolve, ms));
  let passed = true;
  const check = async (name: string, run: () => Promise<void>) => {
    try {
      await run();
      options.say(`smoke: ${name}: ok`);
    } catch (error) {
      passed = false;
      options.say(`smoke: ${name}: FAILED (${(error as Error).message})`);
    }
  };
  const find = (kind: TrayAction['kind']) =>
    flatten(options.tray.items()).find(
      (item): item is Extract<TrayItem, { type: 'action' }> => item.type === 'action' && item.action.kind === kind,
    );

  await check('tray and menu', async () => {
    if (!find('stop-all') || !find('quit')) throw new Error('the menu has no "Stop all agents" or no "Quit"');
  });
  await check('window signs in', async () => {
    await options.open('#/');
    const started = options.timers.now();
    for (;;) {
      const contents = options.window()?.webContents;
      if (contents && (await contents.executeJavaScript("document.body.innerText.includes('Treasury')"))) return;
      if (options.timers.now() - started > SIGN_IN_WITHIN_MS) throw new Error(`not signed in after ${SIGN_IN_WITHIN_MS / 1000} s`);
      await sleep(250);
    }
  });
  const deployed = await engine.deployAgent(principal, { agentId: 'smoke-agent', dailyBudget: '1', maxPerPayment: '1' });
  await engine.deployAgent(principal, { agentId: 'smoke-other', dailyBudget: '1', maxPerPayment: '1' });
  await check('"Stop all agents" from the menu', async () => {
    options.tray.now();
    const stopAll = find('stop-all');
    if (!stopAll) throw new Error('no "Stop all agents" in the menu');
    options.act(stopAll.action);
    const running = engine.agentsAtRest(principal).agents.filter((agent) => agent.status !== 'suspended');
    if (running.length > 0) throw new Error(`still running: ${running.map((agent) => agent.agentId).join(', ')}`);
  });
  await check('MCP launch', async () => {
    if (deployed.kind !== 'done') throw new Error("the owner's deploy waits for an approval");
    const { command, args, env } = deployed.result.mcpConfig;
    // The current revision, pinned: a host of 2026-07-28 must find the tools (the tests hold the
    // 2025 era to the same list).
    const client = new Client({ name: 'coffer-smoke', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StdioClientTransport({ command, args, env: { ...(process.env as Record<string, string>), ...env } }));
    try {
      const { tools } = await client.listTools();
      if (!tools.some((tool) => tool.name === 'check_balance')) throw new Error('the MCP server lists no check_balance');
    } finally {
      await client.close();
    }
  });
  return passed;
}
