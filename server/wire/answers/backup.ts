/** The /v1 answers about backups: where the owner stands, the recovery phrase shown, scheduled backup files. */

/** `none`: a treasury made before recovery phrases (its backup is the encrypted file); else whether it was written down. */
export type RecoveryPhraseState = 'none' | 'not_confirmed' | 'confirmed';

/** The last backup file written; `walletsWithoutKey`: wallets it could not hold the key of. */
export type BackupFileView = {
  at: string;
  bytes: number;
  wallets: number;
  walletsWithoutKey: string[];
};

/** Backup files written on a period into a folder, keeping the newest `keep`; `lastError`: why the last try failed. */
export type BackupScheduleView = {
  folder: string;
  everyHours: number;
  keep: number;
  lastAt: string;
  nextAt: string;
  lastError: string | null;
};

/** GET /v1/backup; `backedUp` is the one rule every door follows to say "not backed up". */
export type BackupStatus = {
  recoveryPhrase: RecoveryPhraseState;
  confirmedAt: string | null;
  lastFile: BackupFileView | null;
  schedule: BackupScheduleView | null;
  backedUp: boolean;
  /**
   * Whether the recovery phrase brings this treasury back (`coffer restore --phrase`, a wallet app):
   * false on sim, whose test money lives in the data dir, which only a backup file holds.
   */
  phraseRestores: boolean;
};

/** POST and DELETE /v1/backup/schedule: the schedule now (null: none). */
export type BackupScheduleSet = {
  schedule: BackupScheduleView | null;
};

/** POST /v1/backup/phrase: the recovery phrase, and the positions (1-based) of the words to type back. */
export type RecoveryPhrase = {
  words: string[];
  confirm: number[];
};
