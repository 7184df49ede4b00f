import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './database.js';
import { SQLITE_MODULE, sqliteNativeBinding } from './sqlite-driver.js';

/** How often the background connection copies the write-ahead log into the database file. */
const INTERVAL_MS = 200;

/**
 * The worker's code: its own connection to the same file, checkpointing PASSIVE on a timer (it
 * never waits for or blocks a writer). CommonJS, since an eval worker is one.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 5000');
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.postMessage('ready');
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export interface BackgroundCheckpoints {
  /** Stops the worker after a last checkpoint; the main connection checkpoints again as it closes. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the connection that serves requests. SQLite checkpoints on the
 * committing connection every 1,000 pages by default: one payment in a few dozen then copies pages
 * and fsyncs the database file before it can answer. Here the main connection never checkpoints and
 * a worker thread does, on its own connection. Where the worker cannot start (its native module
 * does not load), the main connection checkpoints as before.
 */
export function startBackgroundCheckpoints(db: SqliteDatabase): BackgroundCheckpoints {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      module: SQLITE_MODULE,
      file: db.name,
      nativeBinding: sqliteNativeBinding() ?? null,
      intervalMs: INTERVAL_MS,
    },
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
