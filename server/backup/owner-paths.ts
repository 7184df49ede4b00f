import { constants, existsSync } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { CofferError } from '../wire/errors.js';

/**
 * The one rule for a path the owner gives Coffer (a scheduled backup's folder, over HTTP or from the
 * CLI; the folder of `coffer backup --out`'s file; a restore's data dir): it may not lie in a Coffer
 * data dir. A backup there is lost with the computer, and worse, it writes beside the ledger and the
 * key files, where nothing of the owner's belongs; a data dir nested in another's is written over by
 * neither but read as part of both.
 *
 * Security invariant: judged on real paths, never on the words given. A symlink to the data dir,
 * `<symlink>/keys`, `/proc/self/root<data dir>` and `..` all resolve to where a write would land; a
 * path that does not exist yet is judged by its nearest existing parent, resolved, with the rest
 * after it. What counts as a data dir: one the caller names (the one this Coffer runs on), or any
 * folder holding a Coffer lock or ledger (every data dir Coffer opens has its `coffer.lock`). A
 * folder that holds a data dir (the home folder, for `coffer backup --out ~/x.coffer`) is fine: a
 * file written there touches nothing inside the data dir.
 *
 * It needs the file system, so it lives here beside the writer, not in the core (which may not touch
 * files, lint): the core asks through the BackupWriter port (checkFolder), and the writer judges
 * again at every write, since a folder may have become a link since it was checked.
 */

/** The files that make a folder a Coffer data dir (boot/data-dir-lock.ts, open-coffer.ts). */
const DATA_DIR_MARKERS = ['coffer.lock', 'coffer.db'];

/**
 * Where `path` really is: the real path of the path, or of its nearest existing parent with the rest
 * after it. `path` must be absolute; it is not normalized before it is resolved, so `<link>/..` is
 * the link's target's parent, as the system reads it.
 */
export async function realPathOf(path: string): Promise<string> {
  const rest: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    const found = await realpath(at).catch(() => null);
    if (found !== null) return join(found, ...rest);
    if (dirname(at) === at) return join(at, ...rest);
    rest.unshift(basename(at));
  }
}

const within = (path: string, folder: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

/**
 * The data dir `path` is, or lies inside, judged on real paths: one of `dataDirs`, or a folder at or
 * above it (only above it with `below`: a restore's own data dir may be one) that holds a Coffer lock
 * or ledger. Null when it lies in none. Answers the data dir's real path, and `path`'s.
 */
export async function dataDirHolding(
  path: string,
  options: { dataDirs?: readonly string[]; below?: boolean } = {},
): Promise<{ dataDir: string; real: string } | null> {
  if (!isAbsolute(path)) throw new Error(`${path} is not a whole path`);
  const real = await realPathOf(path);
  for (const dataDir of options.dataDirs ?? []) {
    const realDataDir = await realPathOf(dataDir);
    if (within(real, realDataDir)) return { dataDir: realDataDir, real };
  }
  for (let at = options.below === true ? dirname(real) : real; ; at = dirname(at)) {
    if (DATA_DIR_MARKERS.some((marker) => existsSync(join(at, marker))) && (options.below !== true || at !== real)) {
      return { dataDir: at, real };
    }
    if (dirname(at) === at) return null;
  }
}

/** How a refusal names where a path really lies, when that is not what the owner typed. */
const resolvedNote = (given: string, real: string) => (real === given ? '' : ` (it resolves to ${real})`);

/**
 * Why `folder` may not take backup files (a schedule's folder, `coffer backup --out`'s), or null: it
 * must be a whole path, in no data dir (`dataDir`, this Coffer's, or another's).
 */
export async function backupFolderRefusal(folder: string, dataDir: string): Promise<string | null> {
  if (!isAbsolute(folder)) return 'give the whole path of the folder (it starts with / or a drive letter)';
  const holding = await dataDirHolding(folder, { dataDirs: [dataDir] });
  if (holding === null) return null;
  return `it is inside Coffer's data dir ${holding.dataDir}${resolvedNote(folder, holding.real)}, which a lost computer loses with it`;
}

/**
 * Why backup files cannot be written into `folder` now, or null: the rule above, then a folder that
 * exists and this user can write. Judged by a schedule's writer at each file, and by `coffer backup
 * --out` and `coffer backup schedule` before they ask for a passphrase (the server records a file it
 * hands out as the last one written: one the CLI then fails to write would be shown as a backup).
 */
export async function writableFolderRefusal(folder: string, dataDir: string): Promise<string | null> {
  const refused = await backupFolderRefusal(folder, dataDir);
  if (refused !== null) return refused;
  const found = await stat(folder).catch(() => null);
  if (found === null) return 'no such folder';
  if (!found.isDirectory()) return 'it is not a folder';
  return access(folder, constants.W_OK).then(
    () => null,
    () => 'this user cannot write there',
  );
}

/**
 * Refuses a data dir to restore into (`data_dir_unusable`) that is not a folder, or that lies inside
 * another Coffer's data dir (its keys folder, say). Said before any passphrase or phrase is asked.
 */
export async function refuseRestoreTarget(dataDir: string): Promise<void> {
  const found = await stat(dataDir).catch(() => null);
  if (found !== null && !found.isDirectory()) {
    throw new CofferError('data_dir_unusable', `the data dir ${dataDir} is a file, not a folder: name a folder (--data-dir), new or empty`);
  }
  const holding = await dataDirHolding(resolve(dataDir), { below: true });
  if (holding !== null) {
    throw new CofferError(
      'data_dir_unusable',
      `the data dir ${dataDir} lies inside another Coffer's data dir, ${holding.dataDir}${resolvedNote(dataDir, holding.real)}: restore into a folder of its own (--data-dir)`,
    );
  }
}
