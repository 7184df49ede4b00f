/** The wallets and treasuries whose keys a backup must hold (see walletsToBackUp). */
export interface WalletsToBackUp {
  wallets: string[];
  treasuries: string[];
}

/** A backup file written. */
export interface BackupWritten {
  file: string;
  bytes: number;
  /** How many wallets' keys it holds. */
  wallets: number;
  /** Wallets the ledger names whose key this key store no longer has: their money is not in the backup. */
  walletsWithoutKey: string[];
}

/**
 * Port: the encrypted backup files of this data dir (server/backup): the ledger as of one moment and
 * the keys of its wallets, encrypted under the owner's passphrase.
 */
export interface BackupWriter {
  /**
   * Writes a new backup file into `folder`, named by `at`, and answers it. `wallets` is asked once the
   * ledger is copied, so every wallet the copy names has its key in the file.
   */
  write(input: { folder: string; passphrase: string; at: number; wallets: () => WalletsToBackUp }): Promise<BackupWritten>;
  /** Whether `folder` is a usable place for backups: null when it is, else why not (in words). */
  checkFolder(folder: string): Promise<string | null>;
  /** Removes a backup file this Coffer wrote (the schedule's older ones); one already gone is no error. */
  remove(file: string): Promise<void>;
}
