/** How often the parent is looked at: a stop within a fraction of a second, for one cheap system call. */
const EVERY_MS = 200;

/**
 * `npm start` stops when npm does. npm runs the script through `sh -c` and forwards SIGINT and SIGTERM
 * to that shell only. A shell that forks the command (Debian's and Ubuntu's dash) dies of the SIGTERM
 * and leaves this process running, holding the port and the data dir; one that execs it (bash, /bin/sh
 * on macOS) passes the signal on, but npm itself may die of a signal it cannot forward (SIGKILL).
 *
 * So when the process that started this one is gone (on Linux and macOS an orphan is adopted: its
 * parent pid changes), this one sends itself SIGTERM, once: the graceful stop where one listens
 * (`coffer serve`, the desktop launcher), and the default end where nothing needs stopping yet.
 * On Windows a parent pid never changes, and there is nothing to do: Ctrl-C reaches every process of
 * the console, and nothing can send a console process a SIGTERM.
 */
export function stopWithParent(
  deps: { ppid(): number; stop(): void; every?: number } = {
    ppid: () => process.ppid,
    stop: () => process.kill(process.pid, 'SIGTERM'),
  },
): { cancel(): void } {
  const parent = deps.ppid();
  const timer = setInterval(() => {
    if (deps.ppid() === parent) return;
    clearInterval(timer);
    deps.stop();
  }, deps.every ?? EVERY_MS);
  // Never what keeps the process alive: it ends when its work does, as before.
  timer.unref();
  return { cancel: () => clearInterval(timer) };
}
