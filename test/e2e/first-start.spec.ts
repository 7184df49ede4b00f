/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isFirstStart, startFirstStart } from '../../server/boot/first-start.js';
import type { ServeConfig } from '../../server/boot/serve-config.js';
import { spawnServe } from '../helpers/serve-process.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi } from '../helpers/owner-api.js';

/** Issue 23: the desktop app's first start offers restore, in a page of its own (/setup) before any treasury exists. */
const PASSPHRASE = 'the e2e first start file';
let scratch: string;
let backupFile: string;

const settingsFor = (dataDir: string, network?: string): ServeConfig => ({
  dataDir,
  port: 0,
  network,
  keyStore: 'file',
  usdcMint: undefined,
  baseRpc: undefined,
  baseUsdc: undefined,
  imageProviderUrl: undefined,
  imageProviderKey: undefined,
});

test.beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'coffer-e2e-first-start-'));
  const serve = await spawnServe(join(scratch, 'old-computer'));
  try {
    const response = await ownerApi(join(scratch, 'old-computer')).call('POST', '/v1/backup/file', { passphrase: PASSPHRASE });
    expect(response.status).toBe(200);
    backupFile = join(scratch, 'coffer-backup-sim.coffer');
    writeFileSync(backupFile, Buffer.from(await response.arrayBuffer()));
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});
test.afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('restoring a backup file on the first start: the file said, a wrong passphrase refused, then restored', async ({ page }) => {
  const dataDir = join(scratch, 'new-computer');
  const setup = await startFirstStart(settingsFor(dataDir, 'sim'), () => undefined);
  try {
    await page.goto(setup.setupUrl);
    await expect(page.getByRole('heading', { name: 'Welcome to Coffer' })).toBeVisible();
    // The token leaves the address bar at once.
    await expect.poll(() => page.url()).toMatch(/\/setup$/);
    await page.screenshot({ path: join(SCREENSHOTS, 'first-start.png'), fullPage: true });
    const card = page.getByRole('region', { name: 'Restore from a backup file' });
    await expect(card.getByRole('button', { name: 'Restore' })).toBeDisabled();
    await card.getByLabel(/^Backup file/).setInputFiles(backupFile);
    await expect(card.getByTestId('backup-received')).toContainText('A backup of a sim treasury, written');
    await card.getByLabel('Its passphrase').fill('not the passphrase');
    await card.getByRole('button', { name: 'Restore' }).click();
    await expect(card.getByRole('alert')).toContainText('not the passphrase');
    expect(isFirstStart(dataDir)).toBe(true);
    await card.getByLabel('Its passphrase').fill(PASSPHRASE);
    await card.getByRole('button', { name: 'Restore' }).click();
    await expect(page.getByRole('status')).toContainText('Restored: the sim treasury and its ledger as of');
    expect(await setup.chosen).toBe('restored');
    expect(isFirstStart(dataDir)).toBe(false);
  } finally {
    await setup.stop();
  }
});

test('the recovery phrase on the first start: its network asked when none was named, mistyped words refused', async ({ page }) => {
  const dataDir = join(scratch, 'by-phrase');
  const setup = await startFirstStart(settingsFor(dataDir), () => undefined);
  try {
    await page.goto(setup.setupUrl);
    const card = page.getByRole('region', { name: 'Restore from the recovery phrase' });
    await expect(card.getByRole('radio', { name: 'mainnet' })).toBeChecked();
    await card.getByRole('radio', { name: 'devnet' }).check();
    await card.getByLabel(/^The 24 \(or 12\) words/).fill('these are not the words of any phrase');
    await card.getByRole('button', { name: 'Restore' }).click();
    await expect(card.getByRole('alert')).toContainText('that is not a recovery phrase');
    // Without a token (another tab, the address typed) the page says where to open it.
    const other = await page.context().newPage();
    await other.goto(new URL(setup.setupUrl).origin + '/setup');
    await expect(other.getByText("open it from Coffer's own window")).toBeVisible();
    // Or a new treasury after all: chosen, nothing restored.
    await page.getByRole('button', { name: 'Start a new treasury' }).click();
    await expect(page.getByRole('status')).toContainText('A new treasury is being made');
    expect(await setup.chosen).toBe('new');
    expect(isFirstStart(dataDir)).toBe(true);
  } finally {
    await setup.stop();
  }
});
