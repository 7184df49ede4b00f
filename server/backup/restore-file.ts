import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CofferError } from '../wire/errors.js';
import { createKeyVault } from '../keys/key-vault.js';
import { openSecretBackend, type KeyStorePreference } from '../keys/open-secret-backend.js';
import {
  inspectLedger,
  KNOWN_SCHEMA_VERSION,
  ledgerAtAGlance,
  ledgerState,
  putMeta,
  takeMeta,
  walletsOfLedger,
  heldPaymentsOf,
} from '../store/ledger-snapshot.js';
import { FILE_LACKS_KEYS_META, lackedKeysOf, restoredFromFile } from '../core/backup/files.js';
import { restoredScheduleKeys, scheduleFoldersOf } from '../core/backup/schedule.js';
import { LOCK_FILE, lockDataDir } from '../boot/data-dir-lock.js';
import { openBackup, walletKeysIn } from './backup-file.js';
import { refuseRestoreTarget } from './owner-paths.js';
import { walletsWithoutKeyIn, type WalletWithoutKey } from './lacked-keys.js';
import { readBackupHeader, type BackupFacts } from './backup-header.js';

/** The ledger's name in a data dir (open-coffer.ts opens it). */
const LEDGER = 'coffer.db';

/**
 * Refuses a data dir that is no folder or lies inside another data dir (owner-paths.ts), and one that
 * a Coffer runs on or that already holds a treasury: a restore never replaces money's record. A
 * ledger with no treasury yet (a first start or an earlier restore cut short) is removed. Answers the
 * data dir's lock, held until the restore is done: `release` once it is, `abandon` where it was
 * refused, which also takes away what the claim made (the folders, the lock file), so a refusal
 * leaves the path as it found it.
 */
export async function claimEmptyDataDir(dataDir: string): Promise<DataDirClaim> {
  await refuseRestoreTarget(dataDir);
  // The first folder this made (the data dir, or a parent of it), if any.
  const madeFrom = mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockFile = join(dataDir, LOCK_FILE);
  const madeLock = !existsSync(lockFile);
  let lock: { release(): void };
  try {
    lock = lockDataDir(dataDir);
  } catch (error) {
    // Another Coffer holds it: nothing here is this claim's to remove.
    throw new CofferError('data_dir_in_use', (error as Error).message, { cause: error });
  }
  const claim = {
    release: () => lock.release(),
    abandon: () => {
      // The lock file goes while it is still held (a Coffer opening the path meanwhile makes a new
      // one, its own): where the platform refuses to remove a file in use (Windows), just after.
      if (madeLock && !removed(lockFile)) {
        lock.release();
        removed(lockFile);
      } else lock.release();
      removeEmptyFolders(dataDir, madeFrom);
    },
  };
  const ledger = join(dataDir, LEDGER);
  const state = ledgerState(ledger);
  if (state === 'treasury') {
    claim.abandon();
    throw new CofferError(
      'data_dir_in_use',
      `the data dir ${dataDir} already holds a treasury: a restore never replaces one. Restore into a new data dir (--data-dir), or move this one away first`,
    );
  }
  if (state === 'empty') for (const suffix of ['', '-wal', '-shm']) rmSync(`${ledger}${suffix}`, { force: true });
  return claim;
}

/** A data dir claimed for a restore (claimEmptyDataDir). */
export interface DataDirClaim {
  /** The restore is done: the lock goes, what it wrote stays. */
  release(): void;
  /** The restore was refused: the lock goes, and the folder and lock file the claim made. */
  abandon(): void;
}

/** A backup of `network` may be restored where `asked` was named (null: none was, any will do). */
export function refuseOtherNetwork(network: string, asked: string | null): void {
  if (asked === null || asked === network) return;
  throw new CofferError(
    'backup_wrong_network',
    `this backup holds a ${network} treasury, not a ${asked} one: restore it on ${network === 'sim' ? 'sim' : `${network} (its RPC URL for a localnet or custom cluster)`}`,
  );
}

/**
 * `coffer restore FILE`: the ledger and every key exactly as the backup holds them, into an empty data
 * dir. Checked in this order, each refusal changing nothing: the file is a Coffer backup (its header),
 * of the network asked for, the data dir a folder of its own, free and empty, then (only then asked
 * for) the passphrase is the file's, the file
 * is whole (it authenticates), its ledger passes SQLite's integrity check and is of the same
 * network and treasuries. Then the keys are filed (checked, see importSecrets), and only then does
 * the ledger take its name, so a restore cut short can simply be run again. What moved on the chain
 * since the backup is reconciled at the first start, as at any start. A backup schedule the ledger
 * carries is left behind, its folder answered (`schedulesLeft`) for the owner to be told: its
 * passphrase is not in the file, and the files it rotates are the other Coffer's, never this one's to
 * remove.
 */
export async function restoreBackupFile(options: {
  file: string;
  dataDir: string;
  /** The network's name the owner asked for, if any: the backup's must be the same. */
  network: string | null;
  keyStore: KeyStorePreference;
  /** Asked once the file is known to be a backup of the right network. */
  passphrase: (facts: BackupFacts) => Promise<string | null>;
  log: (message: string) => void;
}): Promise<
  | (BackupFacts & { owners: string[]; schedulesLeft: string[]; walletsWithoutKey: WalletWithoutKey[] } & ReturnType<
        typeof ledgerAtAGlance
      >)
  | null
> {
  const { header } = await readBackupHeader(options.file);
  refuseOtherNetwork(header.network, options.network);
  const lock = await claimEmptyDataDir(options.dataDir);
  const restoring = join(options.dataDir, `${LEDGER}.restoring`);
  let restored = false;
  try {
    const passphrase = await options.passphrase(header);
    if (passphrase === null) return null;
    await rm(restoring, { force: true });
    const { manifest } = await openBackup(options.file, passphrase, restoring);
    const ledger = inspectLedger(restoring);
    if (ledger === null) throw new CofferError('backup_damaged', `the ledger in ${options.file} does not pass SQLite's integrity check`);
    if (ledger.schemaVersion > KNOWN_SCHEMA_VERSION) {
      throw new CofferError(
        'backup_unreadable',
        `${options.file} was made by a newer Coffer (ledger schema ${ledger.schemaVersion}; this one knows ${KNOWN_SCHEMA_VERSION}): update Coffer to restore it`,
      );
    }
    if (ledger.network !== header.network || ledger.owners.some((owner) => !manifest.owners.includes(owner))) {
      throw new CofferError('backup_damaged', `the ledger in ${options.file} is not the one its header describes`);
    }
    const schedulesLeft = scheduleFoldersOf(takeMeta(restoring, restoredScheduleKeys(ledger.owners)));
    // The file is this ledger's last backup file, with the wallets whose key it lacked (helper 197: a
    // file written without a wallet's key, restored, said "Backed up.").
    const wallets = walletKeysIn(manifest.secrets);
    const bytes = (await stat(options.file)).size;
    const walletsWithoutKey = walletsWithoutKeyIn({
      ledger: walletsOfLedger(restoring),
      writerSaid: lackedKeysOf(takeMeta(restoring, [FILE_LACKS_KEYS_META])[0]),
      secrets: manifest.secrets,
    });
    const lastFile = {
      at: Date.parse(header.createdAt),
      bytes,
      wallets,
      walletsWithoutKey: walletsWithoutKey.map((wallet) => wallet.address),
    };
    // The payments held in the file: the Coffer that wrote it may have paid them since (payments/paid-before-restore.ts).
    putMeta(restoring, restoredFromFile(ledger.owners, lastFile, heldPaymentsOf(restoring)));
    const backend = await openSecretBackend(options.dataDir, options.keyStore, options.log);
    await createKeyVault(backend).importSecrets(manifest.secrets);
    const atAGlance = ledgerAtAGlance(restoring);
    await rename(restoring, join(options.dataDir, LEDGER));
    restored = true;
    return { network: header.network, createdAt: header.createdAt, owners: ledger.owners, schedulesLeft, walletsWithoutKey, ...atAGlance };
  } finally {
    // The copy and the files SQLite kept beside it while checking it.
    await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${restoring}${suffix}`, { force: true })));
    if (restored) lock.release();
    else lock.abandon();
  }
}

/** What a restore says of the backup schedules it left behind (restoreBackupFile's `schedulesLeft`); null for none. */
export function schedulesLeftWords(folders: string[]): string | null {
  if (folders.length === 0) return null;
  return `The backup schedule into ${folders.join(' and ')} was not restored (its passphrase is not in the file, and the files there are the other Coffer's, never this one's to remove): set one again to back this Coffer up on a schedule.`;
}

/** Removes a file; false where it could not be (in use, on Windows). */
function removed(file: string): boolean {
  try {
    rmSync(file, { force: true });
    return true;
  } catch {
    return false;
  }
}

/** The folders a claim made, from the data dir up to the first one made, each only while it is empty. */
function removeEmptyFolders(dataDir: string, madeFrom: string | undefined): void {
  if (madeFrom === undefined) return;
  for (let folder = resolve(dataDir); ; folder = dirname(folder)) {
    if (readdirSync(folder).length > 0) return;
    rmdirSync(folder);
    if (folder === resolve(madeFrom) || dirname(folder) === folder) return;
  }
}
