import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';

/**
 * The warnings the server sent while this tab was open (a budget past one of the owner's shares, a
 * policy ending within a day), in its words, each leading to its agent; dismissed together.
 */
export function WarningsBanner() {
  const warnings = useDashboard((s) => s.warnings);
  const dismiss = useDashboard((s) => s.dismissWarnings);
  if (warnings.length === 0) return null;
  return (
    <div className="banner warning warnings-banner" role="status" data-testid="warnings">
      <ul>
        {warnings.map((warning) => (
          <li key={warning.message}>
            <strong>{warning.about === 'budget' ? 'Budget' : 'Policy ends soon'}</strong>: {warning.message}.{' '}
            <a href={hrefFor({ page: 'agent', agentId: warning.agentId })}>Open its page</a>
          </li>
        ))}
      </ul>
      <button type="button" className="button small" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}
