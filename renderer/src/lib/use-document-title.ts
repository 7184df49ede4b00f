import { useEffect } from 'react';
import { useDashboard } from '../state/store.js';
import { titleFor, type Route } from './route.js';

/** The tab's title: the page shown (an agent's by its name), or the sign-in. */
export function useDocumentTitle(route: Route): void {
  const status = useDashboard((s) => s.status);
  const agentName = useDashboard((s) =>
    route.page === 'agent' ? s.dashboard?.agents.find((a) => a.agentId === route.agentId)?.displayName : undefined,
  );
  useEffect(() => {
    document.title = status === 'signed-out' ? 'Sign in · Coffer' : titleFor(route, agentName);
  }, [route, agentName, status]);
}
