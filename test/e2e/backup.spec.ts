/// <reference lib="dom" />
import { expect, test } from '@playwright/test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { SCREENSHOTS } from './screenshots.js';
import { ownerApi, readConnection, type OwnerApi } from '../helpers/owner-api.js';

/**
 * Issue 23: until the treasury is backed up, every page says "not backed up". This Coffer runs on sim,
 * whose test money lives in its data dir: the phrase is written down all the same, and a backup file
 * is what backs it up (elsewhere the phrase does: BackupPage's unit test holds those words).
 */
let serve: ServeProcess;
let dataDir: string;
let api: OwnerApi;

test.beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'coffer-e2e-backup-'));
  serve = await spawnServe(dataDir);
  api = ownerApi(dataDir);
});
test.afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test('the recovery phrase on sim: written down when three of its words are typed back, "not backed up" until a file', async ({ page }) => {
  await page.goto((await api.json<{ url: string }>('POST', '/v1/session/login-link')).url);
  const banner = page.getByTestId('backup-banner');
  await expect(banner).toContainText('Not backed up');
  await banner.getByRole('link', { name: 'Make an encrypted backup file' }).click();
  await expect(page.getByRole('heading', { name: 'Back up your treasury' })).toBeVisible();
  await expect(banner).toHaveCount(0);
  // One phrase for both rails; on sim it brings back no test money, and the page says so.
  await expect(page.getByTestId('phrase-on-sim')).toContainText(
    'One phrase of 24 words holds the key of the treasury and every agent wallet, on Solana and on Base. On sim, their test money lives in this data dir, which no phrase brings back: the backup file below does.',
  );
  await page.getByRole('button', { name: 'Show the recovery phrase' }).click();
  // The phrase comes from the server: wait for it before reading it (allTextContents does not wait).
  const shown = page.getByRole('list', { name: 'Recovery phrase' }).locator('code');
  await expect(shown).toHaveCount(24);
  const words = await shown.allTextContents();
  await page.screenshot({ path: join(SCREENSHOTS, 'backup-phrase.png') });
  // Checked from the paper: the words are hidden first.
  await page.getByRole('button', { name: 'I have written it down' }).click();
  await expect(page.getByRole('list', { name: 'Recovery phrase' })).toHaveCount(0);

  const inputs = page.getByLabel(/^Word #\d+/);
  await expect(inputs).toHaveCount(3);
  // A wrong word first: said, nothing changes.
  for (let i = 0; i < 3; i++) await inputs.nth(i).fill('zoo');
  await page.getByRole('button', { name: 'Check' }).click();
  await expect(page.getByRole('alert')).toContainText('not the words at positions');
  const labels = page.locator('.phrase-check label');
  for (let i = 0; i < 3; i++) {
    const position = Number(/#(\d+)/.exec((await labels.nth(i).textContent()) ?? '')![1]);
    await labels
      .nth(i)
      .locator('input')
      .fill(words[position - 1]!);
  }
  await page.getByRole('button', { name: 'Check' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Written down on / })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Recovery phrase' })).toHaveCount(0);
  await expect(page.getByRole('note').filter({ hasText: 'Not backed up' })).toContainText(
    'on sim, only a backup file brings the test money back, and none was written yet.',
  );
  await page.goto(`${serve.url}/#/`);
  await expect(page.getByRole('heading', { name: /^Agents/ })).toBeVisible();
  await expect(page.getByTestId('backup-banner')).toContainText('Not backed up');
});

test('the backup file: a passphrase typed twice, then a download that restores', async ({ page }) => {
  const { owner } = readConnection(dataDir);
  await page.goto((await api.json<{ url: string }>('POST', '/v1/session/login-link')).url);
  // Signed in once the overview shows (the login page trades its token first).
  await expect(page.getByRole('heading', { name: /^Agents/ })).toBeVisible();
  await page.goto(`${serve.url}/#/backup`);
  const card = page.getByRole('region', { name: 'Backup file' });
  await expect(card).toBeVisible();
  await expect(page.getByTestId('last-backup-file')).toHaveCount(0);
  const passphrase = card.getByLabel(/^Passphrase/);
  const again = card.getByLabel('The same again');
  const button = card.getByRole('button', { name: 'Download a backup file' });
  // Refused here in the server's words, or for differing twice: nothing is written.
  await passphrase.fill('short');
  await again.fill('short');
  await button.click();
  await expect(card.getByRole('alert')).toContainText('at least 12 characters');
  await passphrase.fill('an e2e passphrase to keep');
  await again.fill('an e2e passphrase to kept');
  await button.click();
  await expect(card.getByRole('alert')).toContainText('The two passphrases differ');
  await again.fill('an e2e passphrase to keep');
  const downloading = page.waitForEvent('download');
  await button.click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^coffer-backup-sim-\d{4}-\d{2}-\d{2}-\d{6}\.coffer$/);
  const saved = join(dataDir, '..', `${download.suggestedFilename()}`);
  await download.saveAs(saved);
  try {
    expect(readFileSync(saved).subarray(0, 14).toString()).toBe('coffer-backup\n');
    await expect(page.getByTestId('last-backup-file')).toContainText('Last backup file:');
    await expect(passphrase).toHaveValue('');
    await page.screenshot({ path: join(SCREENSHOTS, 'backup-file.png'), fullPage: true });
    // The file holds every wallet: backed up now, on every page.
    await expect(page.getByRole('note').filter({ hasText: 'Not backed up' })).toHaveCount(0);
    await expect(page.getByTestId('backup-banner')).toHaveCount(0);
    const restored = mkdtempSync(join(tmpdir(), 'coffer-e2e-restored-'));
    try {
      const { restoreBackupFile } = await import('../../server/backup/restore-file.js');
      const facts = await restoreBackupFile({
        file: saved,
        dataDir: restored,
        network: null,
        keyStore: 'file',
        passphrase: async () => 'an e2e passphrase to keep',
        log: () => undefined,
      });
      expect(facts?.owners).toEqual([owner]);
    } finally {
      rmSync(restored, { recursive: true, force: true });
    }
  } finally {
    rmSync(saved, { force: true });
  }
});

test('scheduled backups: a folder and a passphrase, the first file at once, then turned off', async ({ page }) => {
  await page.goto((await api.json<{ url: string }>('POST', '/v1/session/login-link')).url);
  await expect(page.getByRole('heading', { name: /^Agents/ })).toBeVisible();
  await page.goto(`${serve.url}/#/backup`);
  const card = page.getByRole('region', { name: 'Scheduled backups' });
  await expect(card.getByRole('button', { name: 'Start scheduled backups' })).toBeVisible();
  const folder = mkdtempSync(join(tmpdir(), 'coffer-e2e-scheduled-'));
  try {
    const fill = async (where: string) => {
      await card.getByLabel(/^Folder/).fill(where);
      await card.getByLabel(/^How often/).selectOption({ label: 'every 6 hours' });
      await card.getByLabel(/^Files kept/).fill('3');
      await card.getByLabel(/^Passphrase/).fill('scheduled from the page');
      await card.getByLabel('The same again').fill('scheduled from the page');
    };
    // A folder that is not there: the server's words, nothing set.
    await fill(join(folder, 'missing'));
    await card.getByRole('button', { name: 'Start scheduled backups' }).click();
    await expect(card.getByRole('alert')).toContainText('no such folder');
    await fill(folder);
    await card.getByRole('button', { name: 'Start scheduled backups' }).click();
    await expect(card.getByTestId('backup-schedule')).toContainText(`every 6 hours into ${folder}, the newest 3 kept`);
    expect(readdirSync(folder)).toEqual([expect.stringMatching(/^coffer-backup-sim-.*\.coffer$/)]);
    await expect(card.getByLabel(/^Passphrase/)).toHaveValue('');
    await page.screenshot({ path: join(SCREENSHOTS, 'backup-schedule.png'), fullPage: true });
    await card.getByRole('button', { name: 'Turn off' }).click();
    await expect(card.getByRole('button', { name: 'Start scheduled backups' })).toBeVisible();
    await expect(card.getByTestId('backup-schedule')).toHaveCount(0);
    expect(readdirSync(folder)).toHaveLength(1);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
