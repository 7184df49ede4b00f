import type { ServerResponse } from 'node:http';

/**
 * Calls `done` once the response is closed (answered, or its connection gone), at once where it is
 * already. Security invariant: what a handler holds for a response is given back whatever the order.
 * A connection closed before its request's handler ran (by its client, or by the bound on requests
 * pipelined behind it, loopback-server.ts) emitted 'close' before anyone listened: an event stream's
 * heartbeat, its listener on every event and its agent's place among 32 (held-requests.ts) were held
 * for good, and 40 such connections left the agent refused 429 with nothing open.
 */
export function whenClosed(res: ServerResponse, done: () => void): void {
  if (res.destroyed) done();
  else res.once('close', done);
}
