import { useState, type FormEvent } from 'react';
import type { RecoveryPhrase } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { useAction } from '../lib/use-action.js';
import { dateTime } from '../lib/time.js';
import { ErrorNote } from '../components/ErrorNote.js';

/**
 * The recovery phrase: shown on request (a sign-in from the last ten minutes), kept in this page's
 * memory only while it is on screen, then three of its words typed back. The phrase restores the
 * treasury and every agent wallet, in Coffer or in Phantom and Solflare.
 */
export function BackupPage() {
  const { client, dashboard, refresh } = useDashboard();
  const { busy, error, run } = useAction();
  const [shown, setShown] = useState<RecoveryPhrase | null>(null);
  const [typed, setTyped] = useState<Record<number, string>>({});
  const backup = dashboard?.backup;
  if (!dashboard || !backup) return null;

  const reveal = () =>
    client &&
    void run(async () => {
      setTyped({});
      setShown(await client.revealRecoveryPhrase());
    });
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!client || !shown) return;
    void run(async () => {
      await client.confirmRecoveryPhrase({ words: shown.confirm.map((position) => ({ position, word: typed[position] ?? '' })) });
      setShown(null);
      await refresh();
    });
  };

  return (
    <section className="card backup" aria-labelledby="backup-title">
      <h2 id="backup-title">Back up your treasury</h2>
      {backup.recoveryPhrase === 'none' && (
        <p>This treasury was made before recovery phrases: its wallets are backed up with an encrypted backup file.</p>
      )}
      {backup.recoveryPhrase === 'confirmed' && !shown && (
        <p role="status">
          Backed up{backup.confirmedAt ? ` on ${dateTime(backup.confirmedAt)}` : ''}: your recovery phrase restores the treasury and every
          agent wallet.
        </p>
      )}
      {backup.recoveryPhrase !== 'none' && !shown && (
        <>
          <p>
            One phrase of 24 words restores the treasury and every agent wallet, on a new computer or in Phantom and Solflare. Write it on
            paper and keep it where you keep what matters. Anyone who reads it holds all of this money; Coffer never asks for it.
          </p>
          <ErrorNote error={error} />
          <button type="button" className="button" onClick={reveal} disabled={busy}>
            {backup.recoveryPhrase === 'confirmed' ? 'Show the recovery phrase again' : 'Show the recovery phrase'}
          </button>
        </>
      )}
      {shown && (
        <>
          <ol className="phrase" aria-label="Recovery phrase">
            {shown.words.map((word, i) => (
              <li key={i}>
                <span className="muted">{i + 1}.</span> <code>{word}</code>
              </li>
            ))}
          </ol>
          <form onSubmit={confirm} className="phrase-check">
            <p>Written down? Type these words to check:</p>
            {shown.confirm.map((position) => (
              <label key={position}>
                Word #{position}{' '}
                <input
                  autoComplete="off"
                  spellCheck={false}
                  value={typed[position] ?? ''}
                  onChange={(event) => setTyped({ ...typed, [position]: event.target.value })}
                />
              </label>
            ))}
            <ErrorNote error={error} />
            <div className="dialog-actions">
              <button type="button" className="button" onClick={() => setShown(null)}>
                Hide
              </button>
              <button type="submit" className="button primary" disabled={busy}>
                Check
              </button>
            </div>
          </form>
        </>
      )}
    </section>
  );
}
