/**
 * Whether `compiled` is at least as new as every source under `sources` (folders and files), a
 * folder's files counted where `isSource` says so (by default .ts files) (compiled-fresh.js).
 */
export function compiledIsFresh(compiled: string, sources: string[], isSource?: (file: string) => boolean): boolean;
