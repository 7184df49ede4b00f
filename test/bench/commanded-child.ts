import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * A Node process of its own running `script`, told what to do a line at a time on its stdin and
 * answering in lines on its stdout. `ask` sends a line (or none) and resolves with the first line
 * that `answers` accepts; the process stopping first (its script failed) rejects.
 */
export function commandedChild(what: string, script: string) {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const said: string[] = [];
  let heard = () => {};
  createInterface({ input: child.stdout }).on('line', (line) => {
    said.push(line);
    heard();
  });
  let stopping = false;
  const exited = new Promise<void>((resolve, reject) =>
    child.once('exit', (code) => (stopping ? resolve() : reject(new Error(`${what} stopped early (exit ${code})`)))),
  );
  // Told when waited for (below), not the moment it happens.
  exited.catch(() => {});
  return {
    ask: async (line: string | null, answers: (line: string) => boolean): Promise<string> => {
      if (line !== null) {
        said.length = 0;
        child.stdin.write(`${line}\n`);
      }
      for (;;) {
        const answer = said.find(answers);
        if (answer !== undefined) return answer;
        await Promise.race([new Promise<void>((resolve) => (heard = resolve)), exited]);
      }
    },
    stop: async () => {
      stopping = true;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
