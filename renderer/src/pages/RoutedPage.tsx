import { hrefFor, type Route } from '../lib/route.js';
import { ActivityPage } from './ActivityPage.js';
import { AgentPage } from './AgentPage.js';
import { ApprovalsPage } from './ApprovalsPage.js';
import { BackupPage } from './BackupPage.js';
import { LinkPage } from './LinkPage.js';
import { Overview } from './Overview.js';
import { RegistryPage } from './RegistryPage.js';

/** The page a route names; one that names none says so. */
export function RoutedPage({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview':
      return <Overview />;
    case 'agent':
      // Keyed by agent: nothing of one agent's page (its history, its images) lingers on another's.
      return <AgentPage key={route.agentId} agentId={route.agentId} />;
    case 'activity':
      return <ActivityPage />;
    case 'registry':
      return <RegistryPage />;
    case 'approvals':
      return <ApprovalsPage />;
    case 'backup':
      return <BackupPage />;
    case 'link':
      return <LinkPage token={route.token} />;
    case 'not-found':
      return (
        <section className="card" aria-labelledby="not-found-title">
          <h2 id="not-found-title">Nothing here</h2>
          <p>
            There is no page at <code>#/{route.path}</code>. <a href={hrefFor({ page: 'overview' })}>Back to the overview</a>.
          </p>
        </section>
      );
  }
}
