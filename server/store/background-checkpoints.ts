import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './sqlite-driver.js';
import { SQLITE_MODULE } from './sqlite-driver.js';

/** When the background connection checkpoints, and how far the write-ahead log may grow. */
export interface CheckpointOptions {
  /** How often the log is copied into the database file (a PASSIVE checkpoint). */
  intervalMs: number;
  /** The log's size past which the worker restarts it (a RESTART checkpoint). */
  restartAboveBytes: number;
  /** How long without a commit before the log file is truncated to nothing (a TRUNCATE checkpoint). */
  idleMs: number;
  /**
   * How long a RESTART or TRUNCATE waits for the write lock, then for readers to leave the log. It
   * holds the write lock while it waits for readers, so it is kept short.
   */
  blockingWaitMs: number;
}

export const DEFAULT_CHECKPOINT_OPTIONS: CheckpointOptions = {
  intervalMs: 200,
  // About 150 payments of log. The file peaks at this plus what the payments of one tick add.
  restartAboveBytes: 16 * 1024 * 1024,
  idleMs: 1000,
  blockingWaitMs: 100,
};

/**
 * The worker's code: its own connection to the same file. CommonJS, since an eval worker is one.
 *
 * Every tick it checkpoints PASSIVE, which never waits for or blocks a writer and copies nearly the
 * whole log. That alone does not bound the log: SQLite writes the log from its beginning again only
 * when a writer begins after every frame was copied, and under sustained payments a commit always
 * lands while a PASSIVE checkpoint runs, so the log grew for as long as the load lasted (about 110 KB
 * of log a payment: gigabytes in minutes). So:
 * - past `restartAboveBytes`, two more PASSIVE checkpoints, each shorter than the one before, then a
 *   RESTART checkpoint: it takes the write lock, copies the few frames committed since, fsyncs, and
 *   waits for readers to leave the log, so the next commit writes the log from its start. Writers
 *   wait meanwhile (the serving connection's busy_timeout): a millisecond or three, once per 16 MB
 *   of log;
 * - after `idleMs` without a commit (data_version moves with other connections' commits), a
 *   TRUNCATE checkpoint: the same, and the file is cut to zero bytes, so an idle Coffer holds no log.
 * Neither is tried while a reader holds frames the PASSIVE one could not copy: SQLite cannot reuse
 * the log until that reader is done, whatever Coffer does.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.module);
const { intervalMs, restartAboveBytes, idleMs, blockingWaitMs } = workerData.options;
const CATCH_UP_ROUNDS = 2;
const db = new Database(workerData.file);
db.pragma('busy_timeout = ' + blockingWaitMs);
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const frameBytes = db.pragma('page_size', { simple: true }) + FRAME_HEADER_BYTES;
const walFileBytes = () => { try { return statSync(workerData.file + '-wal').size; } catch { return 0; } };
const commits = () => db.pragma('data_version', { simple: true });
const checkpoint = (mode) => db.pragma('wal_checkpoint(' + mode + ')')[0];

let seenCommits = commits();
let lastCommitAt = Date.now();
const tick = () => {
  try {
    const now = Date.now();
    const latest = commits();
    if (latest !== seenCommits) { seenCommits = latest; lastCommitAt = now; }
    const { log, checkpointed } = checkpoint('PASSIVE');
    // Frames left uncopied belong to a reader on an older snapshot (another process reading the
    // file): a RESTART or TRUNCATE would hold the write lock waiting for it, then give up. Later.
    if (checkpointed !== log) return;
    if (now - lastCommitAt >= idleMs) {
      if (walFileBytes() > 0) checkpoint('TRUNCATE');
    } else if (WAL_HEADER_BYTES + log * frameBytes > restartAboveBytes) {
      // Caught up first: the PASSIVE above ran for milliseconds while payments committed, and a RESTART
      // copies what they wrote while it holds writers off (4 to 8 ms for a tick's worth here; 1 to 3
      // once the few frames left are what one short PASSIVE leaves).
      for (let round = 0; round < CATCH_UP_ROUNDS; round++) checkpoint('PASSIVE');
      checkpoint('RESTART');
    }
  } catch {}
};
const timer = setInterval(tick, intervalMs);
parentPort.postMessage('ready');
parentPort.on('message', () => { clearInterval(timer); try { checkpoint('PASSIVE'); } catch {} db.close(); parentPort.close(); });
`;

export interface BackgroundCheckpoints {
  /** Stops the worker after a last checkpoint; the main connection checkpoints again as it closes. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the connection that serves requests. SQLite checkpoints on the
 * committing connection every 1,000 pages by default: one payment in a few dozen then copies pages
 * and fsyncs the database file before it can answer. Here the main connection never checkpoints and
 * a worker thread does, on its own connection, restarting the log past `restartAboveBytes` and
 * truncating it when idle. Where the worker cannot start (its native module does not load), the main
 * connection checkpoints as before, which keeps the log near 1,000 pages (see openDatabase).
 */
export function startBackgroundCheckpoints(db: SqliteDatabase, overrides: Partial<CheckpointOptions> = {}): BackgroundCheckpoints {
  const options = { ...DEFAULT_CHECKPOINT_OPTIONS, ...overrides };
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { module: SQLITE_MODULE, file: db.name, options },
  });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('message', () => {
    if (db.open) db.pragma('wal_autocheckpoint = 0');
  });
  worker.once('error', () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  });
  return {
    stop: async () => {
      if (db.open) db.pragma('wal_autocheckpoint = 1000');
      // Awaiting a promise keeps no process alive: the worker must, until it has closed.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
