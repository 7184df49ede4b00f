/**
 * EVM signatures off the thread that serves /v1. A payment on Base signs three times with secp256k1
 * in JavaScript (the payer's authorization, the relayer's transaction, the receipt's proof), about
 * 1 ms each here with their hashing: on the serving thread they held every other request behind them
 * (issue 49's bench row). Here an account's signing is posted to a worker (evm-signing-worker.ts),
 * which holds the keys it was handed and signs with the same viem accounts.
 *
 * One worker for an opened data dir (server/boot/open-coffer.ts), started at its first signature
 * and stopped when it closes; only a signature awaited keeps the process alive. Where the worker
 * cannot start or stops (its files do not load in this runtime), signatures are made on the serving
 * thread as before, said once in the log: slower, never wrong. A signature asked of a worker that was
 * lost is made again here (RFC 6979 nonces: the very same bytes). Elsewhere (a restore, the tests'
 * own vaults) accounts sign where they are asked: signingInProcess.
 *
 * Security invariant: a key goes only to this process's own worker, by message, never to a file.
 */
import { Worker } from 'node:worker_threads';
import type { Address, Hex, LocalAccount } from 'viem';
import { toAccount, type PrivateKeyAccount } from 'viem/accounts';
import { signWith, type FromSigningWorker, type SigningRequest, type ToSigningWorker } from './evm-signing-messages.js';

/**
 * The worker's entry sits beside this file in the compiled app (dist/app, the desktop app's archive).
 * From the sources (a checkout, the tests) it is TypeScript, which Node does not run: the what-if
 * worker's source-worker.mjs registers the sources' loader (tsx) in the worker, then imports it.
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_FILE = new URL(FROM_SOURCES ? '../boot/source-worker.mjs' : './evm-signing-worker.js', import.meta.url);
const SOURCE_ENTRY = FROM_SOURCES ? new URL('./evm-signing-worker.ts', import.meta.url).href : null;

export interface EvmSigningThread {
  /** `account` (made from `key`), signing on the worker. */
  account(account: PrivateKeyAccount, key: Hex): LocalAccount;
  /** Stops the worker; a signature still awaited is made on this thread. */
  close(): Promise<void>;
}

/** Accounts that sign on the thread that asks. */
export const signingInProcess: EvmSigningThread = { account: (account) => account, close: async () => undefined };

interface Job {
  account: PrivateKeyAccount;
  request: SigningRequest;
  resolve(signature: Hex): void;
  reject(error: Error): void;
}

function signHere({ account, request, resolve, reject }: Job): void {
  signWith(account, request).then(resolve, reject);
}

/** A signing thread on `workerFile` (the tests name one that cannot start), its fallback said in `log`. */
export function createEvmSigningThread(log: (message: string) => void, workerFile: URL = WORKER_FILE): EvmSigningThread {
  const keys = new Map<Address, Hex>();
  const waiting = new Map<number, Job>();
  let worker: Worker | null = null;
  let inProcess = false;
  let nextId = 0;

  const lost = (which: Worker, error: Error) => {
    if (worker !== which) return;
    worker = null;
    const said = inProcess;
    inProcess = true;
    if (!said) log(`EVM signatures are made on the serving thread: their worker stopped (${error.message})`);
    const jobs = [...waiting.values()];
    waiting.clear();
    for (const job of jobs) signHere(job);
  };

  const started = (): Worker => {
    if (worker !== null) return worker;
    const fresh = new Worker(workerFile, { workerData: { sourceEntry: SOURCE_ENTRY } });
    worker = fresh;
    fresh.on('message', (message: FromSigningWorker) => {
      const job = waiting.get(message.id);
      if (job === undefined) return;
      waiting.delete(message.id);
      if (waiting.size === 0) fresh.unref();
      if (message.kind === 'signed') job.resolve(message.signature);
      else job.reject(new Error(message.message));
    });
    fresh.on('error', (error) => lost(fresh, error));
    fresh.on('exit', (code) => lost(fresh, new Error(`it exited with code ${code}`)));
    // Listening refs a worker: unref'd after, and ref'd again only while a signature is awaited.
    fresh.unref();
    for (const key of keys.values()) fresh.postMessage({ kind: 'key', key } satisfies ToSigningWorker);
    return fresh;
  };

  const sign = (account: PrivateKeyAccount, request: SigningRequest): Promise<Hex> =>
    new Promise<Hex>((resolve, reject) => {
      const job = { account, request, resolve, reject };
      if (inProcess) return signHere(job);
      const id = nextId++;
      waiting.set(id, job);
      const signer = started();
      if (waiting.size === 1) signer.ref();
      signer.postMessage({ kind: 'sign', id, address: account.address, ...request } satisfies ToSigningWorker);
    });

  return {
    account(account, key) {
      if (!keys.has(account.address)) {
        keys.set(account.address, key);
        worker?.postMessage({ kind: 'key', key } satisfies ToSigningWorker);
      }
      return toAccount({
        address: account.address,
        signMessage: ({ message }) => sign(account, { op: 'signMessage', args: { message } }),
        signTypedData: (typedData) => sign(account, { op: 'signTypedData', args: typedData as TypedDataArgs }),
        signTransaction: (transaction) => sign(account, { op: 'signTransaction', args: transaction }),
      });
    },
    close: async () => {
      const stopping = worker;
      inProcess = true;
      if (stopping === null) return;
      await stopping.terminate();
    },
  };
}

type TypedDataArgs = Extract<SigningRequest, { op: 'signTypedData' }>['args'];
