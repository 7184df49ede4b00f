import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveServeConfig } from '../boot/serve-config.js';
import { keyClient, type CofferClient } from '../client/coffer-client.js';
import { CofferApiError } from '../client/client-error.js';

/**
 * The owner's connection file (DIR/connection.json, 0600): only the user who runs Coffer can read it,
 * so owner commands (kill --all, open) work for that user and no one else.
 */
export function readOwnerConnection(dataDirFlag?: string): { url: string; owner: string; ownerKey: string } {
  const { dataDir } = resolveServeConfig({ 'data-dir': dataDirFlag });
  const file = join(dataDir, 'connection.json');
  let text: string | null = null;
  try {
    text = readFileSync(file, 'utf8');
    const parsed = JSON.parse(text) as { url?: string; owner?: string; ownerKey?: string };
    if (parsed.url && parsed.owner && parsed.ownerKey) return { url: parsed.url, owner: parsed.owner, ownerKey: parsed.ownerKey };
  } catch {
    // handled below
  }
  // There but damaged (not what Coffer writes): said so, not as if nothing ran there.
  if (text !== null) {
    throw new CofferApiError(
      0,
      'coffer_unreachable',
      `the connection file ${file} is damaged (not the URL and owner key Coffer writes): restart Coffer on this data dir to write it again`,
    );
  }
  // The code a Coffer that does not answer has (exit 3): nothing runs here for the owner to reach.
  throw new CofferApiError(
    0,
    'coffer_unreachable',
    `no running Coffer found in ${dataDir} (start \`coffer serve\` or the tray app; owner commands need its connection file; ` +
      'a Coffer serving another data dir is reached with --data-dir DIR or COFFER_HOME=DIR)',
  );
}

/** The running Coffer's URL from its connection file, else the default port (COFFER_PORT, 7402). */
export function runningCofferUrl(dataDirFlag?: string): string {
  try {
    return readOwnerConnection(dataDirFlag).url;
  } catch {
    return `http://127.0.0.1:${process.env.COFFER_PORT || 7402}`;
  }
}

/** The running Coffer's /v1, signed in by its owner key: what owner commands talk to. */
export function ownerClient(dataDirFlag?: string): { api: CofferClient; url: string; owner: string } {
  const connection = readOwnerConnection(dataDirFlag);
  return {
    api: keyClient(connection.url, { owner: connection.owner, key: connection.ownerKey }),
    url: connection.url,
    owner: connection.owner,
  };
}
