// The commands that write backups (files, a schedule, the recovery phrase) and restore from them.
import { defineCommand, UsageError } from '../command-line.js';
import { backupScheduleBodySchema } from '../../wire/schemas.js';

/**
 * --every (hours) or --keep (files), undefined where not given, judged by the schedule's own bounds (wire/schemas.ts) before the
 * passphrase is asked: a value the server would refuse is said first, not after it was typed twice.
 */
function countFlag(flag: '--every' | '--keep', value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bounds = backupScheduleBodySchema.shape[flag === '--every' ? 'everyHours' : 'keep'].unwrap();
  const what = flag === '--every' ? 'hours' : 'files';
  if (!/^\d{1,9}$/.test(value) || !bounds.safeParse(Number(value)).success)
    throw new UsageError(
      `${flag} takes a whole number of ${what} from ${bounds.minValue} to ${bounds.maxValue} (got "${value}")`,
      'backup',
    );
  return Number(value);
}

export const backup = defineCommand({
  name: 'backup',
  usage: `  coffer backup [--data-dir DIR] [--json]
                 where the backups stand, as the dashboard's Back up page: the recovery phrase
                 (written down or not), the last backup file, the schedule and its last failure
  coffer backup --out FILE [--data-dir DIR]
                 write an encrypted backup file (owner): the ledger and every wallet's key, under a
                 passphrase asked for here (or read from a pipe); it restores everything as it was
  coffer backup schedule --folder DIR [--every HOURS] [--keep N] [--data-dir DIR]
                 a backup file every HOURS (24) into DIR, the newest N (10) kept; the first is
                 written now; the passphrase is asked for once and kept in the key store
  coffer backup schedule --off [--data-dir DIR]
                 stop scheduled backups (the files stay)
  coffer backup phrase [--data-dir DIR]
                 show the treasury's recovery phrase and check three of its words (owner); it
                 restores the treasury and every agent wallet, also in Phantom or Solflare`,
  options: {
    'data-dir': { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean', default: false },
    folder: { type: 'string' },
    every: { type: 'string' },
    keep: { type: 'string' },
    off: { type: 'boolean', default: false },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const commands = await import('../commands/backup.js');
    const scheduleFlags = values.folder !== undefined || values.every !== undefined || values.keep !== undefined || values.off;
    if (positionals.length === 1 && positionals[0] === 'schedule' && values.out === undefined) {
      if (values.off && (values.folder ?? values.every ?? values.keep) !== undefined) {
        throw new UsageError('--off takes no --folder, --every or --keep', 'backup');
      }
      if (!values.off && values.folder === undefined)
        throw new UsageError('where should the backups go? --folder DIR (or --off)', 'backup');
      return commands.backupSchedule({
        dataDir: values['data-dir'],
        off: values.off ?? false,
        folder: values.folder,
        everyHours: countFlag('--every', values.every),
        keep: countFlag('--keep', values.keep),
      });
    }
    if (scheduleFlags) throw new UsageError('--folder, --every, --keep and --off belong to coffer backup schedule', 'backup');
    if (positionals.length === 1 && positionals[0] === 'phrase' && values.out === undefined) {
      return commands.backupPhrase({ dataDir: values['data-dir'] });
    }
    if (positionals.length === 0 && values.out !== undefined && !values.json)
      return commands.backupFile({ dataDir: values['data-dir'], out: values.out });
    if (positionals.length === 0 && values.out === undefined) {
      const { backupStatusCommand } = await import('../commands/backup-status.js');
      return backupStatusCommand({ dataDir: values['data-dir'], json: values.json });
    }
    throw new UsageError(
      'coffer backup takes --out FILE (an encrypted backup file), "schedule", "phrase" (the recovery phrase), or nothing (where the backups stand; --json)',
      'backup',
    );
  },
});

export const restore = defineCommand({
  name: 'restore',
  usage: `  coffer restore FILE [--data-dir DIR] [--network sim|devnet|mainnet|<rpc-url>]
                 restore a backup file into an empty data dir (asks its passphrase), then check
                 it against the chain; refuses a data dir in use, a damaged file, and a --network
                 other than the backup's (left out, the backup's own)
  coffer restore --phrase --network devnet|mainnet|<rpc-url> [--data-dir DIR]
                 restore the treasury and every agent wallet used on that chain from the recovery
                 phrase (asked for, not echoed) into an empty data dir; agents come back stopped`,
  options: { 'data-dir': { type: 'string' }, network: { type: 'string' }, phrase: { type: 'boolean', default: false } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [file, extra] = positionals;
    const commands = await import('../commands/restore.js');
    if (values.phrase) {
      if (file !== undefined) throw new UsageError(`coffer restore --phrase takes no file ("${file}"): the phrase is asked for`, 'restore');
      return commands.restorePhrase({ dataDir: values['data-dir'], network: values.network });
    }
    if (file === undefined)
      throw new UsageError('which backup file to restore? (or --phrase, to restore from the recovery phrase)', 'restore');
    if (extra !== undefined) throw new UsageError(`coffer restore takes one backup file, not also "${extra}"`, 'restore');
    return commands.restoreFile({ file, dataDir: values['data-dir'], network: values.network });
  },
});
