import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ConnectionInfo {
  url: string;
  owner: string;
  ownerKey: string;
  network: string;
  pid: number;
}

/** DIR/connection.json at 0600: how local clients (CLI, MCP bridge) find and authenticate to serve. */
export function writeConnectionFile(file: string, info: ConnectionInfo): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/**
 * Writes DIR/connection.json for a Coffer that now listens at `url` (serve and the desktop app alike);
 * answers the file's path, to remove it on a graceful stop.
 */
export function announceConnection(
  dataDir: string,
  url: string,
  coffer: { owner: string; ownerKey: string; chain: { network: string } },
): string {
  const file = join(dataDir, 'connection.json');
  writeConnectionFile(file, { url, owner: coffer.owner, ownerKey: coffer.ownerKey, network: coffer.chain.network, pid: process.pid });
  return file;
}

/** Removes the file on a graceful stop, unless another process has written it since. */
export function removeConnectionFile(file: string, pid: number): void {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<ConnectionInfo>;
    if (info.pid === pid) rmSync(file);
  } catch {
    // Already gone or unreadable: nothing to clean up.
  }
}
