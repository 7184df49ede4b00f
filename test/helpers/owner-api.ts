import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAgentConfig } from '../../server/linked-agent/agent-config.js';

/**
 * Coffer's /v1 as the owner of a served data dir, for the specs that set a scene up or check it
 * behind the browser's back: the address, the owner and the owner key come from the connection file
 * `coffer serve` writes there (DIR/connection.json), as the CLI finds them.
 */

/** What the specs read of DIR/connection.json. */
export interface OwnerConnection {
  url: string;
  owner: string;
  ownerKey: string;
}

/** The connection file of a data dir whose `coffer serve` is running (it is removed when serve stops). */
export function readConnection(dataDir: string): OwnerConnection {
  return JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as OwnerConnection;
}

/**
 * A linked terminal's config file for an agent the owner deployed on this data dir's Coffer, as
 * `coffer link` writes one (the agent's key and wallet, the owner, the address); answers the file.
 */
export function writeLinkedConfig(
  dataDir: string,
  file: string,
  agentId: string,
  deployed: { apiKey: string; agent: { walletAddress: string } },
): string {
  const { owner, url } = readConnection(dataDir);
  writeAgentConfig(file, {
    agentId,
    walletAddress: deployed.agent.walletAddress,
    apiKey: deployed.apiKey,
    linkedAt: new Date().toISOString(),
    owner,
    url,
  });
  return file;
}

export type Method = 'GET' | 'POST';

/** A JSON answer, untyped: the specs assert its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

/**
 * Each call takes the method, the path under the server (its own query allowed), the body to send as
 * JSON (none when undefined) and, in place of the owner key, another bearer such as an agent's key.
 */
export interface OwnerApi {
  /** The response as it came. */
  call(method: Method, path: string, body?: unknown, key?: string): Promise<Response>;
  /** The status and the JSON answered, whatever the status: for specs that assert it themselves. */
  answer(method: Method, path: string, body?: unknown, key?: string): Promise<{ status: number; body: Json }>;
  /** The JSON answered, once the status says OK (otherwise the test fails with the server's words). */
  json<T = Json>(method: Method, path: string, body?: unknown, key?: string): Promise<T>;
}

export function ownerApi(dataDir: string): OwnerApi {
  const call = (method: Method, path: string, body?: unknown, key?: string) => {
    // Read at each call: a restarted serve writes the file again, on a new port unless COFFER_PORT keeps it.
    const { url, owner, ownerKey } = readConnection(dataDir);
    // The server authenticates a key against the treasury the query names (`owner`), beside whatever
    // query the path already has; agents' keys too.
    const query = `${path.includes('?') ? '&' : '?'}owner=${encodeURIComponent(owner)}`;
    return fetch(`${url}${path}${query}`, {
      method,
      headers: { authorization: `Bearer ${key ?? ownerKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
  return {
    call,
    async answer(method, path, body, key) {
      const response = await call(method, path, body, key);
      return { status: response.status, body: (await response.json()) as Json };
    },
    async json<T = Json>(method: Method, path: string, body?: unknown, key?: string) {
      const response = await call(method, path, body, key);
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as T;
    },
  };
}
