import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBackupWriter } from '../../../../server/backup/backup-writer.js';
import { createFileBackend } from '../../../../server/keys/file-backend.js';
import { createKeyVault } from '../../../../server/keys/key-vault.js';
import { openConnection } from '../../../../server/store/sqlite-driver.js';
import { expectCofferError } from '../../../helpers/expect-error.js';

const dir = mkdtempSync(join(tmpdir(), 'coffer-backup-writer-'));
const dataDir = join(dir, 'data');
const folder = join(dir, 'backups');
mkdirSync(dataDir, { mode: 0o700 });
mkdirSync(folder);
const db = openConnection(join(dataDir, 'coffer.db'));
db.exec(
  "CREATE TABLE schema_migrations (version INTEGER); INSERT INTO schema_migrations VALUES (20); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE t (x); INSERT INTO t VALUES ('row')",
);
const writer = createBackupWriter({
  db,
  vault: createKeyVault(createFileBackend(join(dataDir, 'keys'))),
  dataDir,
  network: 'sim',
  version: 'test',
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const none = { wallets: [], treasuries: [] };

describe('the backup writer', () => {
  it('copies the ledger into a scratch folder only its user can read (0700, the copy 0600), and leaves nothing of it once written', async () => {
    let scratch: Record<string, string> = {};
    const written = await writer.write({
      folder,
      passphrase: 'a passphrase for the test',
      at: Date.UTC(2026, 10, 23, 10),
      // Asked once the ledger is copied: what a kill at this moment would leave behind.
      wallets: () => {
        const [name, ...more] = readdirSync(dataDir).filter((entry) => entry.startsWith('.backup-'));
        expect(more).toEqual([]);
        const at = join(dataDir, name!);
        scratch = { [name!]: mode(at), ...Object.fromEntries(readdirSync(at).map((entry) => [entry, mode(join(at, entry))])) };
        return none;
      },
    });
    expect(Object.entries(scratch)).toEqual([
      [expect.stringMatching(/^\.backup-/), '700'],
      ['ledger.db', '600'],
    ]);
    expect(mode(written.file)).toBe('600');
    expect(readdirSync(dataDir).filter((entry) => entry.startsWith('.backup-'))).toEqual([]);
  });

  it('refuses at the write itself a folder that leads into the data dir, writing nothing there', async () => {
    symlinkSync(join(dataDir, 'keys'), join(dir, 'to-keys'));
    const before = readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).sort();
    for (const into of [join(dir, 'to-keys'), dataDir, `${join(dir, 'to-keys')}/../keys`, 'relative/folder']) {
      await expectCofferError(
        writer.write({ folder: into, passphrase: 'a passphrase for the test', at: Date.now(), wallets: () => none }),
        'backup_folder_unusable',
      );
      expect(await writer.checkFolder(into)).toMatch(/inside Coffer's data dir|whole path/);
    }
    expect(readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).sort()).toEqual(before);
    expect(await writer.checkFolder(folder)).toBeNull();
  });
});
