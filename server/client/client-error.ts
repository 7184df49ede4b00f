// The one error on the client side of /v1: a failed call, with the server's message and stable code.
/**
 * What a client of /v1 throws: the server's `{error, code}` and its HTTP status (0 when nothing
 * answered). The server's own CofferError (server/wire/errors.ts) stays on its side of the wire.
 */
export class CofferApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Set where the server said this refusal stopped the agent (its breaker tripped), for `reason`. */
    readonly agentStopped?: { reason: string },
  ) {
    super(message);
    this.name = 'CofferApiError';
  }
}
