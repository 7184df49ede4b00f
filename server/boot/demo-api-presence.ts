import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where `coffer demo-api` listens, told to the Coffer of the same data dir through DIR/demo-api/
 * listening.json: the registry's demo listings then name the port it really runs on.
 */
const fileOf = (dataDir: string) => join(dataDir, 'demo-api', 'listening.json');

/**
 * Written by the demo API once it listens (its folder exists: its paywall store lives there). Where
 * another demo of this data dir runs and is listed (`coffer demo-x402`'s seller, another `coffer
 * demo-api`), it stays listed (`listed`: its URL) and this one is not: a second demo taking the
 * listing, then withdrawing it as it stops, left the first's payments unknown to the registry.
 */
export function announceDemoApi(dataDir: string, url: string): { withdraw: () => void; listed: string | null } {
  const listed = demoApiUrl(dataDir);
  if (listed !== null) return { withdraw: () => undefined, listed };
  const file = fileOf(dataDir);
  writeFileSync(file, `${JSON.stringify({ url, pid: process.pid })}\n`);
  const withdraw = () => {
    try {
      if ((JSON.parse(readFileSync(file, 'utf8')) as { pid?: number }).pid === process.pid) rmSync(file);
    } catch {
      // gone already
    }
  };
  return { withdraw, listed: null };
}

/** The running demo API's URL, or null when none runs for this data dir (no file, or its process is gone). */
export function demoApiUrl(dataDir: string): string | null {
  try {
    const { url, pid } = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as { url?: unknown; pid?: unknown };
    if (typeof url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(url) || typeof pid !== 'number') return null;
    process.kill(pid, 0);
    return url;
  } catch {
    return null;
  }
}
