import { useEffect, useMemo, useState, type FormEvent } from 'react';
import {
  createFirstStartClient,
  type BackupFileReceived,
  type FirstStartClient,
  type FirstStartStatus,
} from '../../../server/client/first-start-client.js';
import { formatByteSize } from '../../../server/wire/byte-size.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { useAction } from '../lib/use-action.js';
import { dateTime } from '../lib/time.js';

/** The setup token: from the URL the desktop app opened (then dropped from the address bar), kept for this tab. */
const TOKEN_KEY = 'coffer-setup-token';
function takeSetupToken(): string | null {
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    window.history.replaceState(null, '', '/setup');
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/**
 * The first start of Coffer on a computer (`/setup`, served before any treasury exists): start a new
 * treasury, or restore one from a backup file or the recovery phrase. Once the owner has chosen, the
 * desktop app starts Coffer and shows the dashboard in this window.
 */
export function FirstStartPage() {
  const client = useMemo(() => {
    const token = takeSetupToken();
    return token === null ? null : createFirstStartClient('', token);
  }, []);
  const [status, setStatus] = useState<FirstStartStatus | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    document.title = 'Welcome · Coffer';
    if (client) client.status().then(setStatus, (error: Error) => setProblem(error.message));
  }, [client]);

  if (!client) {
    return (
      <main className="signed-out">
        <h1>Welcome to Coffer</h1>
        <p>This page sets Coffer up on its first start: open it from Coffer&apos;s own window.</p>
      </main>
    );
  }
  if (status === null) {
    return (
      <main className="signed-out">
        <h1>Welcome to Coffer</h1>
        {problem ? <ErrorNote error={problem} /> : <p className="loading">Loading…</p>}
      </main>
    );
  }
  if (status.state !== 'waiting') {
    return (
      <main className="signed-out">
        <h1>Welcome to Coffer</h1>
        <p role="status">
          {status.state === 'new' ? 'A new treasury is being made.' : `Restored: ${status.restored}.`} Coffer is starting; the dashboard
          opens here in a moment.
        </p>
      </main>
    );
  }
  return (
    <main className="signed-out first-start">
      <h1>Welcome to Coffer</h1>
      <p>
        Coffer keeps USDC for your agents: a treasury, and a wallet, a budget and a brake for each agent. Start a new treasury, or bring
        back one you backed up on this computer or another.
      </p>
      <NewTreasuryCard client={client} status={status} onDone={setStatus} />
      <RestoreFileCard client={client} onDone={setStatus} />
      <RestorePhraseCard client={client} status={status} onDone={setStatus} />
    </main>
  );
}

interface CardProps {
  client: FirstStartClient;
  onDone: (status: FirstStartStatus) => void;
}

function NewTreasuryCard({ client, status, onDone }: CardProps & { status: FirstStartStatus }) {
  const { busy, error, run } = useAction();
  return (
    <section className="card backup" aria-labelledby="new-title">
      <h2 id="new-title">Start a new treasury</h2>
      <p>
        A new treasury on{' '}
        {status.network === null || status.network === 'sim' ? 'the embedded test chain (test USDC, no real money)' : status.network}, with
        a new recovery phrase to write down.
      </p>
      <ErrorNote error={error} />
      <div className="dialog-actions">
        <button
          type="button"
          className="button primary"
          disabled={busy}
          onClick={() => void run(async () => onDone(await client.startNew()))}
        >
          Start a new treasury
        </button>
      </div>
    </section>
  );
}

/** A backup file: chosen, sent, described (its network and date), then opened with its passphrase. */
function RestoreFileCard({ client, onDone }: CardProps) {
  const { busy, error, run } = useAction();
  const [received, setReceived] = useState<BackupFileReceived | null>(null);
  const [passphrase, setPassphrase] = useState('');
  const choose = (file: File | undefined) => {
    setReceived(null);
    if (file) void run(async () => setReceived(await client.sendBackupFile(file)));
  };
  const restore = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => onDone(await client.restoreFile({ passphrase })));
  };
  return (
    <section className="card backup" aria-labelledby="restore-file-title">
      <h2 id="restore-file-title">Restore from a backup file</h2>
      <p>Everything as it was when the file was written: the ledger (policies, history) and every wallet&apos;s key.</p>
      <form onSubmit={restore} className="backup-file">
        <label>
          Backup file (.coffer) <input type="file" accept=".coffer" disabled={busy} onChange={(event) => choose(event.target.files?.[0])} />
        </label>
        {received && (
          <p role="status" data-testid="backup-received">
            A backup of a {received.network} treasury, written {dateTime(received.createdAt)} ({formatByteSize(received.bytes)}).
          </p>
        )}
        <label>
          Its passphrase{' '}
          <input type="password" autoComplete="off" value={passphrase} onChange={(event) => setPassphrase(event.target.value)} />
        </label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="submit" className="button primary" disabled={busy || received === null}>
            {busy && received ? 'Restoring…' : 'Restore'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** The recovery phrase: its wallets are looked for on the chain (devnet or mainnet), then restored. */
function RestorePhraseCard({ client, status, onDone }: CardProps & { status: FirstStartStatus }) {
  const { busy, error, run } = useAction();
  const [phrase, setPhrase] = useState('');
  const [network, setNetwork] = useState<'mainnet' | 'devnet'>('mainnet');
  const fixed = status.network;
  const restore = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => onDone(await client.restorePhrase({ phrase, ...(fixed === null ? { network } : {}) })));
  };
  if (fixed === 'sim') {
    return (
      <section className="card backup" aria-labelledby="restore-phrase-title">
        <h2 id="restore-phrase-title">Restore from the recovery phrase</h2>
        <p>
          Coffer was started for its embedded test chain, whose test money lived only in its data dir: a backup file restores it. A recovery
          phrase finds its wallets on devnet or mainnet: start Coffer for that network to restore from it.
        </p>
      </section>
    );
  }
  return (
    <section className="card backup" aria-labelledby="restore-phrase-title">
      <h2 id="restore-phrase-title">Restore from the recovery phrase</h2>
      <p>
        The treasury and every agent wallet that holds USDC or was used, found on the chain. Policies and history are not in the phrase: the
        agents come back stopped, for you to set up again.
      </p>
      <form onSubmit={restore} className="backup-file">
        <label>
          The 24 (or 12) words{' '}
          <textarea rows={3} autoComplete="off" spellCheck={false} value={phrase} onChange={(event) => setPhrase(event.target.value)} />
        </label>
        {fixed === null ? (
          <fieldset className="network-choice">
            <legend>Where its money is</legend>
            {(['mainnet', 'devnet'] as const).map((choice) => (
              <label key={choice}>
                <input type="radio" name="network" checked={network === choice} onChange={() => setNetwork(choice)} /> {choice}
              </label>
            ))}
          </fieldset>
        ) : (
          <p>On {fixed}, the network Coffer was started for.</p>
        )}
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Looking for its wallets on the chain…' : 'Restore'}
          </button>
        </div>
      </form>
    </section>
  );
}
