/**
 * The PolicyReplays port for a ledger file: what-ifs replayed on a worker thread
 * (policy-replay-worker.ts, its own read-only connection), never on the thread that serves /v1. An
 * agent's what-if replayed there held every agent's payments behind it (issue 47: four at a time cut
 * /pay from 474/s to 94/s); here the serving thread only posts the request and awaits the answer.
 *
 * One worker, one replay at a time (a replay is CPU; more at once would take the cores the serving
 * thread needs), started when the first what-if is asked and kept until the Coffer closes. The
 * owner's replays wait ahead of every agent's: behind the one running at most. Where the worker
 * cannot start (its native module or its files do not load in this runtime), replays run on the
 * serving thread as they did before it, said once in the log: slower for payments, never wrong.
 */
import { Worker } from 'node:worker_threads';
import { replaysInProcess, type ReplayStore } from '../core/policy/replay.js';
import type { PolicyReplay, PolicyReplayRequest, PolicyReplays, ReplayAsker } from '../core/ports/policy-replays.js';

/** What the serving thread tells the worker. */
export type ToReplayWorker = { kind: 'replay'; id: number; request: PolicyReplayRequest } | { kind: 'close' };
/** What the worker answers. */
type FromReplayWorker =
  { kind: 'ready' } | { kind: 'replayed'; id: number; replay: PolicyReplay } | { kind: 'failed'; id: number; message: string };

interface Job {
  request: PolicyReplayRequest;
  asker: ReplayAsker;
  resolve(replay: PolicyReplay): void;
  reject(error: Error): void;
}

/** The port, and its end: the worker stopped once its replay in progress is done. */
export interface PolicyReplayThread extends PolicyReplays {
  close(): Promise<void>;
}

/**
 * The worker's entry sits beside this file: dist/app/server/boot/*.js in the compiled app and the
 * desktop app's archive, started as it is. From the sources (a checkout, the tests) the entry is
 * TypeScript, which Node does not run: source-worker.mjs registers the loader that runs the sources
 * (tsx) in the worker, then imports it.
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_FILE = new URL(FROM_SOURCES ? './source-worker.mjs' : './policy-replay-worker.js', import.meta.url);
const SOURCE_ENTRY = FROM_SOURCES ? new URL('./policy-replay-worker.ts', import.meta.url).href : null;

/**
 * Replays on a worker reading `file` (the ledger's SQLite file); `store`, the serving connection's,
 * only where the worker cannot start.
 */
export function startPolicyReplays(file: string, store: ReplayStore, log: (message: string) => void): PolicyReplayThread {
  const waiting: Record<ReplayAsker, Job[]> = { owner: [], agent: [] };
  let worker: Worker | null = null;
  let ready = false;
  let running: (Job & { id: number }) | null = null;
  let nextId = 0;
  let inProcess: PolicyReplays | null = null;
  let closed = false;

  const takeWaiting = (): Job[] => [...waiting.owner.splice(0), ...waiting.agent.splice(0)];

  const next = () => {
    if (worker === null || !ready || running !== null) return;
    const job = waiting.owner.shift() ?? waiting.agent.shift();
    if (job === undefined) return;
    running = { ...job, id: nextId++ };
    worker.postMessage({ kind: 'replay', id: running.id, request: job.request } satisfies ToReplayWorker);
  };

  const answered = (message: FromReplayWorker) => {
    if (message.kind === 'ready') {
      ready = true;
      next();
      return;
    }
    const job = running;
    if (job === null || job.id !== message.id) return;
    running = null;
    if (message.kind === 'replayed') job.resolve(message.replay);
    else job.reject(new Error(message.message));
    next();
  };

  /** The worker ended (an error, an exit) other than by close(). */
  const lost = (which: Worker, error: Error) => {
    if (worker !== which) return;
    const started = ready;
    const job = running;
    worker = null;
    ready = false;
    running = null;
    job?.reject(error);
    if (closed) {
      for (const each of takeWaiting()) each.reject(new Error('Coffer is closing'));
      return;
    }
    if (!started) {
      log(`what-ifs replay on the serving thread: their worker could not start (${error.message})`);
      inProcess = replaysInProcess(store);
      for (const each of takeWaiting()) inProcess.replay(each.request, each.asker).then(each.resolve, each.reject);
      return;
    }
    log(`the what-if worker stopped (${error.message}): a new one starts for the next what-if`);
    if (waiting.owner.length + waiting.agent.length > 0) start();
  };

  const start = () => {
    const started = new Worker(WORKER_FILE, { workerData: { file, sourceEntry: SOURCE_ENTRY } });
    // It never keeps the process alive by itself: the server does while it serves.
    started.unref();
    worker = started;
    started.on('message', answered);
    started.on('error', (error) => lost(started, error));
    started.on('exit', (code) => lost(started, new Error(`the what-if worker exited with code ${code}`)));
  };

  return {
    replay: (request, asker) => {
      if (closed) return Promise.reject(new Error('Coffer is closing'));
      if (inProcess !== null) return inProcess.replay(request, asker);
      return new Promise<PolicyReplay>((resolve, reject) => {
        waiting[asker].push({ request, asker, resolve, reject });
        if (worker === null) start();
        else next();
      });
    },
    close: async () => {
      closed = true;
      for (const each of takeWaiting()) each.reject(new Error('Coffer is closing'));
      const stopping = worker;
      if (stopping === null) return;
      const exited = new Promise<void>((resolve) => stopping.once('exit', () => resolve()));
      // Awaiting a promise keeps no process alive: the worker must, until it has closed its connection.
      stopping.ref();
      stopping.postMessage({ kind: 'close' } satisfies ToReplayWorker);
      await exited;
    },
  };
}
