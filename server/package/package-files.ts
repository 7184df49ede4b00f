import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Coffer's own folder (where its package.json is), found by walking up from this file. The sources
 * (server/boot/), the compiled output (dist/app/server/boot/) and the desktop app's archive
 * (app.asar/dist/app/...) all sit below it, so files that are not code (the built dashboard, the
 * registry catalog, icons, the window's preload) are found the same way in all three.
 */
function findPackageRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'coffer') return dir;
    if (dirname(dir) === dir) throw new Error(`Coffer's package.json was not found above ${from}`);
  }
}

let root: string | undefined;

/** Found on first use, not at import: the bundled MCP bridge imports modules that import this one. */
export const packageRoot = (): string => (root ??= findPackageRoot(fileURLToPath(import.meta.url)));

export const packagePath = (...parts: string[]): string => join(packageRoot(), ...parts);

export const packageVersion = (): string => (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
