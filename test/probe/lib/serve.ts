import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trackPid, untrackPid } from './cleanup.js';
import { Api } from './http.js';

export const CLI = fileURLToPath(new URL('../../../server/cli/bin.js', import.meta.url));

/** The environment of every child: file key store, sim chain, nothing inherited that would redirect it. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (key.startsWith('COFFER_')) continue;
    env[key] = value;
  }
  return { ...env, COFFER_KEYSTORE: 'file', ...extra };
}

export interface Child {
  child: ChildProcess;
  lines: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnChild(args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  trackPid(child.pid);
  const lines: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (stderr.length < 2000) stderr.push(line);
  });
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running = false;
      untrackPid(child.pid);
      resolve({ code, signal });
    }),
  );
  const kill = async () => {
    if (running) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    await exited;
  };
  return {
    child,
    lines,
    stderr,
    exited,
    alive: () => running,
    kill,
    stop: async (graceMs = 15_000) => {
      if (running) child.kill('SIGTERM');
      const timer = setTimeout(() => void kill(), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

async function waitForLine(child: Child, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of child.lines) {
      const match = pattern.exec(line);
      if (match) return match;
    }
    if (!child.alive()) throw new Error(`${what} exited before printing ${pattern}: ${child.stderr.slice(-10).join(' | ')}`);
    if (Date.now() > deadline) {
      await child.kill();
      throw new Error(`${what} did not print ${pattern} within ${timeoutMs} ms: ${child.stderr.slice(-10).join(' | ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface Serve extends Child {
  url: string;
  loginUrl: string;
  dataDir: string;
  owner: string;
  ownerKey: string;
  api: Api;
  /** ms from spawn to the "Connection file" line (listening, connection file written). */
  startMs: number;
}

/** `coffer serve --data-dir DIR --port 0 --network sim` as a child process; resolves once it listens. */
export async function startServe(dataDir: string, timeoutMs = 30_000): Promise<Serve> {
  const started = performance.now();
  const child = spawnChild(['serve', '--data-dir', dataDir, '--port', '0', '--network', 'sim'], childEnv());
  const url = (await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/, timeoutMs, 'coffer serve'))[1]!;
  const loginUrl = (await waitForLine(child, /(http:\/\/127\.0\.0\.1:\d+\/login\?token=\S+)/, timeoutMs, 'coffer serve'))[1]!;
  await waitForLine(child, /^Connection file:/, timeoutMs, 'coffer serve');
  const startMs = performance.now() - started;
  const connection = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { owner: string; ownerKey: string; url: string };
  if (connection.url !== url) throw new Error(`connection.json names ${connection.url}, serve printed ${url}`);
  return {
    ...child,
    url,
    loginUrl,
    dataDir,
    owner: connection.owner,
    ownerKey: connection.ownerKey,
    api: new Api(url, connection.owner, connection.ownerKey),
    startMs,
  };
}

/** The "Reconciled the moves of money ..." line of a restart, if it printed one. */
export function reconciledLine(serve: Serve): { confirmed: number; failed: number; stillPending: number } | null {
  const line = serve.lines.find((l) => l.startsWith('Reconciled the moves of money'));
  const match = line ? /(\d+) confirmed, (\d+) failed, (\d+) still pending/.exec(line) : null;
  return match ? { confirmed: Number(match[1]), failed: Number(match[2]), stillPending: Number(match[3]) } : null;
}

export interface DemoApi extends Child {
  url: string;
}

/** `coffer demo-api --data-dir DIR --port 0`: the paid demo API, verifying against that dir's server. */
export async function startDemoApi(dataDir: string, timeoutMs = 30_000): Promise<DemoApi> {
  const child = spawnChild(['demo-api', '--data-dir', dataDir, '--port', '0'], childEnv());
  const url = (await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/, timeoutMs, 'coffer demo-api'))[1]!;
  return { ...child, url };
}
