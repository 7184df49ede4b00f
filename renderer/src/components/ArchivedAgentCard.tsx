import type { ArchivedAgent, SpendRecord } from '../api/types.js';
import { hrefFor } from '../lib/route.js';
import { dateTime } from '../lib/time.js';
import { useTimeZone } from '../state/store.js';
import { ArchivedFunds } from './ArchivedFunds.js';
import { SpendHistoryTable } from './SpendHistoryTable.js';
import { FundsMovesTable } from './FundsMovesTable.js';

/** An archived agent's page: stopped for good, its key revoked; its wallet, what it still holds, and its history. */
export function ArchivedAgentCard({ archived, history }: { archived: ArchivedAgent; history: SpendRecord[] }) {
  const timeZone = useTimeZone();
  return (
    <section className="card" aria-labelledby="archived-title">
      <p className="muted">
        <a href={hrefFor({ page: 'overview' })}>Overview</a> / {archived.agentId}
      </p>
      <h2 id="archived-title">{archived.displayName}</h2>
      <p className="banner warning" role="status">
        Archived {archived.archivedAt ? dateTime(archived.archivedAt, timeZone) : ''}: stopped for good, its key revoked. Its history stays.
      </p>
      <p className="muted">
        Wallet <code>{archived.walletAddress}</code>
      </p>
      <ArchivedFunds agentId={archived.agentId} rail="sol" balance={archived.balance} />
      <ArchivedFunds agentId={archived.agentId} rail="base" balance={archived.balances.base} />
      {/* The returns its archive made, with the rest: what an owner reconciles. */}
      <FundsMovesTable agentId={archived.agentId} />
      <SpendHistoryTable history={history} />
    </section>
  );
}
