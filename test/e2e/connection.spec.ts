/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, type OwnerApi } from '../helpers/owner-api.js';

/**
 * The server really stops under an open dashboard and really starts again on the same address: the
 * page says so within two seconds, greys and locks what it shows, and comes back by itself, still
 * signed in.
 */

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

// Two servers started, one stopped and started again, within the first test's time (its beforeAll
// counts there): 21 s here, more than half of the default 60 s on a machine 2.4 times slower.
test.describe.configure({ timeout: 120_000 });

let dataDir: string;
let port: string;
let serve: ServeProcess;
let api: OwnerApi;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-connection-'));
  port = String(await freePort());
  serve = await spawnServe(dataDir, { COFFER_PORT: port });
  api = ownerApi(dataDir);
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test('a stopped server is shown within 2 s, the page is locked while it is gone, and it recovers by itself, still signed in', async ({
  page,
}) => {
  await page.goto(serve.loginUrl);
  await expect(page.getByTestId('treasury-balance')).toHaveText('1,000.00 USDC');
  const banner = page.getByTestId('connection-banner');
  await expect(banner).toHaveCount(0);

  serve.child.kill('SIGTERM');
  await serve.exited;
  const stoppedAt = Date.now();
  await expect(banner).toBeVisible({ timeout: 2_000 });
  expect(Date.now() - stoppedAt).toBeLessThan(2_000);
  await expect(banner).toContainText('Disconnected, reconnecting');
  // One message, in words (no literal backticks), and nothing on the page can be pressed.
  await expect(page.getByRole('alert')).toHaveCount(1);
  expect(await banner.textContent()).not.toContain('`');
  await expect(page.locator('main')).toHaveAttribute('inert', '');
  await expect(page.locator('main')).toHaveClass(/stale/);
  await page.screenshot({ path: join(SCREENSHOTS, 'disconnected.png') });

  // Back on the same address: no sign-in needed, live again, and what changed meanwhile shows.
  serve = await spawnServe(dataDir, { COFFER_PORT: port });
  const faucet = await api.call('POST', '/v1/treasury/faucet', { amount: '5' });
  expect(faucet.status).toBe(200);
  await expect(banner).toHaveCount(0, { timeout: 10_000 });
  await expect(page.locator('main')).not.toHaveAttribute('inert');
  await expect(page.getByTestId('treasury-balance')).toHaveText('1,005.00 USDC');
  await expect(page.getByRole('heading', { name: 'Sign in to Coffer' })).toHaveCount(0);
});

test('a tab sent to a link request while signed out lands on it once another tab signs in; a used login link says used', async ({
  page,
  context,
}) => {
  const linking = (await (
    await fetch(`${serve.url}/v1/link-sessions`, { method: 'POST', body: JSON.stringify({ name: 'laptop' }) })
  ).json()) as {
    linkUrl: string;
    code: string;
  };
  await page.goto(linking.linkUrl);
  await expect(page.getByRole('heading', { name: 'Sign in to Coffer' })).toBeVisible();
  await expect(page.getByText('coffer open')).toBeVisible();

  // `coffer open` opens a new tab with a fresh login link: it lands on the link request.
  const login = await api.json<{ url: string }>('POST', '/v1/session/login-link');
  const signedIn = await context.newPage();
  await signedIn.goto(login.url);
  await expect(signedIn.getByTestId('link-code')).toHaveText(linking.code);
  expect(new URL(signedIn.url()).hash).toMatch(/^#\/link\//);

  // The same login link again, after a restart of the server: still "used", not "expired".
  serve.child.kill('SIGTERM');
  await serve.exited;
  serve = await spawnServe(dataDir, { COFFER_PORT: port });
  const again = await context.newPage();
  await again.goto(login.url);
  await expect(again.getByRole('alert')).toContainText('already used');
});
