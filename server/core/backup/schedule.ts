import { actorOf, FRESH_FOR, requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { audit, type ContextWith, type EngineContext, type EngineState } from '../context.js';
import { CofferError } from '../../wire/errors.js';
import { recordBackupFile, walletsToBackUp } from './files.js';
import type { MetaStore } from '../ports/store.js';
import type { BackupScheduleBody } from '../../wire/schemas.js';
import { iso } from '../../wire/views.js';
import type { BackupScheduleSet, BackupScheduleView } from '../../wire/answers/backup.js';

const HOUR_MS = 60 * 60 * 1000;

/** The owner's schedule (JSON of BackupSchedule) in the ledger; its passphrase in the key store. */
const scheduleMeta = (owner: string) => `backup.schedule:${owner}`;
const passphraseSecret = (owner: string) => `backup-passphrase:${owner}`;

interface BackupSchedule {
  folder: string;
  everyHours: number;
  keep: number;
  /** The files this schedule wrote that are still kept, oldest first: the only ones it ever removes. */
  files: string[];
  /** The last file written, and the last try (which may have failed, with why). */
  lastAt: number;
  triedAt: number;
  lastError: string | null;
}

/**
 * A backup's ledger restored elsewhere: the meta keys its owners' schedules are kept under, to be
 * left behind (their passphrase is not in the file, and the files they rotate are the other
 * Coffer's), and the folder a stored one wrote into, for the restore to say.
 */
export const restoredScheduleKeys = (owners: string[]) => owners.map(scheduleMeta);
/** The folders of schedules stored under those keys; one turned off is stored empty (clearBackupSchedule): none. */
export const scheduleFoldersOf = (stored: string[]): string[] =>
  stored.filter((value) => value !== '').map((value) => (JSON.parse(value) as BackupSchedule).folder);

const readSchedule = (ctx: ContextWith<MetaStore>, owner: string): BackupSchedule | null => {
  const stored = ctx.store.getMeta(scheduleMeta(owner));
  return stored === null || stored === '' ? null : (JSON.parse(stored) as BackupSchedule);
};

/** When the next scheduled file is due: a period after the last one, or an hour after a failed try (a period is an hour or more). */
const nextAt = (schedule: BackupSchedule) =>
  schedule.lastError === null ? schedule.lastAt + schedule.everyHours * HOUR_MS : schedule.triedAt + HOUR_MS;

/** The schedule as GET /v1/backup shows it; null when none is set. */
export function scheduleView(ctx: ContextWith<MetaStore>, owner: string): BackupScheduleView | null {
  const schedule = readSchedule(ctx, owner);
  if (schedule === null) return null;
  return {
    folder: schedule.folder,
    everyHours: schedule.everyHours,
    keep: schedule.keep,
    lastAt: iso(schedule.lastAt),
    nextAt: iso(nextAt(schedule)),
    lastError: schedule.lastError,
  };
}

/**
 * Scheduled backups into a folder the owner picks: the first file is written at once, so a folder
 * that cannot be written or any other failure is said now and nothing is saved. The passphrase is
 * kept in the key store beside the keys the files carry (it guards nothing those do not already
 * give), never in the ledger. Owner, fresh sign-in: as for a backup file.
 */
export async function setBackupSchedule(
  ctx: EngineContext,
  principal: Principal,
  body: BackupScheduleBody,
): Promise<BackupScheduleView | null> {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.backup);
  const { owner } = principal;
  const unusable = await ctx.backups.checkFolder(body.folder);
  if (unusable !== null) throw new CofferError('backup_folder_unusable', `backups cannot go to ${body.folder}: ${unusable}`);
  const now = ctx.clock.now();
  const written = await ctx.backups.write({
    folder: body.folder,
    passphrase: body.passphrase,
    at: now,
    wallets: () => walletsToBackUp(ctx),
  });
  await ctx.vault.setSecret(passphraseSecret(owner), body.passphrase);
  const previous = readSchedule(ctx, owner);
  // Files an earlier schedule wrote to the same folder stay in its rotation; another folder's are left alone.
  const files = [...(previous?.folder === body.folder ? previous.files : []), written.file];
  const schedule: BackupSchedule = {
    folder: body.folder,
    everyHours: body.everyHours,
    keep: body.keep,
    files,
    lastAt: now,
    triedAt: now,
    lastError: null,
  };
  await keepNewest(ctx, schedule);
  ctx.store.transaction(() => {
    ctx.store.setMeta(scheduleMeta(owner), JSON.stringify(schedule));
    audit(ctx, {
      actor: actorOf(principal),
      owner,
      action: 'backup.schedule_set',
      detail: { folder: body.folder, everyHours: body.everyHours, keep: body.keep },
    });
  });
  recordBackupFile(ctx, owner, written, actorOf(principal));
  return scheduleView(ctx, owner);
}

/** Stops scheduled backups and forgets their passphrase; the files written stay where they are. */
export async function clearBackupSchedule(ctx: EngineContext, principal: Principal): Promise<BackupScheduleSet> {
  requireOwner(principal);
  const { owner } = principal;
  if (readSchedule(ctx, owner) === null) return { schedule: null };
  ctx.store.transaction(() => {
    ctx.store.setMeta(scheduleMeta(owner), '');
    audit(ctx, { actor: actorOf(principal), owner, action: 'backup.schedule_cleared' });
  });
  await ctx.vault.deleteSecret(passphraseSecret(owner));
  return { schedule: null };
}

/** Each engine's last run of the scheduled backups: the next one starts only after it. */
const runs = new WeakMap<EngineState, Promise<unknown>>();

/**
 * Writes the scheduled backups that are due (a timer calls this; see boot). A failure is kept on the
 * schedule (the status shows it), announced on the event stream and tried again within the hour;
 * it never throws. One run at a time: a call while one is under way (the minute timer beside another
 * caller) runs after it, and finds the file it wrote no longer due, so a due file is written once
 * (two would both be written, and the second fall out of the rotation, never removed).
 */
export function runDueBackups(ctx: EngineContext): Promise<{ written: number; failed: number }> {
  const before = runs.get(ctx.state) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => writeDueBackups(ctx));
  runs.set(ctx.state, run);
  return run;
}

async function writeDueBackups(ctx: EngineContext): Promise<{ written: number; failed: number }> {
  let written = 0;
  let failed = 0;
  for (const { address: owner } of ctx.store.listOwners()) {
    const schedule = readSchedule(ctx, owner);
    const now = ctx.clock.now();
    if (schedule === null || now < nextAt(schedule)) continue;
    try {
      const passphrase = await ctx.vault.getSecret(passphraseSecret(owner));
      if (passphrase === null) throw new Error('its passphrase is no longer in the key store: set the schedule again');
      const file = await ctx.backups.write({ folder: schedule.folder, passphrase, at: now, wallets: () => walletsToBackUp(ctx) });
      const next = { ...schedule, files: [...schedule.files, file.file], lastAt: now, triedAt: now, lastError: null };
      await keepNewest(ctx, next);
      saveSchedule(ctx, owner, schedule, next);
      recordBackupFile(ctx, owner, file, 'schedule');
      written += 1;
    } catch (error) {
      const reason = (error as Error).message;
      saveSchedule(ctx, owner, schedule, { ...schedule, triedAt: now, lastError: reason });
      audit(ctx, { actor: 'schedule', owner, action: 'backup.scheduled_failed', detail: { reason } });
      ctx.events.emit({ type: 'backup', owner, file: 'failed', error: reason });
      failed += 1;
    }
  }
  return { written, failed };
}

/** Saves a schedule's progress, unless the owner changed or cleared it meanwhile. */
function saveSchedule(ctx: EngineContext, owner: string, was: BackupSchedule, next: BackupSchedule): void {
  ctx.store.transaction(() => {
    if (ctx.store.getMeta(scheduleMeta(owner)) === JSON.stringify(was)) ctx.store.setMeta(scheduleMeta(owner), JSON.stringify(next));
  });
}

/**
 * Removes the schedule's oldest files beyond `keep` (only files it wrote itself). One that cannot be
 * removed now stays on the list, to be tried again after the next file; it never fails the backup.
 */
async function keepNewest(ctx: EngineContext, schedule: BackupSchedule): Promise<void> {
  const extra = schedule.files.length - schedule.keep;
  if (extra <= 0) return;
  const kept: string[] = [];
  for (const file of schedule.files.slice(0, extra)) {
    if (
      !(await ctx.backups.remove(file).then(
        () => true,
        () => false,
      ))
    )
      kept.push(file);
  }
  schedule.files = [...kept, ...schedule.files.slice(extra)];
}
