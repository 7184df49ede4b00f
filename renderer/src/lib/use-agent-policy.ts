import { useEffect, useState } from 'react';
import type { PolicyResponse } from '../api/types.js';
import { useDashboard, useTimeZone } from '../state/store.js';

/**
 * An agent's policy and where each of its limits stands (GET policy), read again whenever
 * `refreshKey` changes (the agent paid, its policy changed) and when the owner's time zone does
 * (calendar windows move with it). The error is the server's message, or null.
 */
export function useAgentPolicy(agentId: string, refreshKey: string): { answer: PolicyResponse | null; error: string | null } {
  const client = useDashboard((s) => s.client);
  const timeZone = useTimeZone();
  const [answer, setAnswer] = useState<PolicyResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!client) return;
    let current = true;
    client.policy(agentId).then(
      (read) => {
        if (!current) return;
        setAnswer(read);
        setError(null);
      },
      (e: Error) => current && setError(e.message),
    );
    // An answer for an older key, arriving late, must not replace a newer one.
    return () => {
      current = false;
    };
  }, [client, agentId, refreshKey, timeZone]);
  return { answer, error };
}
