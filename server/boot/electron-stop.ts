import type { ChildProcess } from 'node:child_process';

import { STOP_SIGNALS, type StopSignal } from './stop-signals.js';

/** Where the launcher's signals arrive: the process itself (an emitter in the tests). */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
  off(signal: StopSignal, listener: () => void): unknown;
}

/**
 * While Electron runs, a signal that would end its launcher (`coffer start`) asks Electron to quit
 * instead, and the launcher goes on waiting for it: a launcher stopped by its pid stops the tray app
 * too (graceful: in-flight payments finish), rather than dying and leaving it running on the data dir.
 *
 * Electron (Chromium's shutdown handler) quits gracefully on the first SIGINT, SIGTERM or SIGHUP and
 * puts back that signal's default action: a second one of the same kind kills it halfway. It may
 * already have the very signal the launcher got (Ctrl-C and a closing terminal signal the whole
 * process group), so it is sent another kind: SIGTERM, or SIGINT when SIGTERM is what came. Once.
 *
 * Windows has no signals to forward: `kill` there ends a process abruptly, with no graceful stop, so
 * nothing is listened to and the launcher stops as before.
 */
export function forwardStopToElectron(
  electron: Pick<ChildProcess, 'kill'>,
  signals: SignalSource = process,
  platform: NodeJS.Platform = process.platform,
): { asked(): boolean; release(): void } {
  let asked = false;
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => {
      if (asked) return;
      asked = true;
      electron.kill(signal === 'SIGTERM' ? 'SIGINT' : 'SIGTERM');
    };
    return { signal, listener };
  });
  if (platform !== 'win32') for (const { signal, listener } of listeners) signals.on(signal, listener);
  return {
    asked: () => asked,
    release: () => {
      for (const { signal, listener } of listeners) signals.off(signal, listener);
    },
  };
}
