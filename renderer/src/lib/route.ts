import { useEffect, useState } from 'react';

export type Route =
  | { page: 'overview' }
  | { page: 'agent'; agentId: string }
  | { page: 'activity' }
  | { page: 'registry' }
  /** approvalId: one request opened from elsewhere (an MCP host's link to the owner's decision). */
  | { page: 'approvals'; approvalId?: string }
  | { page: 'backup' }
  | { page: 'link'; token: string }
  | { page: 'not-found'; path: string };

/** The view a hash names; an unknown or malformed one (a bad %-escape) is the not-found page, never a blank one. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const [first, second, ...more] = path.split('/');
  const decoded = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return null;
    }
  };
  if (path === '') return { page: 'overview' };
  if (more.length > 0) return { page: 'not-found', path };
  if (first === 'agents' && second) {
    const agentId = decoded(second);
    return agentId === null ? { page: 'not-found', path } : { page: 'agent', agentId };
  }
  if (first === 'approvals' && second) {
    const approvalId = decoded(second);
    return approvalId === null ? { page: 'not-found', path } : { page: 'approvals', approvalId };
  }
  if (first === 'link' && second) {
    const token = decoded(second);
    return token === null ? { page: 'not-found', path } : { page: 'link', token };
  }
  if (second !== undefined && second !== '') return { page: 'not-found', path };
  if (first === 'activity') return { page: 'activity' };
  if (first === 'approvals') return { page: 'approvals' };
  if (first === 'registry') return { page: 'registry' };
  if (first === 'backup') return { page: 'backup' };
  return { page: 'not-found', path };
}

/** What the browser tab says: the page, then Coffer. */
export function titleFor(route: Route, agentName?: string): string {
  const page = {
    overview: 'Overview',
    agent: agentName ?? (route.page === 'agent' ? route.agentId : ''),
    activity: 'Activity',
    approvals: 'Approvals',
    registry: 'Registry',
    backup: 'Back up',
    link: 'Link a terminal',
    'not-found': 'Not found',
  }[route.page];
  return `${page} · Coffer`;
}

export function hrefFor(route: Route): string {
  if (route.page === 'not-found') return `#/${route.path}`;
  if (route.page === 'agent') return `#/agents/${encodeURIComponent(route.agentId)}`;
  if (route.page === 'link') return `#/link/${encodeURIComponent(route.token)}`;
  if (route.page === 'approvals' && route.approvalId !== undefined) return `#/approvals/${encodeURIComponent(route.approvalId)}`;
  return route.page === 'overview' ? '#/' : `#/${route.page}`;
}

/** Hash routing: the server serves one page; the hash picks the view and survives reloads. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () =>
      setRoute((current) => {
        const next = parseRoute(window.location.hash);
        return hrefFor(next) === hrefFor(current) ? current : next;
      });
    window.addEventListener('hashchange', onChange);
    // The hash may have changed between the first render and this listener (a page sent elsewhere
    // while it started), its event gone before anyone listened: read once more, now.
    onChange();
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
