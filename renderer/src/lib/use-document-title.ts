import { useEffect } from 'react';
import { useAgentName, useDashboard } from '../state/store.js';
import { titleFor, type Route } from './route.js';

/** The tab's title: the page shown (an agent's by its name), or the sign-in. */
export function useDocumentTitle(route: Route): void {
  const status = useDashboard((s) => s.status);
  // An archived agent's page too: by its name.
  const named = useAgentName(route.page === 'agent' ? route.agentId : '');
  const agentName = route.page === 'agent' ? named : undefined;
  useEffect(() => {
    document.title = status === 'signed-out' ? 'Sign in · Coffer' : titleFor(route, agentName);
  }, [route, agentName, status]);
}
