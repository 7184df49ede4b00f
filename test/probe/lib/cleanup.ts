import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Everything a probe run leaves behind, so it can be removed however the run ends: child processes
 * (killed by their own pid, never by name) and temp data dirs under os.tmpdir().
 */
const pids = new Set<number>();
const dirs = new Set<string>();
let keepDirs = false;

export function trackPid(pid: number | undefined | null): void {
  if (typeof pid === 'number' && pid > 0) pids.add(pid);
}

export function untrackPid(pid: number | undefined | null): void {
  if (typeof pid === 'number') pids.delete(pid);
}

export function livePids(): number[] {
  return [...pids];
}

/** A fresh temp dir, removed at the end of the run (or by `removeDir`). */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `coffer-probe-${label}-`));
  dirs.add(dir);
  return dir;
}

export function removeDir(dir: string): void {
  dirs.delete(dir);
  if (!keepDirs) rmSync(dir, { recursive: true, force: true });
}

export function keepTempDirs(keep: boolean): void {
  keepDirs = keep;
}

/** SIGKILLs every child still tracked (by pid), then removes the temp dirs. Synchronous: safe in 'exit'. */
export function cleanupAll(): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  pids.clear();
  if (!keepDirs) {
    for (const dir of dirs) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort
      }
    }
  }
  dirs.clear();
}

/** Kills the children and removes the dirs on exit, on SIGINT/SIGTERM and on a crash of the runner. */
export function installCleanupHandlers(): void {
  process.once('exit', () => cleanupAll());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the probe's child processes and removing its temp dirs`);
      cleanupAll();
      process.exit(130);
    });
  }
}
