/// <reference lib="dom" />
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { openUnlistedSeller, UNLISTED_SELLER } from '../helpers/unlisted-seller.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, readConnection, type OwnerApi } from '../helpers/owner-api.js';

/**
 * The owner's day in the dashboard, in a real browser against a real `coffer serve`: sign in, fund,
 * deploy, copy the key, allocate, edit the policy, watch a payment arrive, kill, stop all, resume.
 */
test.describe.configure({ mode: 'serial' });

let serve: ServeProcess;
let dataDir: string;
let owner: string;
let api: OwnerApi;
let agentKey = '';

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-'));
  serve = await spawnServe(dataDir);
  await openUnlistedSeller(serve.url);
  api = ownerApi(dataDir);
  ({ owner } = readConnection(dataDir));
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Where agentPays pays: a wallet outside the registry, its USDC account opened once the Coffer runs. */
const FORECAST = UNLISTED_SELLER;

/**
 * The agent pays through the API, as agents do (not through the dashboard): an API outside the
 * registry, paid by address, so any price goes.
 */
async function agentPays(amount = '0.25') {
  const response = await fetch(`${serve.url}/v1/agents/e2e-bot/pay?owner=${owner}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      service: 'forecast-api',
      recipient: FORECAST,
      amount,
      currency: 'USDC',
      description: 'e2e forecast',
    }),
  });
  return { status: response.status, body: (await response.json()) as { code?: string; paymentId?: string } };
}

const row = (page: Page, agentId: string) => page.getByTestId(`agent-row-${agentId}`);

test('an unsigned visitor is asked to sign in; the one-time link signs in once, and only its tab', async ({ page, context }) => {
  await page.goto(serve.url);
  await expect(page.getByRole('heading', { name: 'Sign in to Coffer' })).toBeVisible();
  await expect(page.getByText('coffer open')).toBeVisible();
  await page.goto(serve.loginUrl);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
  await expect(page.getByTestId('treasury-balance')).toHaveText('1,000.00 USDC');
  // The token left the address bar; no cookie was set; a reload stays signed in.
  expect(new URL(page.url()).search).toBe('');
  expect(await context.cookies()).toEqual([]);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
  // The same link again, in another tab: used, and said so.
  const other = await context.newPage();
  await other.goto(serve.loginUrl);
  await expect(other.getByRole('alert')).toContainText('already used');
  await expect(other.getByRole('heading', { name: 'Sign in to Coffer' })).toBeVisible();
  await other.close();
});

test('the owner funds the treasury, deploys an agent, copies its key, allocates and edits its policy', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(serve.loginUrl.replace(/token=.*/, 'token=stale'));
  await expect(page.getByRole('alert')).toContainText('This login link has expired');
  await expect(page.getByRole('heading', { name: 'Sign in to Coffer' })).toBeVisible();
  // A fresh login for this page (each link works once): the CLI prints a new one at every start.
  await signInPage(page);

  await page.getByLabel('Add test USDC (sim faucet)').fill('250');
  await page.getByRole('button', { name: 'Add test USDC', exact: true }).click();
  await expect(page.getByTestId('treasury-balance')).toHaveText('1,250.00 USDC');
  // Said with the figures' grouping, as the header shows the balance.
  await expect(page.getByRole('status').filter({ hasText: 'Added' })).toHaveText(
    "Added 250.00 USDC on Solana; the treasury's Solana wallet now holds 1,250.00 USDC",
  );

  // The treasury on Base too: its own deposit address (an EVM account), its test money, its faucet.
  const onBase = page.getByTestId('treasury-base');
  await expect(page.getByTestId('deposit-address-base')).toHaveText(/^0x[0-9a-fA-F]{40}$/);
  await expect(onBase).toContainText('On Base: 1,000.00 USDC (test money');
  await page.getByLabel('Test USDC on Base (sim faucet)').fill('25');
  await page.getByRole('button', { name: 'Add test USDC on Base' }).click();
  await expect(onBase).toContainText('On Base: 1,025.00 USDC');
  // Said in words a person reads (helper 181: "its balance there now 1,102.00 USDC").
  await expect(page.getByRole('status').filter({ hasText: 'on Base' })).toHaveText(
    "Added 25.00 USDC on Base; the treasury's Base account now holds 1,025.00 USDC",
  );
  await expect(page.getByRole('img', { name: /QR code of the Base deposit address 0x/ })).toBeVisible();
  await page.getByTestId('treasury-base').screenshot({ path: join(SCREENSHOTS, 'treasury-base.png') });

  await page.getByRole('button', { name: 'Deploy an agent' }).click();
  await page.getByLabel('Agent id').fill('E2E bot');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('Agent id must be 1-64 characters');
  await page.getByLabel('Agent id').fill('e2e-bot');
  await page.getByLabel('Display name (optional)').fill('E2E research bot');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  const key = page.getByTestId('api-key');
  await expect(key).toHaveText(/^cof_agt_/);
  agentKey = (await key.textContent()) ?? '';
  await page.getByRole('button', { name: 'Copy key' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(agentKey);
  await expect(page.getByTestId('mcp-config')).toContainText('COFFER_API_KEY');
  await page.getByRole('link', { name: 'Open its page' }).click();

  await expect(page.getByRole('heading', { name: 'E2E research bot' })).toBeVisible();
  await page.getByLabel('Allocate from the treasury').fill('abc');
  await page.getByRole('button', { name: 'Allocate' }).click();
  await expect(page.getByRole('alert')).toContainText('Amount must be a decimal number of USDC greater than 0');
  await page.getByLabel('Allocate from the treasury').fill('5');
  await page.getByRole('button', { name: 'Allocate' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Moved 5.00 USDC' })).toBeVisible();
  await expect(page.locator('.facts .big-number')).toHaveText('5.00 USDC');

  // The editor refuses what the server would refuse, next to the field.
  await page.getByLabel('Daily budget (USDC, rolling 24 h)').fill('2');
  await page.getByLabel('Max per payment (USDC)').fill('0');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.locator('#maxPerPayment-error')).toContainText('Max per payment must be a decimal number of USDC greater than 0');
  await page.getByLabel('Max per payment (USDC)').fill('0.50');
  await page.getByLabel('Cooldown between payments (seconds, 0 = none)').fill('0');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText('Saved')).toBeVisible();
  const policy = (await (
    await fetch(`${serve.url}/v1/agents/e2e-bot/policy?owner=${owner}`, { headers: { authorization: `Bearer ${agentKey}` } })
  ).json()) as {
    policy: unknown;
  };
  expect(policy.policy).toMatchObject({ dailyBudget: '2.00', maxPerPayment: '0.50', cooldownSeconds: 0 });

  // Loosening a lot, or past what the treasury holds, is confirmed with the factor; Cancel saves nothing.
  const readPolicy = async () =>
    (
      (await (
        await fetch(`${serve.url}/v1/agents/e2e-bot/policy?owner=${owner}`, { headers: { authorization: `Bearer ${agentKey}` } })
      ).json()) as {
        policy: { dailyBudget: string; allowedServices: string[] };
      }
    ).policy;
  await page.getByLabel('Daily budget (USDC, rolling 24 h)').fill('1000000000');
  await page.getByRole('button', { name: 'Save policy' }).click();
  const confirm = page.getByRole('dialog', { name: 'Loosen these limits?' });
  await expect(confirm).toContainText('Daily budget 2.00 → 1,000,000,000.00 USDC: 500,000,000× the current budget.');
  // One daily budget counts both rails: the treasury's 1,245.00 on Solana and 1,025.00 on Base.
  await expect(confirm).toContainText('more than the treasury holds (2,270.00 USDC)');
  await page.screenshot({ path: join(SCREENSHOTS, 'policy-confirm.png') });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await readPolicy()).dailyBudget).toBe('2.00');
  await page.getByLabel('Daily budget (USDC, rolling 24 h)').fill('2');

  // Allowed services are a choice: "Only these" with nothing ticked is refused, never widened to all.
  await page.getByLabel('Only these').check();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.locator('#allowedServices-error')).toHaveText('Allowed services: pick at least one, or choose Any service');
  await page.getByLabel(/demo-weather/).check();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect.poll(async () => (await readPolicy()).allowedServices).toEqual(['demo-weather']);
  await page.getByLabel(/demo-weather/).uncheck();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.locator('#allowedServices-error')).toBeVisible();
  expect((await readPolicy()).allowedServices).toEqual(['demo-weather']);
  await page.getByLabel('Any service').check();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(confirm).toContainText('Any service may be paid, not only the 1 picked.');
  await confirm.getByRole('button', { name: 'Save anyway' }).click();
  await expect.poll(async () => (await readPolicy()).allowedServices).toEqual([]);
});

test('a payment made through the API appears in the dashboard without a reload', async ({ page }) => {
  await signInPage(page);
  await page.getByRole('navigation').getByRole('link', { name: 'Activity' }).click();
  await expect(page.getByText('No payments yet.')).toBeVisible();
  const paid = await agentPays('0.25');
  expect(paid.status).toBe(200);
  const activity = page.getByTestId('activity-row').first();
  await expect(activity).toContainText('forecast-api', { timeout: 10_000 });
  await expect(activity).toContainText('0.25 USDC');
  await expect(activity).toContainText('Paid');
  await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
  await expect(row(page, 'e2e-bot')).toContainText('4.75 USDC');
  // The row's bar is its tightest budget: here the daily one (0.25 of 2.00 USDC).
  await expect(row(page, 'e2e-bot')).toContainText('12 % of 2.00 USDC in any 24 hours');
  await expect(row(page, 'e2e-bot').getByTestId('budget-warning')).toHaveCount(0);
});

test('kill from the dashboard refuses the next payment; stop all and resume', async ({ page }) => {
  await signInPage(page);
  // A second agent, so "stop all" has more than one to stop.
  await api.json('POST', '/v1/agents/deploy', { agentId: 'helper-bot', dailyBudget: '1', maxPerPayment: '0.1' });
  await page.reload();
  await row(page, 'e2e-bot').getByRole('switch').click();
  await expect(row(page, 'e2e-bot').getByRole('switch')).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByRole('status').filter({ hasText: 'stopped' })).toContainText('1 of 2 agents is stopped');
  const refused = await agentPays();
  expect(refused).toMatchObject({ status: 403, body: { code: 'agent_suspended' } });

  await row(page, 'e2e-bot').getByRole('switch').click();
  await expect(row(page, 'e2e-bot').getByRole('switch')).toHaveAttribute('aria-checked', 'true');
  expect((await agentPays('0.10')).status).toBe(200);

  await page.getByRole('button', { name: 'Stop all agents' }).click();
  const dialog = page.getByRole('dialog', { name: 'Stop all agents?' });
  await expect(dialog).toContainText('Both active agents');
  await dialog.getByRole('button', { name: 'Stop all agents' }).click();
  await expect(page.getByText('Both agents are stopped')).toBeVisible();
  expect((await agentPays()).body.code).toBe('agent_suspended');
  // The dialog closes once its own refresh is in (the live event's refresh may show the stop first).
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Stop all agents' })).toBeDisabled();

  await row(page, 'e2e-bot').getByRole('switch').click();
  await expect(page.getByText('1 of 2 agents is stopped')).toBeVisible();
  expect((await agentPays('0.10')).status).toBe(200);

  // What was refused is listed, with the reason.
  await page.getByRole('navigation').getByRole('link', { name: 'Activity' }).click();
  const refusal = page.getByTestId('refusal-row').first();
  await expect(refusal).toContainText('E2E research bot');
  await expect(refusal).toContainText('is stopped');
});

test('a tighter daily budget, typed in the editor, is tried on the last 30 days: how many of its payments it would have refused, and which', async ({
  page,
}) => {
  // The agent's payments so far in this spec, as the owner reads them (0.25, then 0.10 twice), and
  // what a daily budget of 0.30 USDC would have let through of them, oldest first.
  const history = await api.json<{ payments: { amount: string; status: string; timestamp: string }[] }>(
    'GET',
    '/v1/agents/e2e-bot/spend-history',
  );
  const made = history.payments
    .filter((p) => p.status === 'confirmed' || p.status === 'pending')
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  expect(made.map((p) => p.amount)).toEqual(['0.25', '0.10', '0.10']);
  let spent = 0;
  const refused = made.filter((p) => {
    const cents = Math.round(Number(p.amount) * 100);
    if (spent + cents > 30) return true;
    spent += cents;
    return false;
  });
  expect(refused).toHaveLength(2);

  await signInPage(page);
  await page.goto(`${serve.url}/#/agents/e2e-bot`);
  await expect(page.getByRole('heading', { name: 'E2E research bot' })).toBeVisible();
  await page.getByLabel('Daily budget (USDC, rolling 24 h)').fill('0.3');
  const preview = page.getByTestId('policy-what-if');
  await expect(preview).toContainText(
    `Over the last 30 days (${made.length} payments) this would have refused ${refused.length} (0.20 USDC): ${refused.length} over the daily budget.`,
  );
  const examples = preview.getByTestId('what-if-example');
  await expect(examples).toHaveCount(refused.length);
  await expect(examples.first()).toContainText('forecast-api');
  await expect(examples.first()).toContainText('0.10 USDC');
  await expect(examples.first()).toContainText('would pass the daily budget');
  // A budget no payment reaches would have refused none of them; nothing is saved by trying.
  await page.getByLabel('Daily budget (USDC, rolling 24 h)').fill('1.5');
  await expect(preview).toContainText(`would have refused none of the ${made.length} payments`);
  await page.getByLabel('Daily budget (USDC, rolling 24 h)').fill('0.3');
  await expect(examples).toHaveCount(refused.length);
  expect((await policyNow()).policy).toMatchObject({ dailyBudget: '2.00' });

  // The whole form, from the page's top (an element's own screenshot would catch the sticky header).
  const shoot = async (name: string) => {
    await page.evaluate(() => window.scrollTo(0, 0));
    const form = (await page.getByRole('form', { name: 'Spending policy' }).boundingBox())!;
    await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true, clip: form });
  };
  await shoot('policy-what-if.png');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(examples).toHaveCount(refused.length);
  await shoot('policy-what-if-phone.png');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('a new API key for an agent: asked first, shown once, guarded until copied, and it works', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signInPage(page);
  await page.goto(`${serve.url}/#/agents/helper-bot`);
  await page.getByRole('button', { name: 'Issue a new API key…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Issue a new API key for helper-bot?' });
  await expect(dialog).toContainText('stops working at once');
  await dialog.getByRole('button', { name: 'Issue a new key' }).click();
  const key = page.getByTestId('api-key');
  await expect(key).toHaveText(/^cof_agt_/);
  // Escape before copying asks instead of closing.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('alertdialog')).toContainText('The key has not been copied');
  // A second Escape in a row cannot be cancelled by the page: the dialog comes back, key and all.
  await page.keyboard.press('Escape');
  await expect(key).toBeVisible();
  await expect(page.getByRole('alertdialog')).toContainText('The key has not been copied');
  await page.getByRole('button', { name: 'Back to the key' }).click();
  await page.getByRole('button', { name: 'Copy key' }).click();
  const newKey = (await key.textContent()) ?? '';
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(newKey);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  const balance = (k: string) =>
    fetch(`${serve.url}/v1/agents/helper-bot/balance?owner=${owner}`, { headers: { authorization: `Bearer ${k}` } });
  expect((await balance(newKey)).status).toBe(200);
});

test('registry: search services and browse models with prices per resolution', async ({ page }) => {
  await signInPage(page);
  await page.getByRole('navigation').getByRole('link', { name: 'Registry' }).click();
  await page.getByLabel('Search services').fill('weather');
  await expect(page.getByRole('status').filter({ hasText: 'for “weather”' })).toBeVisible();
  await expect(page.getByRole('cell', { name: /Coffer demo weather/ })).toBeVisible();
  // Paid on Base too (its registry entry has a Base address).
  await expect(page.getByTestId('service-demo-weather').getByTestId('rails')).toHaveText('paid on Solana or Base');
  // The models table's row (the services table may list the model too, before the search applies).
  const models = page.locator('section', { has: page.getByRole('heading', { name: 'Image models' }) });
  const flux = models.getByRole('row', { name: /FLUX.1 pro/ });
  await expect(flux).toContainText('0.04 USDC');
  await expect(flux).toContainText('0.16 USDC');
});

test('an image the agent generates shows on its page, with a link to the result', async ({ page }) => {
  const generated = await fetch(`${serve.url}/v1/agents/e2e-bot/generate?owner=${owner}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a lighthouse at dusk', modelId: 'sdxl', resolution: '1k' }),
  });
  expect(generated.status).toBe(200);
  await signInPage(page);
  await page.goto(`${serve.url}/#/agents/e2e-bot`);
  const task = page.getByTestId('image-task').first();
  await expect(task).toContainText('a lighthouse at dusk');
  await expect(task).toContainText('sdxl · 1k');
  const link = task.getByRole('link', { name: 'Open image' });
  await expect(link).toBeVisible();
  const image = await page.request.get((await link.getAttribute('href')) ?? '');
  expect(image.headers()['content-type']).toMatch(/^image\/svg\+xml/);
});

test('budgets: a row added in the editor and a preset are saved; the agent page says where each stands; past 80 % the owner is warned and the row marked', async ({
  page,
}) => {
  await signInPage(page);
  await page.goto(`${serve.url}/#/agents/e2e-bot`);
  await expect(page.getByRole('heading', { name: 'E2E research bot' })).toBeVisible();
  await page.getByRole('button', { name: 'Add a budget' }).click();
  await page.getByLabel('Budget 1: at most').fill('1');
  await page.getByLabel('Budget 1: window').selectOption('24h');
  await page.getByLabel('Budget 1: for').selectOption('recipient');
  // Refused next to the row, in the server's words, and nothing is saved.
  await page.getByLabel('Budget 1: recipient address').fill('not-an-address');
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText('Budgets, item 1, recipient is not a Solana address (base58, 32 bytes)')).toBeVisible();
  await expect(page.getByLabel('Budget 1: recipient address')).toHaveAttribute('aria-invalid', 'true');
  expect((await policyNow()).policy.budgets).toBeUndefined();
  await page.getByLabel('Budget 1: recipient address').fill(FORECAST);
  await page.getByRole('button', { name: '+ 50 USDC a month' }).click();
  await page.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByText('Saved')).toBeVisible();
  // Scrolled to the top, the form's box is where it lies on the page (no sticky header over it).
  await page.evaluate(() => window.scrollTo(0, 0));
  const form = (await page.getByRole('form', { name: 'Spending policy' }).boundingBox())!;
  await page.screenshot({ path: join(SCREENSHOTS, 'policy-budgets.png'), fullPage: true, clip: form });
  const read = await policyNow();
  expect(read.policy.budgets).toEqual([
    { amount: '1.00', window: '24h', recipient: FORECAST },
    { amount: '50.00', window: 'month' },
  ]);
  // What the agent paid that address so far (0.25 and twice 0.10) counts against its budget.
  expect(read.budgets?.[0]).toMatchObject({ spent: '0.45', remaining: '0.55', resetsAt: null });
  const resetsAt = read.budgets?.[1]?.resetsAt;
  expect(resetsAt).toMatch(/^\d{4}-/);

  const limits = page.getByRole('region', { name: 'Limits now' });
  const toForecast = limits.getByTestId('budget-now').filter({ hasText: `1.00 USDC in any 24 hours to ${FORECAST}` });
  await expect(toForecast).toContainText('0.45 USDC');
  await expect(toForecast).toContainText('0.55 USDC');
  await expect(toForecast).toContainText('as payments pass 24 h');
  const monthly = limits.getByTestId('budget-now').filter({ hasText: '50.00 USDC a month' });
  await expect(monthly).toContainText(String(new Date(resetsAt!).getFullYear()));
  await expect(limits.getByTestId('policy-breaker')).toContainText('none');

  // A payment takes the address's budget to 85 %: the owner is told in words, the figures follow.
  expect((await agentPays('0.40')).status).toBe(200);
  await expect(page.getByTestId('warnings')).toContainText(
    `e2e-bot has used 85 % of its budget of 1.00 USDC in any 24 hours to ${FORECAST}`,
  );
  await expect(toForecast).toContainText('0.85 USDC');
  // At the top: a full-page picture taken scrolled would show the sticky header halfway down.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOTS, 'agent-budgets.png'), fullPage: true });

  // The overview's row shows that budget as its tightest, with the warning mark.
  await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
  const bot = row(page, 'e2e-bot');
  await expect(bot).toContainText(`85 % of 1.00 USDC in any 24 hours to ${FORECAST.slice(0, 4)}…${FORECAST.slice(-4)}`);
  await expect(bot.getByTestId('budget-warning')).toHaveText('Near its limit');
  await page.screenshot({ path: join(SCREENSHOTS, 'overview-budgets.png') });

  // Removing a budget loosens the policy: asked first, naming it; Cancel keeps it.
  await page.goto(`${serve.url}/#/agents/e2e-bot`);
  await page.getByRole('button', { name: 'Remove budget 2' }).click();
  await page.getByRole('button', { name: 'Save policy' }).click();
  const confirm = page.getByRole('dialog', { name: 'Loosen these limits?' });
  await expect(confirm).toContainText('Budget 50.00 USDC a month → removed.');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await policyNow()).policy.budgets).toHaveLength(2);
});

test('time zone: the owner moves it on the overview, and a calendar budget starts afresh at midnight there', async ({ browser }) => {
  // A browser in New York, neither the server's zone nor the one picked: each time shown in the
  // owner's zone is visibly not the browser's.
  const context = await browser.newContext({ timezoneId: 'America/New_York' });
  const page = await context.newPage();
  const before = await ownerSettings();
  expect(before.timeZoneFrom).toBe('machine');
  const target = before.timeZone === 'Pacific/Kiritimati' ? 'Pacific/Pago_Pago' : 'Pacific/Kiritimati';
  /** What the page writes for a moment in a zone (its own locale, as the dashboard's dateTime). */
  const shown = (iso: string, timeZone: string) =>
    page.evaluate(
      ([at, zone]) => new Date(at!).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }),
      [iso, timeZone],
    );
  const monthlyResets = async () => (await policyNow()).budgets?.[1]?.resetsAt ?? '';

  await signInPage(page);
  const settings = page.getByRole('region', { name: 'Settings' });
  await expect(settings.getByTestId('time-zone')).toContainText(`${before.timeZone}`);
  await expect(settings.getByTestId('time-zone')).toContainText("this computer's");

  // The agent page's monthly budget starts afresh at midnight in the server's zone, said as such.
  await page.goto(`${serve.url}/#/agents/e2e-bot`);
  const limits = page.getByRole('region', { name: 'Limits now' });
  const monthly = limits.getByTestId('budget-now').filter({ hasText: '50.00 USDC a month' });
  const resetsBefore = await monthlyResets();
  await expect(monthly).toContainText(await shown(resetsBefore, before.timeZone));
  await expect(limits.getByTestId('limits-zone')).toContainText(`Times in ${before.timeZone}`);

  // Changed on the overview: searched, picked, saved.
  await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
  await settings.getByRole('button', { name: 'Change the time zone' }).click();
  await settings.getByLabel('Choose a zone').check();
  await settings.getByLabel('Search time zones').fill(target.split('/')[1]!.toLowerCase());
  await expect(settings.getByLabel('Time zone', { exact: true })).toHaveValue(target);
  await settings.scrollIntoViewIfNeeded();
  await settings.screenshot({ path: join(SCREENSHOTS, 'time-zone-change.png') });
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await settings.screenshot({ path: join(SCREENSHOTS, 'time-zone-change-dark.png') });
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  // On a phone the list fits the screen: nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
  await settings.screenshot({ path: join(SCREENSHOTS, 'time-zone-change-phone.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  await settings.getByRole('button', { name: 'Save time zone' }).click();
  await expect(settings.getByTestId('time-zone')).toContainText(`${target}`);
  await expect(settings.getByTestId('time-zone')).toContainText('set by you');
  expect(await ownerSettings()).toEqual({ timeZone: target, timeZoneFrom: 'owner', preferredRail: null });
  await settings.screenshot({ path: join(SCREENSHOTS, 'time-zone.png') });

  // The month now starts afresh at midnight there: another moment, shown in that zone, said once.
  const resetsAfter = await monthlyResets();
  expect(resetsAfter).not.toBe(resetsBefore);
  expect(new Date(resetsAfter).toLocaleString('en-US', { timeZone: target, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })).toBe(
    '00:00',
  );
  await page.goto(`${serve.url}/#/agents/e2e-bot`);
  await expect(monthly).toContainText(await shown(resetsAfter, target));
  await expect(monthly).not.toContainText(await shown(resetsAfter, 'America/New_York'));
  await expect(limits.getByTestId('limits-zone')).toContainText(`Times in ${target}`);
  // The editor's end of a day is that zone's midnight, and says so.
  await page.getByLabel('At the end of a day').check();
  await expect(page.getByTestId('end-zone')).toContainText(`in ${target}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await limits.screenshot({ path: join(SCREENSHOTS, 'agent-limits-time-zone.png') });

  // Back to the computer's zone (null): the month starts afresh where it did.
  await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
  await settings.getByRole('button', { name: 'Change the time zone' }).click();
  await settings.getByLabel('Follow this computer').check();
  await settings.getByRole('button', { name: 'Save time zone' }).click();
  await expect(settings.getByTestId('time-zone')).toContainText("this computer's");
  expect(await ownerSettings()).toEqual(before);
  expect(await monthlyResets()).toBe(resetsBefore);
  await context.close();
});

test('preferred rail: the owner prefers Base on the overview, and the server keeps it; none again after', async ({ page }) => {
  await signInPage(page);
  const settings = page.getByRole('region', { name: 'Settings' });
  await expect(settings.getByTestId('preferred-rail')).toHaveText('None preferred');
  await settings.getByRole('button', { name: 'Change the preferred rail' }).click();
  await settings.getByLabel('Base', { exact: true }).check();
  await settings.scrollIntoViewIfNeeded();
  await settings.screenshot({ path: join(SCREENSHOTS, 'preferred-rail-change.png') });
  await settings.getByRole('button', { name: 'Save preferred rail' }).click();
  await expect(settings.getByTestId('preferred-rail')).toHaveText('Base · set by you');
  expect(await ownerSettings()).toMatchObject({ preferredRail: 'base' });
  await settings.screenshot({ path: join(SCREENSHOTS, 'preferred-rail.png') });

  await settings.getByRole('button', { name: 'Change the preferred rail' }).click();
  await settings.getByLabel('Where the funds are (Solana first)').check();
  await settings.getByRole('button', { name: 'Save preferred rail' }).click();
  await expect(settings.getByTestId('preferred-rail')).toHaveText('None preferred');
  expect(await ownerSettings()).toMatchObject({ preferredRail: null });
});

test('screenshots of the overview and the agent page at 1280x800, light and dark', async ({ page }) => {
  await signInPage(page);
  await expect(row(page, 'e2e-bot')).toBeVisible();
  await page.screenshot({ path: join(SCREENSHOTS, 'overview.png') });
  await page.goto(`${serve.url}/#/agents/e2e-bot`);
  await expect(page.getByRole('heading', { name: 'E2E research bot' })).toBeVisible();
  await expect(page.locator('.chart figcaption')).toContainText('in the last 24 h');
  // Its policy allows any service (the list of services to pick from is shown for "Only these").
  await expect(page.getByLabel('Any service')).toBeChecked();
  await page.screenshot({ path: join(SCREENSHOTS, 'agent.png') });
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await page.screenshot({ path: join(SCREENSHOTS, 'agent-dark.png') });
});

/** GET policy as the agent reads it: the policy, and each budget now. */
async function policyNow(): Promise<{
  policy: { budgets?: unknown[] };
  budgets?: { spent?: string; remaining?: string; resetsAt: string | null }[];
}> {
  const response = await fetch(`${serve.url}/v1/agents/e2e-bot/policy?owner=${owner}`, {
    headers: { authorization: `Bearer ${agentKey}` },
  });
  return (await response.json()) as never;
}

/** GET /v1/settings as the owner reads it with the owner key. */
async function ownerSettings(): Promise<{ timeZone: string; timeZoneFrom: 'machine' | 'owner' }> {
  return api.json('GET', '/v1/settings');
}

/** Opens a fresh login link in the page and waits until the page has signed itself in. */
async function signInPage(page: Page): Promise<void> {
  await page.goto(await freshLogin());
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
}

/** A new one-time login link, minted the way the CLI's `coffer open` does: through the running server. */
async function freshLogin(): Promise<string> {
  return (await api.json<{ url: string }>('POST', '/v1/session/login-link')).url;
}
