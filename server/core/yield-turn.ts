/**
 * A long read (the dashboard, a page of agents at a time) yields here between its slices, so that a
 * payment waits behind one slice at most. A request is read in the event loop's poll phase, and the
 * /pay door runs its payment in the check phase after it (server/http/turn-batch.ts): resolving one
 * check phase later puts the next slice behind the payments read meanwhile, not before them.
 */
export const yieldToWaitingRequests = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
