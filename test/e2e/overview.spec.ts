/// <reference lib="dom" />
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, readConnection, type OwnerApi } from '../helpers/owner-api.js';
import { openConnection } from '../../server/store/sqlite-driver.js';

/**
 * The overview puts the brake first, on a desktop and on a phone: the agents (status, balance,
 * budget, last payment, kill switch) and Stop all before the treasury's details; a stopped fleet is
 * said at the top with the way back (Resume all).
 */
test.describe.configure({ mode: 'serial' });

let serve: ServeProcess;
let dataDir: string;
let owner: string;
let api: OwnerApi;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-overview-'));
  serve = await spawnServe(dataDir);
  api = ownerApi(dataDir);
  ({ owner } = readConnection(dataDir));
  for (const [agentId, displayName] of [
    ['researcher', 'Research assistant'],
    ['trader', 'Price watcher'],
    ['scraper', 'Web scraper'],
  ]) {
    await api.json('POST', '/v1/agents/deploy', { agentId, displayName, dailyBudget: '25', maxPerPayment: '2' });
    await api.json('POST', `/v1/agents/${agentId}/allocate`, { amount: '40' });
  }
  // One agent holds USDC on Base too: its row says so under its Solana balance.
  await api.json('POST', '/v1/agents/researcher/allocate', { amount: '12.5', rail: 'base' });
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

async function signIn(page: Page) {
  const { url } = await api.json<{ url: string }>('POST', '/v1/session/login-link', {});
  await page.goto(url);
  await expect(page.getByRole('heading', { name: /^Agents/ })).toBeVisible();
}

const top = async (page: Page, name: RegExp) => (await page.getByRole('heading', { name }).boundingBox())!.y;

test('desktop: the agents and the brake come before the treasury; Stop all and Resume all are a pair', async ({ page }) => {
  await signIn(page);
  expect(await top(page, /^Agents/)).toBeLessThan(await top(page, /^Treasury/));
  expect(await top(page, /^Agents/)).toBeLessThan(200);
  await expect(page.getByRole('button', { name: 'Stop all agents' })).toBeInViewport();
  await expect(page.getByRole('button', { name: /^Resume/ })).toHaveCount(0);
  // Each row's balance on Base, from the dashboard's own answer, under the Solana one.
  const balance = page.getByTestId('agent-row-researcher').locator('td[data-label="Wallet balance"]');
  await expect(balance).toHaveText('40.00 USDC on SolanaOn Base: 12.50 USDC');
  await expect(page.getByTestId('agent-row-trader').getByTestId('agent-balance-base')).toHaveText('On Base: 0.00 USDC');
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((t) => localStorage.setItem('coffer-theme', t), theme);
    await page.reload();
    await expect(page.getByTestId('agent-row-researcher')).toBeVisible();
    await page.screenshot({ path: join(SCREENSHOTS, theme === 'light' ? 'overview-fleet.png' : 'overview-fleet-dark.png') });
  }
  await page.evaluate(() => localStorage.setItem('coffer-theme', 'light'));
  await page.reload();

  await page.getByRole('button', { name: 'Stop all agents' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Stop all agents' }).click();
  const banner = page.getByTestId('stopped-banner');
  await expect(banner).toContainText('All 3 agents are stopped');
  await expect(page.getByRole('switch', { name: /Research assistant: stopped/ })).toBeVisible();
  await page.screenshot({ path: join(SCREENSHOTS, 'overview-stopped.png') });
  // The way back is in the banner (on every page) and beside Stop all.
  await expect(page.getByRole('button', { name: 'Resume all 3' })).toHaveCount(2);
  await banner.getByRole('button', { name: 'Resume all 3' }).click();
  await expect(banner).toHaveCount(0);
  await expect(page.getByRole('switch', { name: /Research assistant: active/ })).toBeVisible();
  await expect(page.getByRole('switch', { name: /Web scraper: active/ })).toBeVisible();

  // One agent stopped: the banner names it and offers to resume it.
  await page.getByRole('switch', { name: /Price watcher: active/ }).click();
  await expect(banner).toContainText('1 of 3 agents is stopped');
  await expect(banner.getByRole('link', { name: 'Price watcher' })).toBeVisible();
  await banner.getByRole('button', { name: 'Resume Price watcher' }).click();
  await expect(banner).toHaveCount(0);
});

test('phone: the agents are cards above the fold, each with budget and last payment in view, nothing scrolls sideways', async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  try {
    await signIn(page);
    expect(await top(page, /^Agents/)).toBeLessThan(300);
    const card = page.getByTestId('agent-row-researcher');
    await expect(card).toBeInViewport();
    for (const label of ['Wallet balance', 'Tightest budget', 'Last payment']) {
      const cell = card.locator(`td[data-label="${label}"]`);
      await expect(cell).toBeVisible();
      const box = (await cell.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await expect(card.getByRole('switch')).toBeInViewport();
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate((t) => localStorage.setItem('coffer-theme', t), theme);
      await page.reload();
      await expect(card).toBeVisible();
      await page.screenshot({ path: join(SCREENSHOTS, theme === 'light' ? 'overview-phone.png' : 'overview-phone-dark.png') });
    }
  } finally {
    await context.close();
  }
});

test('small things: a malformed address shows the not-found page, the tab names the page, the favicon is served, refusals name the service', async ({
  page,
}) => {
  await signIn(page);
  await expect(page).toHaveTitle('Overview · Coffer');
  await page.goto(`${serve.url}/#/agents/%E0%A4%A`);
  await expect(page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();
  await expect(page).toHaveTitle('Not found · Coffer');
  await page.getByRole('link', { name: 'Back to the overview' }).click();
  await expect(page.getByRole('heading', { name: /^Agents/ })).toBeVisible();
  await page.goto(`${serve.url}/#/agents/researcher`);
  await expect(page).toHaveTitle('Research assistant · Coffer');
  // Its page says what it holds on Base too, under the Solana balance.
  await expect(page.getByTestId('agent-facts-base')).toHaveText('On Base: 12.50 USDC');
  const icon = await fetch(`${serve.url}/favicon.svg`);
  expect(icon.status).toBe(200);
  expect(icon.headers.get('content-type')).toMatch(/image\/svg\+xml/);
  expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');

  // An agent is refused paying a registry service: the Refused table names it as Activity does.
  const deployed = await api.json<{ apiKey: string }>('POST', '/v1/agents/deploy', {
    agentId: 'picky',
    dailyBudget: '1',
    maxPerPayment: '0.001',
  });
  await fetch(`${serve.url}/v1/agents/picky/pay?owner=${owner}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${deployed.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service: 'demo-weather', amount: '0.01' }),
  });
  await page.goto(`${serve.url}/#/activity`);
  await expect(page).toHaveTitle('Activity · Coffer');
  const refused = page.getByTestId('refusal-row').first();
  await expect(refused).toContainText('Coffer demo weather');
  await expect(refused).toContainText('max per payment');
  await expect(refused).toContainText('Solana USDC');
});

test('the registry tells the truth: example listings are marked, each image model is listed once', async ({ page }) => {
  await signIn(page);
  await page.getByRole('navigation').getByRole('link', { name: 'Registry' }).click();
  await expect(page).toHaveTitle('Registry · Coffer');
  await expect(page.getByTestId('service-web-search')).toContainText('Example');
  await expect(page.getByTestId('service-demo-weather')).not.toContainText('Example');
  // The models are in their own table with prices, not also as services.
  await expect(page.locator('[data-testid^="service-model:"]')).toHaveCount(0);
  await expect(page.getByRole('row', { name: /Stable Diffusion XL/ })).toHaveCount(1);
  await page.screenshot({ path: join(SCREENSHOTS, 'registry.png'), fullPage: true });
});

test('the link page has Deny: the terminal is then told there is no such request', async ({ page }) => {
  const linking = (await (
    await fetch(`${serve.url}/v1/link-sessions`, { method: 'POST', body: JSON.stringify({ name: 'stranger' }) })
  ).json()) as {
    linkUrl: string;
    token: string;
    code: string;
  };
  await signIn(page);
  await page.goto(linking.linkUrl);
  await expect(page.getByTestId('link-code')).toHaveText(linking.code);
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByRole('status')).toContainText('Denied');
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  const polled = await fetch(`${serve.url}/v1/link-sessions/${linking.token}`);
  expect(polled.status).toBe(404);
});

test('deploy can fund the new agent in the same step', async ({ page }) => {
  await signIn(page);
  await page.getByRole('button', { name: 'Deploy an agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'Deploy an agent' });
  // Two fields wrong at once: both said, both marked, nothing deployed.
  await dialog.getByLabel('Agent id').fill('Born Funded');
  await dialog.getByLabel('Starting funds (USDC, optional)').fill('twelve');
  await dialog.getByRole('button', { name: 'Deploy', exact: true }).click();
  await expect(dialog.getByRole('alert')).toContainText(/^Agent id .+\nStarting funds .+$/);
  await expect(dialog.locator('input[aria-invalid="true"]')).toHaveCount(2);
  await dialog.screenshot({ path: join(SCREENSHOTS, 'deploy-invalid.png') });
  await dialog.getByLabel('Agent id').fill('born-funded');
  await dialog.getByLabel('Starting funds (USDC, optional)').fill('12.5');
  await dialog.getByRole('button', { name: 'Deploy', exact: true }).click();
  const ready = page.getByRole('dialog', { name: /is ready/ });
  await expect(ready.getByRole('status').filter({ hasText: 'Funded with' })).toContainText(
    'Funded with 12.50 USDC on Solana from the treasury',
  );
  const balance = await api.json<{ balance: string }>('GET', '/v1/agents/born-funded/balance');
  expect(balance.balance).toBe('12.50');

  // And back: the agent page returns the wallet's USDC to the treasury, on chain.
  await page.goto(`${serve.url}/#/agents/born-funded`);
  await expect(page.getByLabel('Return to the treasury')).toHaveValue('12.50');
  await page.getByLabel('Return to the treasury').fill('2.5');
  await page.getByRole('button', { name: 'Return', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Returned' })).toContainText(
    'Returned 2.50 USDC to the treasury on chain, on Solana; its Solana wallet now 10.00 USDC',
  );
});

test('archive from the agent page: its funds go back first, it leaves the overview, its page keeps its history', async ({ page }) => {
  await signIn(page);
  await page.goto(`${serve.url}/#/agents/scraper`);
  await page.getByRole('button', { name: 'Archive…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Archive Web scraper?' });
  await expect(dialog).toContainText('40.00 USDC go back to the treasury on chain');
  await dialog.getByRole('button', { name: 'Return the funds and archive' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Archived' })).toContainText('stopped for good, its key revoked');
  await page.goto(`${serve.url}/#/`);
  await expect(page.getByTestId('agent-row-scraper')).toHaveCount(0);
  await page.getByText(/Archived agents \(1\)/).click();
  await expect(page.getByRole('link', { name: 'Web scraper' })).toBeVisible();
});

test('an archived agent whose wallet still holds USDC says so, on the overview and its page, with Return', async ({ page }) => {
  // USDC in an archived wallet: sent from outside after the archive, or left by an archive from
  // before the rules that keep it empty. Staged by archiving the funded agent in the ledger itself.
  const db = openConnection(join(dataDir, 'coffer.db'));
  db.prepare("UPDATE agents SET archived_at = ?, status = 'suspended' WHERE agent_id = 'trader'").run(Date.now());
  db.close();
  await signIn(page);
  await page.getByText(/Archived agents \(2\)/).click();
  await expect(page.getByRole('listitem').filter({ hasText: 'Price watcher' })).toContainText('still holds 40.00 USDC');
  await page.getByRole('link', { name: 'Price watcher' }).click();
  await expect(page.getByRole('alert')).toContainText('Its wallet still holds 40.00 USDC');
  await page.screenshot({ path: join(SCREENSHOTS, 'archived-with-funds.png') });
  await page.getByRole('button', { name: 'Return to the treasury' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Returned' })).toContainText('Returned 40.00 USDC to the treasury on chain');
  await page.goto(`${serve.url}/#/`);
  await page.getByText(/Archived agents \(2\)/).click();
  await expect(page.getByRole('listitem').filter({ hasText: 'Price watcher' })).not.toContainText('still holds');
});

test('Sign out in the header: the tab is signed out, and its token is dead for anyone holding a copy', async ({ page }) => {
  await signIn(page);
  const token = await page.evaluate(() => sessionStorage.getItem('coffer.session'));
  expect(token).toMatch(/^cof_ses_/);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Coffer' })).toBeVisible();
  await expect(page.getByRole('status')).toContainText('Signed out');
  expect(await page.evaluate(() => sessionStorage.getItem('coffer.session'))).toBeNull();
  const copied = await fetch(`${serve.url}/v1/dashboard?owner=${owner}`, { headers: { authorization: `Bearer ${token}` } });
  expect(copied.status).toBe(401);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in to Coffer' })).toBeVisible();
});

test('an agent its breaker stopped says why: on its row, in the banner and on its page, until the owner resumes it', async ({ page }) => {
  const { apiKey } = await api.json<{ apiKey: string }>('POST', '/v1/agents/deploy', {
    agentId: 'careful',
    displayName: 'Careful bot',
    dailyBudget: '1',
    maxPerPayment: '0.01',
    breaker: { refusals: { count: 2, minutes: 10 } },
  });
  // Two payments over its max per payment: refused, and the second trips the breaker.
  for (let i = 0; i < 2; i++) {
    const refused = await fetch(`${serve.url}/v1/agents/careful/pay?owner=${owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service: 'demo-weather', amount: '0.05' }),
    });
    expect(((await refused.json()) as { code: string }).code).toBe('max_per_payment_exceeded');
  }
  const reason = 'its breaker tripped: 2 refused payments within 10 minutes';
  await signIn(page);
  const card = page.getByTestId('agent-row-careful');
  await expect(card.getByRole('switch', { name: /Careful bot: stopped/ })).toBeVisible();
  await expect(card).toContainText('Breaker tripped: 2 refused payments within 10 minutes');
  await expect(page.getByTestId('stopped-banner')).toContainText(`Careful bot (${reason})`);
  await page.screenshot({ path: join(SCREENSHOTS, 'overview-breaker.png') });
  // On a phone its card keeps the name on one line: the reason takes a line of its own, under the
  // name and switch (beside them it squeezed the name to a letter a line, helper 170).
  await page.setViewportSize({ width: 390, height: 844 });
  const name = card.getByRole('link', { name: 'Careful bot' });
  const reasonLine = card.locator('.status-reason');
  const [nameBox, reasonBox] = [await name.boundingBox(), await reasonLine.boundingBox()];
  expect(nameBox!.height).toBeLessThan(40);
  expect(reasonBox!.y).toBeGreaterThan(nameBox!.y + nameBox!.height - 1);
  // No cell of a card runs past its edge (a budget's 14rem table width did, clipping its words).
  const overflowing = await page.evaluate(() =>
    Array.from(document.querySelectorAll('table.agents td'))
      .filter((td) => td.scrollWidth > td.clientWidth)
      .map((td) => td.textContent),
  );
  expect(overflowing).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 800 });

  await card.getByRole('link', { name: 'Careful bot' }).click();
  await expect(page.getByTestId('stop-reason')).toContainText(`Stopped by itself: ${reason}.`);
  await expect(page.getByTestId('policy-breaker')).toHaveText('stops after 2 refusals within 10 minutes');
  await page.getByRole('switch', { name: /Careful bot: stopped/ }).click();
  await expect(page.getByRole('switch', { name: /Careful bot: active/ })).toBeVisible();
  await expect(page.getByTestId('stop-reason')).toHaveCount(0);
});

test('funds on Base from the agent page: the owner picks Base, allocates to its account there and returns from it', async ({ page }) => {
  await signIn(page);
  await page.goto(`${serve.url}/#/agents/researcher`);
  await page.getByLabel('Base USDC').check();
  await page.getByLabel('Allocate from the treasury').fill('2.5');
  await page.getByRole('button', { name: 'Allocate' }).click();
  await expect(page.getByText('Moved 2.50 USDC on chain, on Base; its Base account now 15.00 USDC')).toBeVisible();
  await expect(page.getByTestId('agent-facts-base')).toHaveText('On Base: 15.00 USDC');
  // The Return field offers what Base holds; returned, the account is empty again and Solana's untouched.
  await expect(page.getByLabel('Return to the treasury')).toHaveValue('15.00');
  await page.screenshot({ path: join(SCREENSHOTS, 'agent-funds-base.png') });
  await page.getByLabel('Return to the treasury').fill('2.5');
  await page.getByRole('button', { name: 'Return', exact: true }).click();
  await expect(page.getByText('Returned 2.50 USDC to the treasury on chain, on Base; its Base account now 12.50 USDC')).toBeVisible();
  const balance = await api.json<{ balances: { sol: string; base: string } }>('GET', '/v1/agents/researcher/balance');
  expect(balance.balances.base).toBe('12.50');
});

test('the Funds card starts on the rail the agent holds USDC on, each rail shown with what it holds', async ({ page }) => {
  await api.json('POST', '/v1/agents/deploy', { agentId: 'base-only', dailyBudget: '5', maxPerPayment: '1' });
  await api.json('POST', '/v1/agents/base-only/allocate', { amount: '3', rail: 'base' });
  await signIn(page);
  await page.goto(`${serve.url}/#/agents/base-only`);
  // Its money is on Base alone: the card is there, its Return field offers what Base holds.
  await expect(page.getByLabel('Base USDC')).toBeChecked();
  await expect(page.getByTestId('funds-rail-holds-sol')).toHaveText('(holds 0.00)');
  await expect(page.getByTestId('funds-rail-holds-base')).toHaveText('(holds 3.00)');
  await expect(page.getByLabel('Return to the treasury')).toHaveValue('3.00');
  // An agent with money on Solana starts there, as the API's default, even holding some on Base.
  await page.goto(`${serve.url}/#/agents/researcher`);
  await expect(page.getByLabel('Solana USDC')).toBeChecked();
  await expect(page.getByLabel('Return to the treasury')).toHaveValue('40.00');
});

test('a long name in the stopped banner keeps to one line, cut short, whole in its title (helper 181: five lines)', async ({ page }) => {
  const name = '🤖'.repeat(50);
  await api.json('POST', '/v1/agents/deploy', { agentId: 'long-named', displayName: name, dailyBudget: '5', maxPerPayment: '1' });
  await api.json('POST', '/v1/agents/long-named/kill', {});
  try {
    await signIn(page);
    const link = page.getByTestId('stopped-banner').getByRole('link', { name });
    await expect(link).toBeVisible();
    await expect(link).toHaveAttribute('title', name);
    const lineHeight = await link.evaluate((element) => parseFloat(getComputedStyle(element).lineHeight) || 24);
    expect((await link.boundingBox())!.height).toBeLessThan(lineHeight * 1.5);
    await page.screenshot({ path: join(SCREENSHOTS, 'overview-stopped-long-name.png') });
  } finally {
    await api.json('POST', '/v1/agents/long-named/resume', {});
  }
});
