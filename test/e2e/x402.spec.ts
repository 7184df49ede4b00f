import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import { startFacilitator, startV2Seller, type TestFacilitator, type TestSeller } from '../fixtures/x402-peers.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { ownerApi, readConnection } from '../helpers/owner-api.js';

/**
 * An x402 payment as the owner sees it: `coffer serve` on the test cluster presented as devnet, an
 * agent paying an official @x402/express seller through payingFetch, and the dashboard in Chromium
 * showing that payment with the URL bought and the seller, on the agent's page and in the activity.
 */
test.describe.configure({ mode: 'serial' });

let cluster: TestCluster;
let serve: ServeProcess;
let facilitator: TestFacilitator;
let seller: TestSeller;
let dataDir: string;

test.beforeAll(async () => {
  cluster = await new TestCluster({ as: 'devnet' }).start();
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-x402-'));
  serve = await spawnServe(dataDir, { COFFER_NETWORK: cluster.url });
  facilitator = await startFacilitator(cluster);
  const payTo = (await generateKeyPairSigner()).address;
  await cluster.mintUsdc(payTo, 0n);
  seller = await startV2Seller(facilitator, { payTo, price: '$0.01' });
});
test.afterAll(async () => {
  await seller.close();
  await facilitator.close();
  serve.child.kill('SIGTERM');
  await serve.exited;
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('an x402 payment shows on the agent page and in the activity, with the URL bought and the seller', async ({ page }) => {
  const { owner } = readConnection(dataDir);
  const api = ownerApi(dataDir);
  cluster.airdrop(owner);
  await cluster.mintUsdc(owner, 10_000_000n);
  const agent = await api.json<{ apiKey: string }>('POST', '/v1/agents/deploy', {
    agentId: 'x402-bot',
    dailyBudget: '1.00',
    maxPerPayment: '0.10',
  });
  await api.json('POST', '/v1/agents/x402-bot/allocate', { amount: '1.00' });
  const { response, settlement } = await payingFetch(
    seller.url,
    {},
    { agent: { cofferUrl: serve.url, owner, agentId: 'x402-bot', apiKey: agent.apiKey } },
  );
  expect(response.status).toBe(200);
  // Coffer's word once the seller's settlement reached it (the answer did not wait for it).
  expect((await settlement)?.status).toBe('confirmed');

  await page.goto(serve.loginUrl);
  await expect(page.getByRole('heading', { name: 'Treasury' })).toBeVisible();
  await page.goto(`${serve.url}/#/agents/x402-bot`);
  const spending = page.getByRole('region', { name: 'Spending', exact: true });
  await expect(spending.getByText(seller.url, { exact: true })).toBeVisible();
  await expect(spending.getByText('x402', { exact: true })).toBeVisible();
  await expect(spending.getByText('Paid')).toBeVisible();
  await spending.screenshot({ path: join(import.meta.dirname, '../../test-results/screenshots/x402-spending.png') });

  await page.goto(`${serve.url}/#/activity`);
  await expect(page.getByTestId('activity-row').first().getByText(seller.url, { exact: true })).toBeVisible();
});
