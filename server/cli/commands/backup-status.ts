/**
 * `coffer backup` alone: where the treasury's backups stand, as the dashboard's Back up page and its
 * "Not backed up" banner say it: the recovery phrase, the last backup file, the schedule and its last
 * failure, and what to run next.
 */
import type { BackupStatus } from '../../wire/answers/backup.js';
import { formatByteSize } from '../../wire/byte-size.js';
import { ownerClient } from '../owner-connection.js';
import { localTime } from '../local-time.js';
import { aligned } from '../columns.js';
import { printJson } from './print-json.js';
import { ownerCommandLine } from '../owner-command-line.js';
import { keylessWalletWords } from '../../wire/rail-words.js';

type Out = NodeJS.WritableStream;

export async function backupStatusCommand(args: { dataDir?: string; json?: boolean }, out: Out = process.stdout): Promise<number> {
  const status = await ownerClient(args.dataDir).api.backupStatus();
  if (args.json) return printJson(status, out);
  out.write(backupStatusText(status, args.dataDir));
  return 0;
}

/**
 * The status in lines: a heading that says whether the treasury is backed up, then a line for each
 * way, its next command typed as this shell runs it, with the `--data-dir` it was asked with.
 */
export function backupStatusText(status: BackupStatus, dataDir?: string): string {
  const { lastFile, schedule } = status;
  const command = (words: string[]) => ownerCommandLine(['backup', ...words], dataDir);
  const rows: string[][] = [
    ['recovery phrase', phraseWords(status, command(['phrase']))],
    [
      'last file',
      lastFile === null
        ? `none written here: ${command(['--out', 'FILE'])}`
        : `${localTime(lastFile.at)}, ${formatByteSize(lastFile.bytes)}, ${lastFile.wallets} wallet keys`,
    ],
    [
      'schedule',
      schedule === null
        ? `off: ${command(['schedule', '--folder', 'DIR'])}`
        : `every ${schedule.everyHours} h into ${schedule.folder}, the newest ${schedule.keep} kept; last ${localTime(schedule.lastAt)}, next ${localTime(schedule.nextAt)}`,
    ],
  ];
  const warnings = [
    ...(lastFile?.walletsWithoutKey ?? []).map(
      // Said of the file, which it stays true of: the key may be back in the key store by now (helper 200).
      (wallet) => `warning: the last backup file holds no key for ${keylessWalletWords(wallet)}: its money is not in that file`,
    ),
    ...(schedule?.lastError == null ? [] : [`The last scheduled backup failed: ${schedule.lastError}`]),
  ];
  return `${heading(status)}\n${aligned(rows, '  ')}${warnings.map((line) => `  ${line}\n`).join('')}`;
}

/**
 * Whether the treasury is backed up, in words that stay true: a backup file is a picture of its day
 * (a wallet made since is in none), so with one written the treasury is backed up in part, not lost
 * with the computer.
 */
function heading(status: BackupStatus): string {
  if (status.backedUp) return 'Backed up.';
  if (status.lastFile === null) return "NOT BACKED UP: if this computer is lost, so is every wallet's money.";
  // A wallet whose key the store no longer has is in no file (its own warning line names it).
  if (status.lastFile.walletsWithoutKey.length > 0)
    return 'NOT BACKED UP IN FULL: the last backup file lacks the key of a wallet named below.';
  return status.recoveryPhrase === 'none' || !status.phraseRestores
    ? 'NOT BACKED UP IN FULL: a wallet made since the last backup file is in none.'
    : 'NOT BACKED UP IN FULL: the last backup file holds the wallets of its day; the recovery phrase restores every one, once written down.';
}

/** The recovery phrase's state, and what to do where it is not written down. */
function phraseWords(status: BackupStatus, writeItDown: string): string {
  const onSim = status.phraseRestores ? '' : '; on sim it brings back no test money: a backup file does';
  if (status.recoveryPhrase === 'confirmed') return `written down (checked ${localTime(status.confirmedAt ?? '')})${onSim}`;
  if (status.recoveryPhrase === 'none') return 'none (a treasury made before recovery phrases): back it up with a file';
  return status.phraseRestores
    ? `not written down yet: ${writeItDown}`
    : 'not written down (on sim it brings back no test money: a backup file does)';
}
