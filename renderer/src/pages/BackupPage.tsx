import { useState, type FormEvent } from 'react';
import type { RecoveryPhrase } from '../api/types.js';
import { backupFileBodySchema, backupScheduleBodySchema } from '../../../server/wire/schemas.js';
import { formatByteSize } from '../../../server/wire/byte-size.js';
import { useBaseOff, useDashboard, useTimeZone } from '../state/store.js';
import { useAction } from '../lib/use-action.js';
import { dateTime } from '../lib/time.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { keylessWalletWords } from '../../../server/wire/rail-words.js';

/** The Back up page: the recovery phrase (the money), the encrypted backup file (everything), and files on a schedule. */
export function BackupPage() {
  return (
    <>
      <RecoveryPhraseCard />
      <BackupFileCard />
      <BackupScheduleCard />
    </>
  );
}

/**
 * The recovery phrase: shown on request (a sign-in from the last ten minutes), kept in this page's
 * memory only while it or its check is on screen (Hide, or the check passed, lets it go), then, the
 * words hidden once the owner says they are written
 * down, three of them typed back from the paper (typed from the screen, a check would prove little;
 * one left empty is named here, before anything is sent). The phrase restores the
 * treasury and every agent wallet, in Coffer or in a wallet app: Phantom and Solflare on Solana,
 * MetaMask on Base (its accounts at m/44'/60'/0'/0/i, docs/BACKUP.md). Base is named where its rail is open.
 */
function RecoveryPhraseCard() {
  const { client, dashboard, refresh } = useDashboard();
  const { busy, error, setError, run } = useAction();
  const [shown, setShown] = useState<RecoveryPhrase | null>(null);
  // The words hidden, three asked back.
  const [checking, setChecking] = useState(false);
  const [typed, setTyped] = useState<Record<number, string>>({});
  const backup = dashboard?.backup;
  const baseOff = useBaseOff();
  const timeZone = useTimeZone();
  if (!dashboard || !backup) return null;
  const rails = baseOff ? '' : ', on Solana and on Base';

  const reveal = () =>
    client &&
    void run(async () => {
      setTyped({});
      setChecking(false);
      setShown(await client.revealRecoveryPhrase());
    });
  const confirm = (event: FormEvent) => {
    event.preventDefault();
    if (!client || !shown) return;
    const empty = shown.confirm.filter((position) => (typed[position] ?? '').trim() === '');
    if (empty.length > 0) {
      const named = empty.map((position) => `word #${position}`);
      setError(`Type ${named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named.at(-1)}`} from your paper first.`);
      return;
    }
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
          {backup.phraseRestores ? 'Backed up' : 'Written down'}
          {backup.confirmedAt ? ` on ${dateTime(backup.confirmedAt, timeZone)}` : ''}
          {backup.phraseRestores ? `: your recovery phrase restores the treasury and every agent wallet${rails}.` : '.'}
        </p>
      )}
      {backup.recoveryPhrase !== 'none' && !shown && (
        <>
          {backup.phraseRestores ? (
            <p>
              One phrase of 24 words restores the treasury and every agent wallet{rails}: on a new computer, or in a wallet app (
              {baseOff ? 'Phantom or Solflare' : 'Phantom or Solflare for Solana, MetaMask for Base'}). Write it on paper and keep it where
              you keep what matters. Anyone who reads it holds all of this money; Coffer never asks for it.
            </p>
          ) : (
            <p data-testid="phrase-on-sim">
              One phrase of 24 words holds the key of the treasury and every agent wallet{rails}. On sim, their test money lives in this
              data dir, which no phrase brings back: the backup file below does.
            </p>
          )}
          <ErrorNote error={error} />
          <button type="button" className="button" onClick={reveal} disabled={busy}>
            {backup.recoveryPhrase === 'confirmed' ? 'Show the recovery phrase again' : 'Show the recovery phrase'}
          </button>
        </>
      )}
      {shown && (
        <>
          {!checking && (
            <>
              <ol className="phrase" aria-label="Recovery phrase">
                {shown.words.map((word, i) => (
                  <li key={i}>
                    <span className="muted">{i + 1}.</span> <code>{word}</code>
                  </li>
                ))}
              </ol>
              <div className="dialog-actions">
                <button type="button" className="button" onClick={() => setShown(null)}>
                  Hide
                </button>
                <button type="button" className="button primary" onClick={() => setChecking(true)}>
                  I have written it down
                </button>
              </div>
            </>
          )}
          {checking && (
            <form onSubmit={confirm} className="phrase-check">
              <p>Type these words from your paper to check it:</p>
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
                <button
                  type="button"
                  className="button"
                  onClick={() => {
                    setError(null);
                    setChecking(false);
                  }}
                >
                  Show the words again
                </button>
                <button type="submit" className="button primary" disabled={busy}>
                  Check
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </section>
  );
}

/**
 * The encrypted backup file: a passphrase typed twice, checked by the server's own rule, then the
 * file the server writes is handed to the browser as a download. The passphrase lives in this form
 * only until the file is written.
 */
function BackupFileCard() {
  const { client, dashboard, refresh } = useDashboard();
  const timeZone = useTimeZone();
  const { busy, error, setError, submit } = useAction();
  const [passphrase, setPassphrase] = useState('');
  const [again, setAgain] = useState('');
  const backup = dashboard?.backup;
  if (!backup) return null;
  const { lastFile } = backup;

  const write = (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    if (passphrase !== again) {
      setError('The two passphrases differ.');
      return;
    }
    void submit(backupFileBodySchema, { passphrase }, async (body) => {
      const { fileName, stream } = await client.backupFile(body);
      saveDownload(await new Response(stream).blob(), fileName ?? 'coffer-backup.coffer');
      setPassphrase('');
      setAgain('');
      await refresh();
    });
  };

  return (
    <section className="card backup" aria-labelledby="backup-file-title">
      <h2 id="backup-file-title">Backup file</h2>
      <p>
        An encrypted file with everything: the ledger (policies, history, approvals) and every wallet&apos;s key. Restore it on this
        computer or another with <code>coffer restore FILE</code>. Keep it off this computer. Without its passphrase it cannot be opened, by
        you or by anyone, and Coffer cannot recover the passphrase.
      </p>
      {(backup.recoveryPhrase === 'none' || !backup.phraseRestores) && !backup.backedUp && (
        <p role="note">
          <strong>Not backed up</strong>:{' '}
          {lastFile !== null
            ? 'an agent was deployed since the last backup file.'
            : backup.recoveryPhrase === 'none'
              ? 'this treasury has no recovery phrase and no backup file yet.'
              : 'on sim, only a backup file brings the test money back, and none was written yet.'}
        </p>
      )}
      {lastFile && (
        <p role="status" data-testid="last-backup-file">
          Last backup file: {dateTime(lastFile.at, timeZone)} ({formatByteSize(lastFile.bytes)}, {lastFile.wallets} wallet keys).
        </p>
      )}
      {lastFile && lastFile.walletsWithoutKey.length > 0 && (
        <p role="alert">
          {lastFile.walletsWithoutKey.length} wallet(s) have no key on this computer, so their money is not in the file:{' '}
          {lastFile.walletsWithoutKey.map(keylessWalletWords).join(', ')}
        </p>
      )}
      <form onSubmit={write} className="backup-file">
        <label>
          Passphrase (12 characters or more){' '}
          <input type="password" autoComplete="new-password" value={passphrase} onChange={(event) => setPassphrase(event.target.value)} />
        </label>
        <label>
          The same again{' '}
          <input type="password" autoComplete="new-password" value={again} onChange={(event) => setAgain(event.target.value)} />
        </label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Writing the backup file…' : 'Download a backup file'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** How often a scheduled backup can be written, as the form offers it (the server takes any 1–720 hours). */
const EVERY_HOURS = [
  { hours: 1, label: 'every hour' },
  { hours: 6, label: 'every 6 hours' },
  { hours: 24, label: 'every day' },
  { hours: 168, label: 'every week' },
];

/**
 * Scheduled backups: a backup file written into a folder (best one another disk or a synced folder
 * keeps) on a period, the newest few kept. The first file is written when the schedule is set, so a
 * folder that does not work is said at once; a later failure shows here and as a notification.
 */
function BackupScheduleCard() {
  const { client, dashboard, refresh } = useDashboard();
  const timeZone = useTimeZone();
  const { busy, error, setError, run, submit } = useAction();
  const schedule = dashboard?.backup?.schedule;
  const [folder, setFolder] = useState(schedule?.folder ?? '');
  const [everyHours, setEveryHours] = useState(schedule?.everyHours ?? 24);
  const [keep, setKeep] = useState(String(schedule?.keep ?? 10));
  const [passphrase, setPassphrase] = useState('');
  const [again, setAgain] = useState('');
  if (schedule === undefined) return null;

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    if (passphrase !== again) {
      setError('The two passphrases differ.');
      return;
    }
    void submit(backupScheduleBodySchema, { folder: folder.trim(), passphrase, everyHours, keep: Number(keep) }, async (body) => {
      await client.setBackupSchedule(body);
      setPassphrase('');
      setAgain('');
      await refresh();
    });
  };
  const turnOff = () =>
    client &&
    void run(async () => {
      await client.clearBackupSchedule();
      await refresh();
    });

  return (
    <section className="card backup" aria-labelledby="backup-schedule-title">
      <h2 id="backup-schedule-title">Scheduled backups</h2>
      {schedule === null ? (
        <p>
          Coffer can write a backup file on its own, into a folder you pick: best one on another disk, or one a sync service copies off this
          computer. It keeps the newest files and removes only older ones it wrote itself.
        </p>
      ) : (
        <>
          <p role="status" data-testid="backup-schedule">
            A backup file{' '}
            {EVERY_HOURS.find((choice) => choice.hours === schedule.everyHours)?.label ?? `every ${schedule.everyHours} hours`} into{' '}
            <code>{schedule.folder}</code>, the newest {schedule.keep} kept. Last written {dateTime(schedule.lastAt, timeZone)}; next{' '}
            {dateTime(schedule.nextAt, timeZone)}.
          </p>
          {schedule.lastError !== null && (
            <p role="alert">
              <strong>The last scheduled backup failed</strong>: {schedule.lastError}. It is tried again within the hour.
            </p>
          )}
        </>
      )}
      <form onSubmit={save} className="backup-file">
        <label>
          Folder (its whole path){' '}
          <input spellCheck={false} value={folder} placeholder="/media/backup/coffer" onChange={(event) => setFolder(event.target.value)} />
        </label>
        <label>
          How often{' '}
          <select value={everyHours} onChange={(event) => setEveryHours(Number(event.target.value))}>
            {EVERY_HOURS.map((choice) => (
              <option key={choice.hours} value={choice.hours}>
                {choice.label}
              </option>
            ))}
            {!EVERY_HOURS.some((choice) => choice.hours === everyHours) && <option value={everyHours}>every {everyHours} hours</option>}
          </select>
        </label>
        <label>
          Files kept <input type="number" min={1} max={100} value={keep} onChange={(event) => setKeep(event.target.value)} />
        </label>
        <label>
          Passphrase for the files (12 characters or more){' '}
          <input type="password" autoComplete="new-password" value={passphrase} onChange={(event) => setPassphrase(event.target.value)} />
        </label>
        <label>
          The same again{' '}
          <input type="password" autoComplete="new-password" value={again} onChange={(event) => setAgain(event.target.value)} />
        </label>
        <ErrorNote error={error} />
        <div className="dialog-actions">
          {schedule !== null && (
            <button type="button" className="button" onClick={turnOff} disabled={busy}>
              Turn off
            </button>
          )}
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Writing the first file…' : schedule === null ? 'Start scheduled backups' : 'Change the schedule'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** Hands a file to the browser's downloads. */
function saveDownload(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
