import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { shellWords } from './cli-invocation.js';
import { createServer } from 'node:net';

/**
 * The Coffer already running for a data dir, as its connection file says, when its process is alive:
 * so a second start can say where the first one is instead of only that something is in the way.
 */
function runningCoffer(dataDir: string): { url: string; pid: number } | null {
  try {
    const { url, pid } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { url?: unknown; pid?: unknown };
    if (typeof url !== 'string' || typeof pid !== 'number') return null;
    process.kill(pid, 0); // throws when no such process
    return { url, pid };
  } catch {
    return null;
  }
}

/**
 * Where the running one is and how to reach it, for an error message. `coffer open` names the data
 * dir: run in another shell (or from the desktop app, which is handed it as COFFER_HOME), it would
 * otherwise find another Coffer's, or none.
 */
export function whereItRuns(dataDir: string): string {
  const running = runningCoffer(dataDir);
  if (running === null) return '';
  const open = `coffer open --data-dir ${shellWords([resolve(dataDir)])}`;
  return ` Coffer is already running for it at ${running.url} (pid ${running.pid}): open its dashboard with \`${open}\` (or the tray's Open dashboard).`;
}

/**
 * Refuses a port that is taken before anything is created: a start that cannot listen must not
 * leave a new treasury (keys, a funded sim chain) behind in the data dir.
 */
export async function assertPortFree(port: number, dataDir: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `port ${port} on 127.0.0.1 is already in use (choose another with --port); nothing was started or created.${whereItRuns(dataDir)}`,
            )
          : error,
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}
