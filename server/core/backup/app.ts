/**
 * Backups: money that outlives this computer. Read this first. status.ts (where the owner stands; the
 * recovery phrase shown and confirmed), files.ts (an encrypted backup file: which wallets it must
 * hold), schedule.ts (backup files on a period into a folder) and phrase-recovery.ts (a treasury and
 * its agent wallets recorded from the recovery phrase).
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { BackupFileBody, BackupScheduleBody, PhraseConfirmBody } from '../../wire/schemas.js';
import { backupStatus, confirmRecoveryPhrase, revealRecoveryPhrase } from './status.js';
import { writeBackupFile } from './files.js';
import { clearBackupSchedule, runDueBackups, setBackupSchedule } from './schedule.js';
import { recoverTreasury } from './phrase-recovery.js';

export const backupApp = (ctx: EngineContext) => ({
  backupStatus: (p: Principal) => backupStatus(ctx, p),
  revealRecoveryPhrase: (p: Principal) => revealRecoveryPhrase(ctx, p),
  confirmRecoveryPhrase: (p: Principal, body: PhraseConfirmBody) => confirmRecoveryPhrase(ctx, p, body),
  /** Writes a backup file into `folder` (the door's own, from which it hands the file over). */
  writeBackupFile: (p: Principal, body: BackupFileBody, folder: string) => writeBackupFile(ctx, p, body, folder),
  setBackupSchedule: (p: Principal, body: BackupScheduleBody) => setBackupSchedule(ctx, p, body),
  clearBackupSchedule: (p: Principal) => clearBackupSchedule(ctx, p),
  /** Writes the scheduled backups that are due (a timer of the opened data dir calls it). */
  runDueBackups: () => runDueBackups(ctx),
  /** An empty ledger's treasury brought back from its recovery phrase, with the agent wallets found in use. */
  recoverTreasury: (recover: { phrase: string; agents: number[] }) => recoverTreasury(ctx, recover),
});
