import { mkdtemp, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CofferError } from '../wire/errors.js';
import type { BackupWriter } from '../core/ports/backup.js';
import type { WalletKeyVault } from '../keys/key-vault.js';
import { putMeta, snapshotLedger } from '../store/ledger-snapshot.js';
import { FILE_LACKS_KEYS_META } from '../core/backup/files.js';
import type { SqliteDatabase } from '../store/sqlite-driver.js';
import { BACKUP_EXTENSION, sealBackup, walletKeysIn } from './backup-file.js';
import { backupFolderRefusal, writableFolderRefusal } from './owner-paths.js';

/** The data dir's scratch folders, one per backup being written: the ledger's copy before it is sealed. */
const SCRATCH_PREFIX = '.backup-';

/**
 * The BackupWriter port: SQLite's online copy of the ledger (in a scratch folder of the data dir,
 * private as the ledger itself), the keys of the wallets named, both sealed into one file
 * (backup-file.ts). The scratch copy is removed whatever happens.
 */
export function createBackupWriter(deps: {
  db: SqliteDatabase;
  vault: WalletKeyVault;
  dataDir: string;
  network: string;
  version: string;
}): BackupWriter {
  return {
    async write({ folder, passphrase, at, wallets }) {
      // Judged at every write, not only when the schedule was set: the folder may be a link by now.
      const outside = await backupFolderRefusal(folder, deps.dataDir);
      if (outside !== null) throw new CofferError('backup_folder_unusable', `a backup file cannot be written into ${folder}: ${outside}`);
      const scratch = await mkdtemp(join(deps.dataDir, SCRATCH_PREFIX));
      try {
        const ledgerFile = join(scratch, 'ledger.db');
        // Made 0600 before SQLite writes into it (SQLite keeps a file's mode, and gives its journal the
        // same): what a kill leaves here until the next start (removeLeftoverScratch) is the user's
        // alone, in a 0700 folder (mkdtemp), as the ledger beside it is.
        await (await open(ledgerFile, 'wx', 0o600)).close();
        const { schemaVersion } = await snapshotLedger(deps.db, ledgerFile);
        const named = wallets();
        const { secrets, walletsWithoutKey } = await deps.vault.exportSecrets(named);
        // The file says itself which keys it lacks, for the Coffer restored from it.
        putMeta(ledgerFile, { [FILE_LACKS_KEYS_META]: JSON.stringify(walletsWithoutKey) });
        const input = {
          passphrase,
          facts: { network: deps.network, createdAt: new Date(at).toISOString() },
          manifest: { coffer: deps.version, schemaVersion, owners: named.treasuries, secrets },
          ledgerFile,
        };
        const walletCount = walletKeysIn(secrets);
        // Two backups within one second get the same name: the second takes the next number.
        for (let copy = 1; ; copy += 1) {
          const file = join(folder, backupFileName(deps.network, at, copy));
          try {
            const { bytes } = await sealBackup(file, input);
            return { file, bytes, wallets: walletCount, walletsWithoutKey };
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (code === 'EEXIST' && copy < 99) continue;
            if (code !== undefined && FOLDER_ERRORS.has(code)) {
              throw new CofferError('backup_folder_unusable', `a backup file cannot be written into ${folder} (${code})`, { cause: error });
            }
            throw error;
          }
        }
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },

    checkFolder: (folder) => writableFolderRefusal(folder, deps.dataDir),

    async remove(file) {
      if (!file.endsWith(BACKUP_EXTENSION)) throw new Error(`${file} is not a backup file`);
      await rm(file, { force: true });
    },
  };
}

/** Errors of the folder a backup is written into (as opposed to Coffer's own). */
const FOLDER_ERRORS = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/** `coffer-backup-devnet-2026-11-23-101500.coffer` (UTC), `…-2.coffer` for a second one that second. */
function backupFileName(network: string, at: number, copy = 1): string {
  const stamp = new Date(at)
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace('T', '-')
    .replaceAll(':', '');
  const name = network.replace(/[^a-z0-9-]+/gi, '-').toLowerCase();
  return `coffer-backup-${name}-${stamp}${copy > 1 ? `-${copy}` : ''}${BACKUP_EXTENSION}`;
}

/** Removes scratch copies a process that died while backing up left in the data dir (it is ours alone: see data-dir-lock). */
export async function removeLeftoverScratch(dataDir: string): Promise<void> {
  const names = await readdir(dataDir).catch(() => [] as string[]);
  await Promise.all(
    names.filter((name) => name.startsWith(SCRATCH_PREFIX)).map((name) => rm(join(dataDir, name), { recursive: true, force: true })),
  );
}
