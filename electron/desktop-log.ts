import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** A log over this size is set aside (as .1) when the app starts. */
const ROTATE_AT_BYTES = 1_000_000;

/**
 * The desktop app's log: to stderr (seen under `npm start`) and, once the data dir is known, to
 * DIR/logs/desktop.log (a packaged app has no terminal: this is where a failure can be read).
 */
export function createDesktopLog(stderr: (line: string) => void) {
  let file: string | null = null;
  const log = (message: string) => {
    stderr(message);
    if (file === null) return;
    try {
      appendFileSync(file, `${new Date().toISOString()} ${message}\n`);
    } catch {
      // A log that cannot be written must not stop the app.
    }
  };
  return {
    log,
    /** Starts writing to this file too (rotated when large). */
    toFile(path: string): void {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (existsSync(path) && statSync(path).size > ROTATE_AT_BYTES) renameSync(path, `${path}.1`);
      file = path;
    },
    file: () => file,
  };
}
export type DesktopLog = ReturnType<typeof createDesktopLog>;
