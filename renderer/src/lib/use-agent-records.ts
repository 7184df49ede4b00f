import { useCallback, useEffect, useState } from 'react';
import type { Service, SpendRecord } from '../api/types.js';
import { useDashboard } from '../state/store.js';

/**
 * What the agent page reads beside the dashboard: the agent's payments, read again whenever
 * `historyKey` changes (it paid), and the services a policy can name. The error is the server's
 * message of the last read that failed, or null.
 */
export function useAgentRecords(agentId: string, historyKey: string) {
  const client = useDashboard((s) => s.client);
  const [history, setHistory] = useState<SpendRecord[]>([]);
  const [services, setServices] = useState<Service[]>([]);
  const [error, setError] = useState<string | null>(null);
  const loadHistory = useCallback(async () => {
    if (!client) return;
    try {
      setHistory((await client.spendHistory(agentId)).payments);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [client, agentId]);
  useEffect(() => {
    void loadHistory();
  }, [loadHistory, historyKey]);
  useEffect(() => {
    client?.searchServices('').then(
      // What a policy can name: the catalog's services (a Bazaar listing is allowed by its recipient's address).
      (r) => setServices(r.results.filter((service) => service.source !== 'x402-bazaar')),
      (e: Error) => setError(e.message),
    );
  }, [client]);
  return { history, services, error };
}
