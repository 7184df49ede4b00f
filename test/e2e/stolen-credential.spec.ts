/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { ownerApi, readConnection, type OwnerApi } from '../helpers/owner-api.js';

/**
 * Cookies are not kept apart by port: whatever a signed-in browser holds for 127.0.0.1 it also sends
 * to any other program listening on a 127.0.0.1 port it visits. Such a listener collects what
 * Chromium sends it, then replays that from outside the browser (no Origin, the header the
 * dashboard's writes used to need added): every route must refuse it with 401.
 */
test.describe.configure({ mode: 'serial' });

let serve: ServeProcess;
let dataDir: string;
let owner: string;
let api: OwnerApi;
let listener: Server;
let listenerUrl: string;
const captured: IncomingHttpHeaders[] = [];

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-stolen-'));
  serve = await spawnServe(dataDir);
  api = ownerApi(dataDir);
  ({ owner } = readConnection(dataDir));
  listener = createServer((req, res) => {
    captured.push(req.headers);
    // One same-site hop, as a link on another local page would make.
    if (req.url === '/hop') res.writeHead(302, { location: '/landed' }).end();
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title><p>another local program</p>');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

test('what a signed-in browser sends to another local port opens nothing in Coffer', async ({ page }) => {
  // An agent to aim at, so agent routes exist.
  const deployed = await api.call('POST', '/v1/agents/deploy', { agentId: 'target', dailyBudget: '5', maxPerPayment: '1' });
  expect(deployed.status).toBe(200);

  await page.goto(serve.loginUrl);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
  // The signed-in dashboard works: it reads and writes.
  await page.getByRole('link', { name: 'target', exact: true }).first().click();
  await expect(page.getByRole('heading', { name: 'target', exact: true })).toBeVisible();

  // The browser visits other local programs: directly, and after a hop.
  await page.goto(`${listenerUrl}/`);
  await page.goto(`${listenerUrl}/hop`);
  await expect(page.getByText('another local program')).toBeVisible();
  // Back to the dashboard, still signed in (the credential never left its own origin).
  await page.goto(`${serve.url}/`);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();

  expect(captured.length).toBeGreaterThanOrEqual(3);
  for (const headers of captured) expect(headers.authorization).toBeUndefined();
  const cookies = [...new Set(captured.map((headers) => headers.cookie).filter((cookie): cookie is string => cookie !== undefined))];

  const q = `owner=${owner}`;
  const routes: [string, string, unknown?][] = [
    ['GET', `/v1/session`],
    ['POST', `/v1/session/login-link?${q}`],
    ['GET', `/v1/dashboard?${q}`],
    ['GET', `/v1/agents?${q}`],
    ['GET', `/v1/treasury/deposits?${q}`],
    ['POST', `/v1/treasury/faucet?${q}`, { amount: '1' }],
    ['GET', `/v1/approvals?${q}`],
    ['GET', `/v1/events?${q}`],
    ['POST', `/v1/kill-all?${q}`],
    ['POST', `/v1/agents/deploy?${q}`, { agentId: 'thief', dailyBudget: '5', maxPerPayment: '1' }],
    ['GET', `/v1/agents/target/balance?${q}`],
    ['GET', `/v1/agents/target/policy?${q}`],
    ['POST', `/v1/agents/target/policy?${q}`, { dailyBudget: '1000' }],
    ['POST', `/v1/agents/target/allocate?${q}`, { amount: '10' }],
    ['POST', `/v1/agents/target/kill?${q}`],
    ['POST', `/v1/agents/target/resume?${q}`],
    ['POST', `/v1/agents/target/rename?${q}`, { displayName: 'x' }],
    ['POST', `/v1/agents/target/key?${q}`],
    ['POST', `/v1/agents/target/pay?${q}`, { service: 'x', recipient: owner, amount: '1' }],
    ['GET', `/v1/agents/target/spend-history?${q}`],
    ['GET', `/v1/agents/target/tasks?${q}`],
    ['POST', `/v1/agents/target/generate?${q}`, { prompt: 'x', modelId: 'sdxl', resolution: '1k' }],
    ['GET', '/v1/link-sessions'],
    ['POST', '/v1/link-sessions/clear', {}],
    ['GET', '/v1/link-sessions/lnk_x/details'],
    ['POST', '/v1/link-sessions/lnk_x/complete', {}],
    ['POST', `/v1/approvals/apr_x/approve?${q}`],
  ];
  const answers: string[] = [];
  for (const cookie of cookies.length > 0 ? cookies : ['']) {
    for (const [method, path, body] of routes) {
      const response = await fetch(`${serve.url}${path}`, {
        method,
        headers: { ...(cookie ? { cookie } : {}), 'x-requested-with': 'coffer', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      answers.push(`${method} ${path.split('?')[0]} -> ${response.status}`);
      await response.body?.cancel();
    }
  }
  expect(answers.filter((answer) => !answer.endsWith('-> 401'))).toEqual([]);
  // Nothing was changed by the replays.
  const agent = await api.json('GET', '/v1/agents/target/policy');
  expect(agent.policy.dailyBudget).toBe('5.00');
});
