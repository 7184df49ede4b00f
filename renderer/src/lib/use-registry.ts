import { useEffect, useState } from 'react';
import type { Model, SearchResult } from '../api/types.js';
import { useDashboard } from '../state/store.js';

/** How long the search waits for the owner to stop typing before it asks the server. */
const SEARCH_DELAY_MS = 150;

/**
 * What the registry page shows: the services `query` finds (asked once the owner pauses typing) and
 * the image models with their prices. The error is the server's message of the last read that failed.
 */
export function useRegistry(query: string) {
  const client = useDashboard((s) => s.client);
  const [result, setResult] = useState<SearchResult | null>(null);
  const [models, setModels] = useState<Model[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!client) return;
    const timer = setTimeout(() => {
      client.searchServices(query).then(setResult, (e: Error) => setError(e.message));
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [client, query]);
  useEffect(() => {
    client?.models().then(
      (r) => setModels(r.models),
      (e: Error) => setError(e.message),
    );
  }, [client]);
  return { result, models, error };
}
