import { useEffect, useState, type FormEvent } from 'react';
import { FundingNote } from './DeployDialog.js';
import type { Deployed } from '../api/types.js';
import { linkCompleteBodySchema } from '../../../server/wire/schemas.js';
import { useAction } from '../lib/use-action.js';
import type { LinkDetails } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { hrefFor } from '../lib/route.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { NewAgentFields, emptyNewAgent, newAgentBody } from '../components/NewAgentFields.js';

const suggestedId = (details: LinkDetails) =>
  String(details.client.hostname ?? 'terminal')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 50) || 'terminal';

/**
 * A terminal asks to be linked (`coffer link`): who is asking, the code to compare with the one the
 * terminal shows, and the name and starting policy the new agent gets.
 */
export function LinkPage({ token }: { token: string }) {
  const { client, refresh } = useDashboard();
  const [details, setDetails] = useState<LinkDetails | null>(null);
  const [form, setForm] = useState(emptyNewAgent());
  const [done, setDone] = useState<string | null>(null);
  const { busy, error, setError, invalid, run, submit: submitForm } = useAction();
  const [denied, setDenied] = useState(false);
  const [funding, setFunding] = useState<Deployed['funding']>(undefined);

  useEffect(() => {
    client?.linkDetails(token).then(
      (d) => {
        setDetails(d);
        setForm((f) => ({ ...f, agentId: f.agentId || suggestedId(d) }));
      },
      (e: Error) => setError(e.message),
    );
  }, [client, token]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await submitForm(linkCompleteBodySchema, newAgentBody(form), async (body) => {
      if (!client) return;
      const result = await client.completeLink(token, body);
      setFunding(result.funding);
      setDone(result.agentId);
      await refresh();
    });
  };

  const deny = async () => {
    if (!client) return;
    await run(async () => {
      await client.denyLink(token);
      setDenied(true);
    });
  };

  return (
    <section className="card link-page" aria-labelledby="link-title">
      <h2 id="link-title">Link a terminal</h2>
      <ErrorNote error={error} />
      {details && (
        <>
          <p>
            <strong>{String(details.client.name ?? 'A command-line client')}</strong>
            {details.client.user ? ` (user ${String(details.client.user)})` : ''}
            {details.client.hostname ? ` on ${String(details.client.hostname)}` : ''} asks to act as a new agent of this treasury.
          </p>
          <p className="muted">Check that the terminal shows this code. If it does not, close this page.</p>
          <p className="link-code" data-testid="link-code">
            {details.code}
          </p>
          {denied ? (
            <p className="done" role="status">
              Denied: the terminal is told there is no such request. You can close this page.
            </p>
          ) : done ? (
            <p className="done" role="status">
              Linked as agent <a href={hrefFor({ page: 'agent', agentId: done })}>{done}</a>. The terminal picks up its key now; you can
              close this page.
            </p>
          ) : null}
          {done && <FundingNote funding={funding} />}
          {denied || done ? null : details.status !== 'pending' ? (
            <p className="error-note" role="alert">
              This link request is {details.status}. Run <code>coffer link</code> again for a new one.
            </p>
          ) : (
            <form onSubmit={submit} noValidate>
              <NewAgentFields form={form} onChange={setForm} idPrefix="link" invalid={invalid} />
              <div className="form-actions">
                <button type="submit" className="button primary" disabled={busy}>
                  {busy ? 'Linking…' : 'Link this terminal'}
                </button>
                <button type="button" className="button" disabled={busy} onClick={deny}>
                  Deny
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </section>
  );
}
