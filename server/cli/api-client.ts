/**
 * The CLI's and the MCP bridge's way to Coffer: a small client of the localhost /v1 server (only the
 * server owns the ledger). Errors keep the server's message and stable code.
 */
import { CofferApiError, readApiAnswer } from '../http/api-answer.js';

export { CofferApiError };

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

export function createApiClient(baseUrl: string, credentials: { owner?: string; key?: string }) {
  const base = baseUrl.replace(/\/+$/, '');
  async function call<T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown, query: Record<string, string> = {}): Promise<ApiAnswer<T>> {
    const url = new URL(`${base}${path}`);
    if (credentials.owner) url.searchParams.set('owner', credentials.owner);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          ...(credentials.key ? { authorization: `Bearer ${credentials.key}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
      });
    } catch (error) {
      throw new CofferApiError(0, 'coffer_unreachable', `Coffer is not answering at ${base} (${(error as Error).message}); is \`coffer serve\` or the tray app running?`);
    }
    return { status: response.status, body: await readApiAnswer<T>(response) };
  }
  return { base, call };
}

export type ApiClient = ReturnType<typeof createApiClient>;
