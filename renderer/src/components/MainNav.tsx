import { hrefFor, type Route } from '../lib/route.js';
import { useDashboard } from '../state/store.js';

const NAV: { route: Route; label: string }[] = [
  { route: { page: 'overview' }, label: 'Overview' },
  { route: { page: 'activity' }, label: 'Activity' },
  { route: { page: 'approvals' }, label: 'Approvals' },
  { route: { page: 'registry' }, label: 'Registry' },
  { route: { page: 'backup' }, label: 'Backup' },
];

/** The dashboard's main pages, the one shown marked, Approvals with how many requests wait. */
export function MainNav({ route }: { route: Route }) {
  const waiting = useDashboard((s) => s.pendingApprovals.length);
  return (
    <nav aria-label="Main">
      {NAV.map(({ route: target, label }) => (
        <a key={label} href={hrefFor(target)} aria-current={route.page === target.page ? 'page' : undefined}>
          {label}
          {target.page === 'approvals' && waiting > 0 && (
            <span className="badge" aria-label={`${waiting} waiting`}>
              {waiting}
            </span>
          )}
        </a>
      ))}
    </nav>
  );
}
