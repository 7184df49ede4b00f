/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, type OwnerApi } from '../helpers/owner-api.js';

let serve: ServeProcess;
let dataDir: string;
let api: OwnerApi;

/** GET without a body, POST with one: as the owner, or with the key given (an agent's); the JSON answered, whatever the status. */
const call = async (path: string, body?: unknown, key?: string) =>
  (await api.answer(body === undefined ? 'GET' : 'POST', path, body, key)).body;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-gallery-'));
  serve = await spawnServe(dataDir);
  api = ownerApi(dataDir);
  const researcher = (await call('/v1/agents/deploy', {
    agentId: 'researcher',
    displayName: 'Research assistant',
    dailyBudget: '5',
    maxPerPayment: '1',
    fund: '20',
  })) as { apiKey: string };
  await call('/v1/agents/deploy', { agentId: 'trader', displayName: 'Price watcher', dailyBudget: '2', maxPerPayment: '0.5', fund: '5' });
  for (const amount of ['0.01', '0.01', '0.25'])
    await call('/v1/agents/researcher/pay', { service: 'demo-weather', amount: amount === '0.25' ? '0.01' : amount }, researcher.apiKey);
  await call('/v1/agents/researcher/pay', { service: 'demo-weather', amount: '3' }, researcher.apiKey);
  await call('/v1/agents/researcher/policy', { dailyBudget: '50' }, researcher.apiKey);
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

const PAGES: { name: string; hash: string; heading: RegExp; shows?: string }[] = [
  { name: 'overview', hash: '#/', heading: /^Agents/ },
  { name: 'agent', hash: '#/agents/researcher', heading: /^Research assistant/ },
  { name: 'activity', hash: '#/activity', heading: /Payments|Activity/ },
  { name: 'approvals', hash: '#/approvals', heading: /Approvals|Waiting|Requests/ },
  // Its services load after the page: the shot waits for the first of them.
  { name: 'registry', hash: '#/registry', heading: /^Services/, shows: 'service-demo-weather' },
  { name: 'not-found', hash: '#/nowhere', heading: /^Nothing here/ },
];

for (const viewport of [
  { label: 'desktop', size: { width: 1280, height: 800 } },
  { label: 'phone', size: { width: 390, height: 844 } },
]) {
  test(`every page renders, light and dark, on ${viewport.label}`, async ({ browser }) => {
    const context = await browser.newContext({
      viewport: viewport.size,
      ...(viewport.label === 'phone' ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}),
    });
    const page = await context.newPage();
    try {
      const { url } = (await call('/v1/session/login-link', {})) as { url: string };
      await page.goto(url);
      await expect(page.getByRole('heading', { name: /^Agents/ })).toBeVisible();
      for (const theme of ['light', 'dark'] as const) {
        await page.evaluate((t) => localStorage.setItem('coffer-theme', t), theme);
        await page.reload();
        for (const { name, hash, heading, shows } of PAGES) {
          await page.goto(`${serve.url}/${hash}`);
          await expect(page.getByRole('heading', { name: heading }).first()).toBeVisible();
          if (shows !== undefined) await expect(page.getByTestId(shows)).toBeVisible();
          expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
          // Nothing wider than the screen: a phone never scrolls a page sideways.
          if (viewport.label === 'phone') {
            expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(viewport.size.width);
            // Every link of the header's nav whole on screen: none cut off nor scrolled out of sight.
            const nav = page.getByRole('navigation', { name: 'Main' });
            expect(await nav.evaluate((n) => n.scrollWidth <= n.clientWidth)).toBe(true);
            for (const link of await nav.getByRole('link').all()) {
              const box = (await link.boundingBox())!;
              expect(box.x).toBeGreaterThanOrEqual(0);
              expect(box.x + box.width).toBeLessThanOrEqual(viewport.size.width);
            }
          }
          await page.screenshot({ path: join(SCREENSHOTS, 'gallery', `${name}-${viewport.label}-${theme}.png`) });
        }
      }
      // The signed-out page, in a fresh tab of its own.
      const signedOut = await context.newPage();
      await signedOut.goto(serve.url);
      await expect(signedOut.getByRole('heading', { name: 'Sign in to Coffer' })).toBeVisible();
      await signedOut.screenshot({ path: join(SCREENSHOTS, 'gallery', `sign-in-${viewport.label}.png`) });
    } finally {
      await context.close();
    }
  });
}
