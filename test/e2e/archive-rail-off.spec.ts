/// <reference lib="dom" />
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, type OwnerApi } from '../helpers/owner-api.js';

/**
 * Archiving from the agent page where the Base rail is off (COFFER_BASE_RPC=off): an agent the ledger
 * funded on Base cannot be archived (its account there cannot be read), and the dialog, which cannot
 * tell such an agent apart, asks the archive first and returns nothing when refused; an agent never
 * funded on Base has its Solana USDC returned and is archived.
 */
test.describe.configure({ mode: 'serial' });

let serve: ServeProcess;
let dataDir: string;
let api: OwnerApi;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-archive-rail-off-'));
  serve = await spawnServe(dataDir);
  api = ownerApi(dataDir);
  for (const [agentId, displayName] of [
    ['on-base', 'Base buyer'],
    ['solana-only', 'Solana buyer'],
  ]) {
    await api.json('POST', '/v1/agents/deploy', { agentId, displayName, dailyBudget: '25', maxPerPayment: '2' });
    await api.json('POST', `/v1/agents/${agentId}/allocate`, { amount: '3' });
  }
  await api.json('POST', '/v1/agents/on-base/allocate', { amount: '2', rail: 'base' });
  serve.child.kill('SIGTERM');
  await serve.exited;
  // The same data dir with the Base rail off.
  serve = await spawnServe(dataDir, { COFFER_BASE_RPC: 'off' });
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

async function openArchive(page: Page, agentId: string, name: string) {
  const { url } = await api.json<{ url: string }>('POST', '/v1/session/login-link', {});
  await page.goto(url);
  await expect(page.getByRole('heading', { name: /^Agents/ })).toBeVisible();
  await page.goto(`${serve.url}/#/agents/${agentId}`);
  await page.getByRole('button', { name: 'Archive…' }).click();
  const dialog = page.getByRole('dialog', { name: `Archive ${name}?` });
  await expect(dialog).toContainText('3.00 USDC go back to the treasury on chain');
  await dialog.getByRole('button', { name: 'Return the funds and archive' }).click();
  return dialog;
}

test('an agent funded on Base: the archive is refused with how to go on, and its Solana USDC stays where it was', async ({ page }) => {
  const dialog = await openArchive(page, 'on-base', 'Base buyer');
  await expect(dialog).toContainText('took USDC on Base, and the Base rail is off here');
  await expect(dialog).toContainText('open the Base rail, return what it holds, then archive');
  await page.screenshot({ path: join(SCREENSHOTS, 'archive-rail-off.png') });
  const balance = await api.json<{ balance: string }>('GET', '/v1/agents/on-base/balance');
  expect(balance.balance).toBe('3.00');
  // Not archived: still among the agents in use, not among the archived (there is no GET of one agent).
  const { agents, archivedAgents } = await api.json<{ agents: { agentId: string }[]; archivedAgents: { agentId: string }[] }>(
    'GET',
    '/v1/dashboard',
  );
  const listed = (list: { agentId: string }[]) => list.some((agent) => agent.agentId === 'on-base');
  expect({ inUse: listed(agents), archived: listed(archivedAgents) }).toEqual({ inUse: true, archived: false });
});

test('an agent never funded on Base: its Solana USDC goes back, then it is archived', async ({ page }) => {
  const dialog = await openArchive(page, 'solana-only', 'Solana buyer');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('status').filter({ hasText: 'Archived' })).toContainText('stopped for good, its key revoked');
  const balance = await api.json<{ balance: string }>('GET', '/v1/agents/solana-only/balance');
  expect(balance.balance).toBe('0.00');
});
