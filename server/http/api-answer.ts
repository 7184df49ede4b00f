/**
 * The client side of /v1, shared by every client of it (the CLI, the MCP bridge, the dashboard):
 * how an answer is read. Every non-2xx is `{error, code}`; a failed call keeps the server's message
 * and stable code. Browser-safe: fetch types only, nothing of the server.
 */
export class CofferApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CofferApiError';
  }
}

/** The answer's JSON body, or a CofferApiError carrying the server's message and code. */
export async function readApiAnswer<T>(response: Response): Promise<T> {
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: a failed answer is reported by its status below
  }
  if (!response.ok) {
    const error = (parsed ?? {}) as { error?: string; code?: string };
    throw new CofferApiError(response.status, error.code ?? 'http_error', error.error ?? `Coffer answered ${response.status}`);
  }
  return parsed as T;
}
