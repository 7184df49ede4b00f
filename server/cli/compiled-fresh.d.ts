/** Whether `compiled` is at least as new as every .ts file under `sources` (compiled-fresh.js). */
export function compiledIsFresh(compiled: string, sources: string[]): boolean;
