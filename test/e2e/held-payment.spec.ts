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
 * A payment the agent's policy asks the owner about: "Ask me above" set in the policy editor, the
 * agent pays above it through /v1 (202, held), its page says it waits for the owner, Approvals shows
 * the card with its budgets before and after, and approving it pays it once. A second one, denied, is
 * never paid.
 */
test.describe.configure({ mode: 'serial' });

let serve: ServeProcess;
let dataDir: string;
let api: OwnerApi;
let agentKey: string;

/** A wallet outside the registry, paid by address under the agent's own label (any price goes). */
const FORECAST = UNLISTED_SELLER;

/** GET without a body, POST with one: as the owner, or with the key given (an agent's). */
const call = (path: string, body?: unknown, key?: string) => api.answer(body === undefined ? 'GET' : 'POST', path, body, key);

/** The agent pays through /v1 with its own key, as agents do. */
const agentPays = (amount: string, description = 'e2e forecast') =>
  call('/v1/agents/alpha/pay', { service: 'forecast-api', recipient: FORECAST, amount, currency: 'USDC', description }, agentKey);

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-held-'));
  serve = await spawnServe(dataDir);
  await openUnlistedSeller(serve.url);
  api = ownerApi(dataDir);
  // A daily budget, a monthly one for every payment, 5 payments a day to that wallet, and one for a
  // registry service this payment is not for (so not shown).
  const deployed = await call('/v1/agents/deploy', {
    agentId: 'alpha',
    displayName: 'Alpha forecaster',
    dailyBudget: '10',
    maxPerPayment: '5',
    fund: '20',
    budgets: [
      { amount: '20', window: 'month' },
      { count: 5, window: 'day', recipient: FORECAST },
      { amount: '1', window: 'day', service: 'demo-weather' },
    ],
  });
  expect(deployed.status).toBe(200);
  agentKey = deployed.body.apiKey as string;
  expect((await agentPays('0.25')).status).toBe(200);
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens a fresh one-time login link (a fresh sign-in: approving a payment needs one from the last 10 minutes). */
async function signIn(page: Page): Promise<void> {
  const { body } = await call('/v1/session/login-link', {});
  await page.goto(body.url as string);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
}

test('"Ask me above" set in the editor holds a larger payment for the owner: its card, budgets before and after, approved and paid once', async ({
  page,
}) => {
  await signIn(page);
  await page.goto(`${serve.url}/#/agents/alpha`);
  await expect(page.getByRole('heading', { name: 'Alpha forecaster' })).toBeVisible();

  // Above the max per payment it would never ask: refused next to the field, in the server's words.
  await page.getByLabel('Ask me above (USDC)').fill('6');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.locator('#askAbove-error')).toContainText('Ask above (6.00 USDC) is above the max per payment (5.00 USDC)');
  await page.getByLabel('Ask me above (USDC)').fill('2');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText('Saved')).toBeVisible();
  expect((await call('/v1/agents/alpha/policy', undefined, agentKey)).body.policy).toMatchObject({ askAbove: '2.00' });
  const limits = page.getByRole('region', { name: 'Limits now' });
  await expect(limits.getByTestId('policy-asks')).toHaveText('payments above 2.00 USDC');
  // From the page's top (an element's own screenshot would catch the sticky header).
  await page.evaluate(() => window.scrollTo(0, 0));
  const asks = (await page.getByRole('group', { name: 'Ask me first' }).boundingBox())!;
  await page.screenshot({ path: join(SCREENSHOTS, 'policy-ask.png'), fullPage: true, clip: asks });
  await limits.screenshot({ path: join(SCREENSHOTS, 'limits-ask.png') });

  // The agent pays above it: held (202), nothing paid yet, counted against its budgets.
  const held = await agentPays('4', 'a week of forecasts');
  expect(held.status).toBe(202);
  expect(held.body).toMatchObject({
    status: 'pending',
    kind: 'payment',
    agentId: 'alpha',
    request: { service: 'forecast-api', amount: '4.00', recipient: FORECAST, reason: { code: 'ask_above' } },
  });
  const paymentId = held.body.paymentId as string;
  expect(paymentId).toMatch(/^pay_/);

  // Its page says it waits for the owner (not an error), and leads to Approvals.
  const waiting = page.getByRole('link', { name: 'Waiting for you' });
  await expect(waiting).toBeVisible({ timeout: 10_000 });
  // Counted against the daily budget, and said apart as held, not paid: in its limits and its figures.
  await expect(limits.getByTestId('held-note')).toHaveText('(4.00 USDC of it held for your yes, not paid)');
  await expect(page.locator('.facts').getByTestId('held-note')).toHaveText('(4.00 USDC of it held for your yes, not paid)');
  await expect(page.locator('.pill.failed')).toHaveCount(0);
  await waiting.click();

  const card = page.getByTestId('approval');
  await expect(card).toHaveCount(1);
  await expect(card).toContainText('Alpha forecaster asks to pay 4.00 USDC on Solana to forecast-api');
  await expect(card).toContainText('Why it waits: 4.00 USDC is above 2.00 USDC');
  await expect(card).toContainText('“a week of forecasts”');
  await expect(card).toContainText(FORECAST);
  // The expiry in the owner's time zone, as the page writes it.
  const timeZone = (await call('/v1/settings')).body.timeZone as string;
  const expires = await page.evaluate(
    ([at, zone]) => new Date(at!).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }),
    [held.body.expiresAt as string, timeZone],
  );
  await expect(card.getByTestId('approval-expires')).toHaveText(expires);
  // The budgets it falls under, before → after (it already counts): not demo-weather's.
  const budgets = card.getByTestId('held-budget');
  await expect(budgets).toHaveCount(3);
  await expect(budgets.nth(0)).toContainText('10.00 USDC in any 24 hours (daily budget)');
  await expect(budgets.nth(0)).toContainText('0.25 → 4.25 of 10.00 USDC');
  await expect(budgets.nth(1)).toContainText('20.00 USDC a month');
  await expect(budgets.nth(1)).toContainText('0.25 → 4.25 of 20.00 USDC');
  await expect(budgets.nth(2)).toContainText(`5 payments a day to ${FORECAST}`);
  await expect(budgets.nth(2)).toContainText('1 → 2 of 5 payments');
  await expect(card).not.toContainText('demo-weather');

  // Screenshots: the held payment's card, desktop (light and dark) and phone (nothing wider than its screen).
  await page.screenshot({ path: join(SCREENSHOTS, 'held-payment.png') });
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await page.screenshot({ path: join(SCREENSHOTS, 'held-payment-dark.png') });
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(budgets).toHaveCount(3);
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(SCREENSHOTS, 'held-payment-phone.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // Approved: paid once, said so, and its history says how it ended.
  await card.getByRole('button', { name: 'Approve and pay' }).click();
  await expect(page.getByTestId('decision-said')).toContainText(
    `Paid 4.00 USDC on Solana to forecast-api for alpha (payment ${paymentId})`,
  );
  await expect(page.getByText('Nothing waits.')).toBeVisible();
  const decided = page.getByTestId('decided-approval').first();
  await expect(decided).toContainText('Pay 4.00 USDC on Solana to forecast-api');
  await expect(decided).toContainText(`Paid 4.00 USDC (payment ${paymentId})`);
  await expect(decided).toContainText('paid');
  const history = (await call('/v1/agents/alpha/spend-history')).body.payments as { id: string; status: string }[];
  expect(history.find((p) => p.id === paymentId)?.status).toBe('confirmed');
  expect((await call('/v1/agents/alpha/balance')).body.balance).toBe('15.75');
  // Paid: no longer said held, on the agent's page.
  await page.goto(`${serve.url}/#/agents/alpha`);
  await expect(limits).toContainText('4.25');
  await expect(page.getByTestId('held-note')).toHaveCount(0);
  // Approving it again pays nothing more.
  expect((await call(`/v1/approvals/${held.body.approvalId as string}/approve`, {})).status).toBeGreaterThanOrEqual(400);
});

test('a held payment denied is never paid, and the history says so', async ({ page }) => {
  await signIn(page);
  const held = await agentPays('3');
  expect(held.status).toBe(202);
  await page
    .getByRole('navigation')
    .getByRole('link', { name: /Approvals/ })
    .click();
  const card = page.getByTestId('approval');
  await expect(card).toContainText('Alpha forecaster asks to pay 3.00 USDC on Solana to forecast-api');
  await expect(card.getByTestId('held-budget').first()).toContainText('4.25 → 7.25 of 10.00 USDC');
  await card.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByTestId('decision-said')).toContainText('Denied: 3.00 USDC on Solana to forecast-api for alpha, nothing was paid.');
  await expect(page.getByTestId('decided-approval').first()).toContainText('You denied it: nothing was paid');
  expect((await call('/v1/agents/alpha/balance')).body.balance).toBe('15.75');
  const history = (await call('/v1/agents/alpha/spend-history')).body.payments as { id: string; status: string }[];
  expect(history.find((p) => p.id === held.body.paymentId)?.status).toBe('failed');
});
