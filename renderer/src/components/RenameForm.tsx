import { useEffect, useState, type FormEvent } from 'react';
import { displayNameSchema } from '../../../server/wire/schemas.js';
import { useDashboard } from '../state/store.js';
import { ErrorNote } from './ErrorNote.js';

/** An agent's display name, changed: checked with the server's own schema first. */
export function RenameForm({ agentId, current }: { agentId: string; current: string }) {
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
