import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../server/cli/bin.js', import.meta.url));

/**
 * A `coffer` command run to its end as a terminal runs it (no browser opened, no linked agent config
 * unless `--config` or `env` names one, stdin a pipe when `input` is given); its exit code and both outputs.
 */
export function runCoffer(
  args: string[],
  env: Record<string, string> = {},
  /** What is piped into its stdin (then closed); none by default. */
  input?: string,
  /** Told all it wrote to stderr so far, each time it writes more (a test waiting on what it says). */
  onStderr?: (stderr: string) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, COFFER_NO_BROWSER: '1', COFFER_CONFIG: '', ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      onStderr?.(stderr);
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  loginUrl: string;
  lines: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `coffer serve` as a child process on an ephemeral port and waits for its first two lines. */
export async function spawnServe(
  dataDir: string,
  extraEnv: Record<string, string> = {},
  command: 'serve' | 'start' = 'serve',
  /** The CLI entry: the sources (through tsx) by default, or the compiled one. */
  cli = CLI,
): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, COFFER_KEYSTORE: 'file', ...extraEnv };
  for (const [key, value] of Object.entries(extraEnv)) if (value === '') delete env[key];
  // COFFER_PORT in extraEnv picks the port (a restart on the same address); an ephemeral one otherwise.
  // BENCH_CPU_PROF=<dir>: each serve writes a V8 CPU profile there as it exits (docs/BENCH.md).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, cli, command, '--data-dir', dataDir, '--port', extraEnv.COFFER_PORT ?? '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr.join('\n')}`)), 30_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 2) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${stderr.join('\n')}`));
    });
  });
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(lines[0] ?? '')?.[1];
  const loginUrl = /(http:\/\/\S+\/login\?token=\S+)/.exec(lines[1] ?? '')?.[1];
  if (!url || !loginUrl) throw new Error(`unexpected first lines: ${lines.join(' | ')}`);
  return { child, url, loginUrl, lines, stderr, exited };
}

/** A response body as JSON, untyped: tests assert its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = async (response: Response | Promise<Response>): Promise<any> => (await response).json();

/** `coffer demo-api` beside a data dir's Coffer, on an ephemeral port: the process, its first line, its URL. */
export async function spawnDemoApi(dataDir: string): Promise<{ child: ChildProcess; firstLine: string; url: string }> {
  const child = spawn(process.execPath, [CLI, 'demo-api', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`demo-api exited with ${code}`)));
  });
  return { child, firstLine, url: /(http:\/\/127\.0\.0\.1:\d+)/.exec(firstLine)?.[1] ?? '' };
}

/** An owner's POST to a running `coffer serve` (its connection file's owner and key), its answer's body. */
export const ownerPost = (serve: { url: string }, owner: { owner: string; ownerKey: string }, path: string, body: unknown) =>
  json(
    fetch(`${serve.url}${path}?owner=${owner.owner}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );

/** `coffer link --url URL --config FILE` running as a terminal runs it: what it printed so far, its exit, a wait for a line. */
export function linkInBackground(url: string, configFile: string) {
  const child = spawn(process.execPath, [CLI, 'link', '--url', url, '--config', configFile], {
    env: { ...process.env, COFFER_NO_BROWSER: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  /** Waits (10 s at most) until what it printed matches. */
  const until = async (pattern: RegExp) => {
    for (let i = 0; i < 200 && !pattern.test(output); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    return pattern.exec(output);
  };
  return { child, exited, until, output: () => output };
}
