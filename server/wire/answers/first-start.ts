/** What a first start's /v1/first-start routes answer (server/http/first-start-app.ts): the setup page's. */

/** Where a first start stands (server/boot/first-start.ts), as the setup page sees it. */
export type FirstStartStatus = {
  /** The network Coffer was started for (null: none named; a new treasury is on sim). */
  network: string | null;
  dataDir: string;
  /** `waiting` until the owner chose; then what they chose, and Coffer starts. */
  state: 'waiting' | 'new' | 'restored';
  /** What was restored, in a line. */
  restored: string | null;
};

/** A backup file the first-start page sent, as its header describes it. */
export type BackupFileReceived = {
  network: string;
  createdAt: string;
  bytes: number;
};
