/**
 * `coffer` runs the compiled app (dist/app) unless a source under server/ is newer, and then the
 * sources through tsx (server/cli/bin.js). A source edited while the bench runs therefore changes
 * what every later row measures, silently: the bench says so when it ends.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The server sources newer than the compiled app (all of them when it is missing). */
export function sourcesNewerThanBuild(): string[] {
  let built: number;
  try {
    built = statSync(join(ROOT, 'dist', 'app', 'server', 'cli', 'main.js')).mtimeMs;
  } catch {
    built = 0;
  }
  return readdirSync(join(ROOT, 'server'), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && statSync(join(ROOT, 'server', file)).mtimeMs > built);
}

/** Warns, as the process ends, if a source was changed after the bench's own compile. */
export function warnIfSourcesChange(): void {
  process.on('exit', () => {
    const changed = sourcesNewerThanBuild();
    if (changed.length === 0) return;
    console.error(
      `\nWARNING: ${changed.join(', ')} changed during the run: coffer processes started after that ran the sources under tsx, not the compiled app; run the bench again`,
    );
    process.exitCode = 1;
  });
}
