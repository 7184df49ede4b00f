/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, spawnDemoApi, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { connectMcpHost } from '../helpers/mcp-host.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, readConnection, type OwnerApi } from '../helpers/owner-api.js';

/**
 * Issue 29, point 1, as the owner sees it: an agent's MCP host (2026-07-28, opening URLs) buys from
 * the demo API through fetch_paid; the policy holds the payment; the host opens the page Coffer hands
 * it, in the owner's signed-in browser, on that very request; the owner approves there, and the tool
 * call answers the paid weather, paid once.
 */
let serve: ServeProcess;
let demo: ChildProcess;
let demoUrl = '';
let dataDir: string;
let owner: string;
let api: OwnerApi;

/** GET without a body, POST with one: as the owner, or with the key given (an agent's). */
const call = (path: string, body?: unknown, key?: string) => api.answer(body === undefined ? 'GET' : 'POST', path, body, key);

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-mcp-decision-'));
  serve = await spawnServe(dataDir);
  api = ownerApi(dataDir);
  ({ owner } = readConnection(dataDir));
  ({ child: demo, url: demoUrl } = await spawnDemoApi(dataDir));
});
test.afterAll(async () => {
  demo.kill('SIGTERM');
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test("a held fetch_paid opens the owner's decision page on that request; approved there, the call answers, paid once", async ({ page }) => {
  const deployed = await call('/v1/agents/deploy', {
    agentId: 'scout',
    displayName: 'Scout',
    dailyBudget: '5',
    maxPerPayment: '1',
    fund: '2',
  });
  expect(deployed.status).toBe(200);
  expect((await call('/v1/agents/scout/policy', { askAbove: '0' })).status).toBe(200);
  const login = await call('/v1/session/login-link', {});
  await page.goto(login.body.url as string);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();

  const opened: string[] = [];
  const host = await connectMcpHost(
    {
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: {
        ...(process.env as Record<string, string>),
        COFFER_URL: serve.url,
        COFFER_OWNER: owner,
        COFFER_AGENT_ID: 'scout',
        COFFER_API_KEY: deployed.body.apiKey as string,
        COFFER_CONFIG: '/nonexistent/agent.json',
      },
    },
    'modern',
    {
      // The host opens the page in the owner's browser; the owner decides there.
      opensUrl: async ({ url }) => {
        opened.push(url);
        await page.goto(url);
        const card = page.locator('[data-testid="approval"][aria-current="true"]');
        await expect(card).toBeVisible();
        await expect(card).toContainText('Scout asks to pay 0.01 USDC');
        await page.screenshot({ path: join(SCREENSHOTS, 'mcp-decision-page.png') });
        await card.getByRole('button', { name: 'Approve and pay' }).click();
        await expect(page.getByTestId('decision-said')).toBeVisible();
        return 'accept';
      },
    },
  );
  try {
    const before = (await call('/v1/agents/scout/balance')).body.balance;
    const result = await host.callTool('fetch_paid', { url: `${demoUrl}/weather?city=Lisbon` });
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 200, payment: { amount: '0.01', status: 'confirmed' } });
    expect(JSON.parse(String(result.structuredContent!.body)).city).toBe('Lisbon');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatch(new RegExp(`^${serve.url}/#/approvals/apr_`));
    expect(before).toBe('2.00');
    expect((await call('/v1/agents/scout/balance')).body.balance).toBe('1.99');
  } finally {
    await host.close();
  }
});
