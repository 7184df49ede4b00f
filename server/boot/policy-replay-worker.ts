/**
 * The thread where what-ifs replay a policy (started by policy-replays.ts): the core's own replay
 * (core/policy/replay.ts replayHistory) over the SQLite adapters of the two ports it reads, on a
 * read-only connection of its own to the ledger file. One replay at a time, as asked.
 *
 * Each replay reads inside one read transaction: the ledger is in WAL mode, so it reads one snapshot
 * (every page of payments and every registry lookup as they stood when it began) while payments
 * commit on the serving connection, neither waiting for the other. Read-only: nothing here can write
 * the ledger, whatever a request holds.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { openConnection } from '../store/sqlite-driver.js';
import { createTransferStore } from '../store/sqlite/transfers.js';
import { createRegistryStore } from '../store/sqlite/registry.js';
import { replayHistory, type ReplayStore } from '../core/policy/replay.js';
import type { PolicyReplayRequest } from '../core/ports/policy-replays.js';
import type { ToReplayWorker } from './policy-replays.js';

/**
 * A replay is CPU the serving thread may want at the same moment (a machine of two cores, the
 * agents' own processes beside Coffer): this thread runs below it, so where both want a core the
 * payments get it and the replay takes what is left (a nice 10 above theirs: about a tenth, never nothing).
 * On Linux a thread is a task of its own, named in /proc/thread-self; elsewhere a priority is the
 * whole process's, which this must not lower, so it is left as is. Best effort: a refused priority
 * leaves the replay as fast as before, and slows no payment more than it did.
 */
function yieldTheCpuToTheServingThread(): void {
  if (process.platform !== 'linux') return;
  try {
    const thread = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(thread) && thread !== process.pid) setPriority(thread, Math.min(19, getPriority(thread) + 10));
  } catch {
    // Left at the process's priority (see above).
  }
}

yieldTheCpuToTheServingThread();
const port = parentPort!;
const db = openConnection((workerData as { file: string }).file, { readonly: true, fileMustExist: true });
const { countedPayments } = createTransferStore(db);
const { getService } = createRegistryStore(db);
const store: ReplayStore = { countedPayments, getService };
const replayInOneSnapshot = db.transaction((request: PolicyReplayRequest) => replayHistory(store, request));

port.on('message', (message: ToReplayWorker) => {
  if (message.kind === 'close') {
    db.close();
    port.close();
    return;
  }
  try {
    port.postMessage({ kind: 'replayed', id: message.id, replay: replayInOneSnapshot(message.request) });
  } catch (error) {
    port.postMessage({ kind: 'failed', id: message.id, message: error instanceof Error ? error.message : String(error) });
  }
});
port.postMessage({ kind: 'ready' });
