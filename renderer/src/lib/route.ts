import { useEffect, useState } from 'react';

export type Route =
  | { page: 'overview' }
  | { page: 'agent'; agentId: string }
  | { page: 'activity' }
  | { page: 'registry' }
  | { page: 'approvals' }
  | { page: 'link'; token: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const [first, second] = path.split('/');
  if (first === 'agents' && second) return { page: 'agent', agentId: decodeURIComponent(second) };
  if (first === 'activity') return { page: 'activity' };
  if (first === 'approvals') return { page: 'approvals' };
  if (first === 'link' && second) return { page: 'link', token: decodeURIComponent(second) };
  if (first === 'registry') return { page: 'registry' };
  return { page: 'overview' };
}

export function hrefFor(route: Route): string {
  if (route.page === 'agent') return `#/agents/${encodeURIComponent(route.agentId)}`;
  if (route.page === 'link') return `#/link/${encodeURIComponent(route.token)}`;
  return route.page === 'overview' ? '#/' : `#/${route.page}`;
}

/** Hash routing: the server serves one page; the hash picks the view and survives reloads. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
