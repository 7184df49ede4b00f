import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { forwardStopToElectron } from '../../../../server/boot/electron-stop.js';
import { runElectron } from '../../../../server/boot/desktop-launcher.js';

/**
 * A stand-in for Electron's main process, as a real process: Chromium's shutdown handler quits
 * gracefully (here: 300 ms) on the first SIGINT, SIGTERM or SIGHUP and puts back the default action
 * of that signal, so a second one of the same kind kills it halfway (here: the listener was `once`).
 */
const FAKE_ELECTRON = `
let quitting = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    process.stderr.write('quit on ' + signal + '\\n');
    if (quitting) return;
    quitting = true;
    setTimeout(() => process.exit(0), 300);
  });
}
process.stderr.write('ready\\n');
if (process.argv[1] === 'running') process.stderr.write('Coffer 0.1.0 running in the tray; dashboard at http://127.0.0.1:7402\\n');
setInterval(() => {}, 1000);
`;

/**
 * runElectron on the stand-in, with the launcher's signals arriving on an emitter; resolves once its
 * handlers listen. `running`: it says that Coffer runs (or stops before, as a crashed Electron does).
 */
async function launch(running = true): Promise<{
  electron: ChildProcess;
  signals: EventEmitter;
  said: string[];
  result: ReturnType<typeof runElectron>;
}> {
  const signals = new EventEmitter();
  const said: string[] = [];
  let electron: ChildProcess | undefined;
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const result = runElectron(
    '/opt/electron',
    {},
    () => {
      electron = spawn(process.execPath, ['-e', FAKE_ELECTRON, running ? 'running' : 'starting'], { stdio: ['ignore', 'ignore', 'pipe'] });
      electron.stderr!.on('data', (chunk: Buffer) => {
        said.push(...chunk.toString().trim().split('\n'));
        if (said.includes('ready')) listening();
      });
      return electron;
    },
    signals,
  );
  await ready;
  return { electron: electron!, signals, said, result };
}

describe("the launcher's stop, while Electron runs", () => {
  it('SIGTERM to the launcher alone: Electron is asked to quit (SIGINT), once, and the launcher ends with its code', async () => {
    const { signals, said, result } = await launch();
    signals.emit('SIGTERM');
    signals.emit('SIGTERM');
    expect(await result).toEqual({ exitCode: 0 });
    expect(said.filter((line) => line.startsWith('quit on'))).toEqual(['quit on SIGINT']);
    expect(signals.listenerCount('SIGTERM') + signals.listenerCount('SIGINT') + signals.listenerCount('SIGHUP')).toBe(0);
  });

  it('Ctrl-C (the group signalled: Electron has its SIGINT too): another kind is sent, and it still quits gracefully', async () => {
    const { electron, signals, said, result } = await launch();
    electron.kill('SIGINT');
    signals.emit('SIGINT');
    expect(await result).toEqual({ exitCode: 0 });
    expect(said.filter((line) => line.startsWith('quit on')).sort()).toEqual(['quit on SIGINT', 'quit on SIGTERM']);
  });

  it('a closed terminal (SIGHUP to the group) and a SIGTERM to the group: never the same kind twice', async () => {
    for (const signal of ['SIGHUP', 'SIGTERM'] as const) {
      const { electron, signals, said, result } = await launch();
      electron.kill(signal);
      signals.emit(signal);
      expect(await result).toEqual({ exitCode: 0 });
      expect(said.filter((line) => line === `quit on ${signal}`)).toHaveLength(1);
    }
  });

  it('an Electron killed while asked to stop, before Coffer ran, is not followed by a headless start', async () => {
    const { electron, signals, result } = await launch(false);
    signals.emit('SIGTERM');
    electron.kill('SIGKILL');
    expect(await result).toEqual({ exitCode: 1 });
  });

  it('on Windows, where `kill` ends a process abruptly, nothing is forwarded', () => {
    const signals = new EventEmitter();
    const sent: string[] = [];
    const stop = forwardStopToElectron({ kill: (signal) => sent.push(String(signal)) > 0 }, signals, 'win32');
    signals.emit('SIGINT');
    expect(signals.listenerCount('SIGINT')).toBe(0);
    expect(sent).toEqual([]);
    expect(stop.asked()).toBe(false);
  });
});
