/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CLI, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { ownerApi, readConnection, type OwnerApi } from '../helpers/owner-api.js';

/**
 * The whole way in for an agent on this machine: `coffer link` in a terminal, the owner approves in
 * the browser, the CLI saves the key, and an MCP host launched from that config pays a paid API
 * through fetch_paid, which the API verifies on chain.
 */
test.describe.configure({ mode: 'serial' });

let serve: ServeProcess;
let dataDir: string;
let demo: ChildProcess;
let demoUrl = '';
let api: OwnerApi;

function lines(child: ChildProcess): AsyncIterator<string> {
  return createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
}

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-link-e2e-'));
  serve = await spawnServe(dataDir);
  api = ownerApi(dataDir);
  demo = spawn(process.execPath, [CLI, 'demo-api', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await lines(demo).next();
  demoUrl = /(http:\/\/127\.0\.0\.1:\d+)/.exec(String(first.value))![1]!;
});
test.afterAll(async () => {
  demo.kill('SIGTERM');
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test('coffer link -> owner approves in the browser -> config 0600 -> MCP fetch_paid pays a paid API', async ({ page }) => {
  const configFile = join(dataDir, 'agent-home', 'agent.json');
  const linking = spawn(process.execPath, [CLI, 'link', '--url', serve.url, '--config', configFile], {
    env: { ...process.env, COFFER_NO_BROWSER: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  linking.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => linking.once('exit', resolve));
  const output: string[] = [];
  const read = lines(linking);
  while (!output.some((line) => /code:/.test(line))) output.push(String((await read.next()).value));
  const linkUrl = output.map((line) => line.trim()).find((line) => line.startsWith('http'))!;
  const code = /code:\s+([A-Z2-9]{4}-[A-Z2-9]{4})/.exec(output.join('\n'))![1]!;
  expect(linkUrl).toContain('/link?token=lnk_');

  await page.goto((await api.json<{ url: string }>('POST', '/v1/session/login-link', {})).url);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
  // Someone else on the machine asks too: the owner sees both requests, with their codes, and clears it.
  const stranger = (await (await fetch(`${serve.url}/v1/link-sessions`, { method: 'POST', body: '{"name":"not-me"}' })).json()) as {
    code: string;
  };
  await page.getByRole('navigation').getByRole('link', { name: 'Approvals' }).click();
  const requests = page.locator('section', { has: page.getByRole('heading', { name: /Terminals asking to link/ }) });
  await expect(requests.getByRole('heading')).toHaveText('Terminals asking to link (2)');
  await expect(requests.getByTestId('link-request').filter({ hasText: code })).toContainText('coffer-cli');
  await requests.getByRole('button', { name: `Clear the request with code ${stranger.code}` }).click();
  await expect(requests.getByRole('heading')).toHaveText('Terminals asking to link (1)');
  await expect(requests.getByTestId('link-request')).toContainText(code);
  await page.goto(linkUrl);
  await expect(page.getByRole('heading', { name: 'Link a terminal' })).toBeVisible();
  await expect(page.getByTestId('link-code')).toHaveText(code);
  await expect(page.getByText(/coffer-cli/)).toBeVisible();
  await page.getByLabel('Agent id').fill('linked-laptop');
  await page.getByLabel('Daily budget (USDC)').fill('2.00');
  await page.getByLabel('Max per payment (USDC)').fill('0.20');
  await page.getByRole('button', { name: 'Link this terminal' }).click();
  await expect(page.getByRole('status')).toContainText('Linked as agent linked-laptop');

  expect(await exited, stderr).toBe(0);
  expect(statSync(configFile).mode & 0o777).toBe(0o600);
  const config = JSON.parse(readFileSync(configFile, 'utf8'));
  expect(config).toEqual({
    agentId: 'linked-laptop',
    walletAddress: expect.any(String),
    apiKey: expect.stringMatching(/^cof_agt_/),
    linkedAt: expect.any(String),
    owner: readConnection(dataDir).owner,
    url: serve.url,
  });

  // The owner funds it; an MCP host launched from the config pays the demo API through fetch_paid.
  expect((await api.json('POST', '/v1/agents/linked-laptop/allocate', { amount: '1.00' })).balance).toBe('1.00');
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('COFFER_'))) as Record<string, string>;
  const mcp = new Client({ name: 'e2e-host', version: '1.0.0' });
  await mcp.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--config', configFile], env }));
  try {
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toContain('fetch_paid');
    const result = (await mcp.callTool({ name: 'fetch_paid', arguments: { url: `${demoUrl}/weather?city=Hanoi` } })) as unknown as {
      isError?: boolean;
      structuredContent: { status: number; body: string; payment: { txSignature: string } };
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.status).toBe(200);
    expect(JSON.parse(result.structuredContent.body)).toMatchObject({ city: 'Hanoi', paid: { amount: '0.01', by: config.walletAddress } });
    const onChain = await (await fetch(`${serve.url}/v1/chain/transactions/${result.structuredContent.payment.txSignature}`)).json();
    expect(onChain.transfer).toMatchObject({ succeeded: true, amount: '10000', from: config.walletAddress });

    // Its request for more money reaches the owner's inbox, with a count, and is approved there.
    const asked = (await mcp.callTool({ name: 'allocate_budget', arguments: { amount: '0.50' } })) as unknown as {
      structuredContent: { status: string };
    };
    expect(asked.structuredContent.status).toBe('pending');
  } finally {
    await mcp.close();
  }
  await page.goto(`${serve.url}/#/`);
  const nav = page.getByRole('navigation');
  await expect(nav.getByRole('link', { name: /Approvals/ })).toContainText('1');
  await nav.getByRole('link', { name: /Approvals/ }).click();
  const request = page.getByTestId('approval');
  await expect(request).toContainText('linked-laptop asks: Allocate 0.50 USDC');
  await request.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Nothing waits.')).toBeVisible();
  expect((await api.json('GET', '/v1/agents/linked-laptop/balance')).balance).toBe('1.49');
});

test('polling a link session faster than every 2 s is refused (429 slow_down)', async () => {
  const created = await (await fetch(`${serve.url}/v1/link-sessions`, { method: 'POST' })).json();
  const first = await fetch(`${serve.url}/v1/link-sessions/${created.token}`);
  expect(first.status).toBe(200);
  const second = await fetch(`${serve.url}/v1/link-sessions/${created.token}`);
  expect(second.status).toBe(429);
  expect((await second.json()).code).toBe('slow_down');
});
