import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { displayNameSchema } from '../../../server/wire/schemas.js';
import type { Service, SpendRecord } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { dateTime } from '../lib/time.js';
import { AmountForm } from '../components/AmountForm.js';
import { BudgetBar } from '../components/BudgetBar.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { KillSwitch } from '../components/KillSwitch.js';
import { LimitsNow } from '../components/LimitsNow.js';
import { Money } from '../components/Money.js';
import { PolicyEditor } from '../components/PolicyEditor.js';
import { PaymentVenue } from '../components/PaymentVenue.js';
import { SpendChart } from '../components/SpendChart.js';
import { describeRequest } from '../../../server/wire/describe-request.js';
import { PaymentStatus } from '../components/PaymentStatus.js';
import { ReplaceKeyDialog } from './ReplaceKeyDialog.js';
import { ImageTasks } from '../components/ImageTasks.js';
import { TableHead } from '../components/TableHead.js';
import { Dialog } from '../components/Dialog.js';
import { useAction } from '../lib/use-action.js';
import { readableAmount, tryParseUsdc } from '../lib/money.js';

/** One agent: its brake (and why it stopped, when its breaker stopped it), wallet, funds, limits now, policy and what it spent. */
export function AgentPage({ agentId }: { agentId: string }) {
  const { client, dashboard, refresh, pendingApprovals } = useDashboard();
  const agent = dashboard?.agents.find((a) => a.agentId === agentId);
  const waiting = pendingApprovals.filter((a) => a.agentId === agentId);
  const [replacingKey, setReplacingKey] = useState(false);
  const [archiving, setArchiving] = useState(false);
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
  }, [loadHistory, agent?.lifetimePayments, agent?.spent24h]);
  useEffect(() => {
    client?.searchServices('').then(
      // What a policy can name: the catalog's services (a Bazaar listing is allowed by its recipient's address).
      (r) => setServices(r.results.filter((service) => service.source !== 'x402-bazaar')),
      (e: Error) => setError(e.message),
    );
  }, [client]);

  if (!dashboard) return null;
  // What the limits' figures follow: a payment (pending ones count), a refund, a policy change.
  const limitsKey = agent ? JSON.stringify([agent.spent24h, agent.lifetimePayments, agent.policy, agent.tightestBudget]) : '';
  const archived = dashboard.archivedAgents.find((a) => a.agentId === agentId);
  if (!agent && archived) {
    return (
      <section className="card" aria-labelledby="archived-title">
        <p className="muted">
          <a href={hrefFor({ page: 'overview' })}>Overview</a> / {archived.agentId}
        </p>
        <h2 id="archived-title">{archived.displayName}</h2>
        <p className="banner warning" role="status">
          Archived {archived.archivedAt ? dateTime(archived.archivedAt) : ''}: stopped for good, its key revoked. Its history stays.
        </p>
        <p className="muted">
          Wallet <code>{archived.walletAddress}</code>
        </p>
        <ArchivedFunds agentId={archived.agentId} balance={archived.balance} />
        <SpendHistoryTable history={history} />
      </section>
    );
  }
  if (!agent) {
    return (
      <section className="card">
        <h2>No agent “{agentId}”</h2>
        <p>
          <a href={hrefFor({ page: 'overview' })}>Back to the overview</a>
        </p>
      </section>
    );
  }

  return (
    <>
      <section className="card agent-head" aria-labelledby="agent-title">
        <p className="crumbs">
          <a href={hrefFor({ page: 'overview' })}>Overview</a> / {agent.agentId}
        </p>
        <div className="section-head">
          <h2 id="agent-title">{agent.displayName}</h2>
          <KillSwitch agentId={agent.agentId} status={agent.status} name={agent.displayName} />
        </div>
        {agent.status === 'suspended' && agent.statusReason && (
          <p className="stop-reason" role="status" data-testid="stop-reason">
            <strong>Stopped by itself</strong>: {agent.statusReason}. Every payment it tries is refused until you resume it.
          </p>
        )}
        <dl className="facts">
          <div>
            <dt>Wallet balance</dt>
            <dd className="big-number">
              <Money value={agent.balance} />
            </dd>
          </div>
          <div>
            <dt>Spent in 24 h</dt>
            <dd>
              <BudgetBar spent={agent.spent24h} budget={agent.policy.dailyBudget} label="Spent in 24 h against the daily budget" />
            </dd>
          </div>
          <div>
            <dt>Lifetime</dt>
            <dd>
              <Money value={agent.lifetimeSpent} /> in {agent.lifetimePayments} payment{agent.lifetimePayments === 1 ? '' : 's'}
            </dd>
          </div>
          <div className="wide">
            <dt>Wallet address</dt>
            <dd>
              <code className="address" data-testid="wallet-address">
                {agent.walletAddress}
              </code>{' '}
              <CopyButton text={agent.walletAddress} />
            </dd>
          </div>
        </dl>
        {waiting.length > 0 && (
          <div className="waiting" role="status">
            <strong>
              {waiting.length} request{waiting.length === 1 ? '' : 's'} from this agent wait{waiting.length === 1 ? 's' : ''} for you:
            </strong>
            <ul>
              {waiting.map((approval) => (
                <li key={approval.approvalId}>
                  {describeRequest(approval.kind, approval.request, approval.kind === 'policy' ? agent.policy : null)}
                </li>
              ))}
            </ul>
            <a href={hrefFor({ page: 'approvals' })}>Review in Approvals</a>
          </div>
        )}
        <ErrorNote error={error} />
      </section>

      <section className="card" aria-labelledby="limits-title">
        <h3 id="limits-title">Limits now</h3>
        <LimitsNow agentId={agent.agentId} refreshKey={limitsKey} />
      </section>

      <div className="columns">
        <section className="card" aria-labelledby="funds-title">
          <h3 id="funds-title">Funds</h3>
          {client && (
            <AmountForm
              label="Allocate from the treasury"
              action="Allocate"
              onSubmit={async (amount) => {
                const result = await client.allocate(agent.agentId, { amount });
                await refresh();
                return `Moved ${readableAmount(result.amount)} USDC on chain; wallet now ${readableAmount(result.balance)} USDC`;
              }}
            />
          )}
          {client && (
            <AmountForm
              label="Return to the treasury"
              action="Return"
              initial={agent.balance}
              onSubmit={async (amount) => {
                const result = await client.returnFunds(agent.agentId, { amount });
                await refresh();
                return `Returned ${readableAmount(result.amount)} USDC to the treasury on chain; wallet now ${readableAmount(result.balance)} USDC`;
              }}
            />
          )}
          <RenameForm agentId={agent.agentId} current={agent.displayName} />
          <div className="amount-form">
            <span className="label-like">API key</span>
            <p className="hint">Shown once when the agent was made. Lost or leaked? Issue a new one; the old one stops working.</p>
            <div>
              <button type="button" className="button" onClick={() => setReplacingKey(true)}>
                Issue a new API key…
              </button>
            </div>
          </div>
          <ReplaceKeyDialog agentId={agent.agentId} name={agent.displayName} open={replacingKey} onClose={() => setReplacingKey(false)} />
          <div className="amount-form">
            <span className="label-like">Done with this agent?</span>
            <p className="hint">
              Archiving stops it for good and revokes its key; its history stays. Its USDC goes back to the treasury first.
            </p>
            <div>
              <button type="button" className="button danger" onClick={() => setArchiving(true)}>
                Archive…
              </button>
            </div>
          </div>
          <ArchiveDialog
            agentId={agent.agentId}
            name={agent.displayName}
            balance={agent.balance}
            open={archiving}
            onClose={() => setArchiving(false)}
          />
        </section>
        <section className="card" aria-labelledby="policy-title">
          <h3 id="policy-title">Spending policy</h3>
          {client && (
            <PolicyEditor
              policy={agent.policy}
              services={services}
              onSave={async (update) => {
                await client.updatePolicy(agent.agentId, update);
                await refresh();
              }}
              tryUpdate={(update) => client.policyWhatIf(agent.agentId, update)}
            />
          )}
        </section>
      </div>

      <section className="card" aria-labelledby="spend-title">
        <h3 id="spend-title">Spending</h3>
        <SpendChart payments={history} />
        <SpendHistoryTable history={history} />
      </section>

      <ImageTasks agentId={agent.agentId} />
    </>
  );
}

function RenameForm({ agentId, current }: { agentId: string; current: string }) {
  const { client, refresh } = useDashboard();
  const [name, setName] = useState(current);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setName(current), [current]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = displayNameSchema.safeParse(name);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'invalid name');
      return;
    }
    if (!client) return;
    setError(null);
    try {
      await client.rename(agentId, { displayName: parsed.data });
      await refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <form className="amount-form" onSubmit={submit} noValidate>
      <label htmlFor="rename">Display name</label>
      <div className="inline">
        <input id="rename" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="button" disabled={name.trim() === current}>
          Rename
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

/** What an agent paid, newest first. */
function SpendHistoryTable({ history }: { history: SpendRecord[] }) {
  if (history.length === 0) return <p className="empty">No payments yet.</p>;
  return (
    <div className="table-wrap">
      <table>
        <TableHead columns={['When', 'Service', 'Description', { label: 'Amount', num: true }, 'Status']} />
        <tbody>
          {history.map((p) => (
            <tr key={p.id}>
              <td className="nowrap">{dateTime(p.timestamp)}</td>
              <td>
                <PaymentVenue name={p.service} protocol={p.protocol} resource={p.resource} recipient={p.recipient} />
              </td>
              <td className="muted">{p.description}</td>
              <td className="num">
                <Money value={p.amount} />
              </td>
              <td>
                <PaymentStatus status={p.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * USDC an archived agent's wallet still holds (sent from outside after the archive emptied it): no
 * key of the agent spends it any more, so it is shown with the way back to the treasury.
 */
function ArchivedFunds({ agentId, balance }: { agentId: string; balance: string }) {
  const { client, refresh } = useDashboard();
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  if ((tryParseUsdc(balance) ?? 0n) === 0n) return done === null ? null : <p role="status">{done}</p>;
  const giveBack = () =>
    client &&
    void run(async () => {
      const result = await client.returnFunds(agentId, {});
      await refresh();
      setDone(`Returned ${readableAmount(result.amount)} USDC to the treasury on chain`);
    });
  return (
    <div className="banner warning" role="alert">
      <p>
        Its wallet still holds <Money value={balance} />. No one spends it here: return it to the treasury.
      </p>
      <ErrorNote error={error} />
      <button type="button" className="button" onClick={giveBack} disabled={busy}>
        Return to the treasury
      </button>
    </div>
  );
}

/** Archiving, confirmed: the wallet's USDC goes back to the treasury first, then the agent is archived. */
function ArchiveDialog({
  agentId,
  name,
  balance,
  open,
  onClose,
}: {
  agentId: string;
  name: string;
  balance: string;
  open: boolean;
  onClose: () => void;
}) {
  const { client, refresh } = useDashboard();
  const { busy, error, run } = useAction();
  const holds = (tryParseUsdc(balance) ?? 0n) > 0n;
  const archive = async () => {
    const archived =
      client &&
      (await run(async () => {
        if (holds) await client.returnFunds(agentId, {});
        await client.archive(agentId);
        await refresh();
      }));
    if (archived) onClose();
  };
  return (
    <Dialog open={open} onClose={onClose} title={`Archive ${name}?`}>
      <p>
        {holds ? (
          <>
            Its <Money value={balance} /> go back to the treasury on chain, then{' '}
          </>
        ) : null}
        {name} is stopped for good and its key stops working at once. Its payments and history stay, and its id cannot be used again.
      </p>
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose} autoFocus>
          Cancel
        </button>
        <button type="button" className="button danger" onClick={() => void archive()} disabled={busy}>
          {busy ? 'Archiving…' : holds ? 'Return the funds and archive' : 'Archive'}
        </button>
      </div>
    </Dialog>
  );
}
