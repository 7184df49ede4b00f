import { useEffect, useRef, useState } from 'react';
import type { PolicyWhatIf } from '../api/types.js';
import type { PolicyUpdate } from '../lib/policy-form.js';
import { dateTime } from '../lib/time.js';
import { holdWords, whatIfWords } from '../lib/what-if.js';
import { Money } from './Money.js';

/** How long the owner's typing rests before the change is tried (one request per pause, not per key). */
export const WHAT_IF_DELAY_MS = 600;

type Shown = { state: 'trying' } | { state: 'done'; whatIf: PolicyWhatIf } | { state: 'failed'; message: string };

/**
 * "Try on the last 30 days": the very update Save would send (a valid change; nothing while there is
 * none), tried on the agent's last 30 days of payments once the typing rests, and what it would have
 * refused: how many and how much, by reason, and the first five, their times in the owner's zone; and
 * how many of the rest it would have held for the owner's yes (askAbove, askNewRecipient).
 * An answer to an older draft is dropped.
 */
export function WhatIfPreview({
  update,
  timeZone,
  tryUpdate,
}: {
  update: PolicyUpdate | null;
  timeZone: string;
  tryUpdate: (update: PolicyUpdate) => Promise<PolicyWhatIf>;
}) {
  const [shown, setShown] = useState<Shown | null>(null);
  const key = update === null ? null : JSON.stringify(update);
  // The page makes a new function at each of its renders (every refresh of the dashboard): the latest
  // is used, and only a new update tries again.
  const tryLatest = useRef(tryUpdate);
  useEffect(() => {
    tryLatest.current = tryUpdate;
  });
  useEffect(() => {
    setShown(null);
    if (key === null) return;
    let current = true;
    const timer = setTimeout(() => {
      setShown({ state: 'trying' });
      tryLatest.current(JSON.parse(key) as PolicyUpdate).then(
        (whatIf) => current && setShown({ state: 'done', whatIf }),
        (error: unknown) => current && setShown({ state: 'failed', message: error instanceof Error ? error.message : String(error) }),
      );
    }, WHAT_IF_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key]);

  if (shown === null) return null;
  // What the change would have held for the owner, said where it holds some, or asks about any.
  const asks = update !== null && ((update.askAbove ?? null) !== null || update.askNewRecipient === true);
  const held = shown.state === 'done' ? holdWords(shown.whatIf, asks) : null;
  return (
    <div className="what-if" aria-live="polite" aria-busy={shown.state === 'trying'} data-testid="policy-what-if">
      {shown.state === 'trying' && <p className="muted">Trying this change on the last 30 days…</p>}
      {shown.state === 'failed' && <p className="what-if-error">Could not try this change on the last 30 days: {shown.message}</p>}
      {shown.state === 'done' && (
        <>
          <p className="what-if-summary">{whatIfWords(shown.whatIf)}</p>
          {held !== null && (
            <p className="what-if-held" data-testid="what-if-held">
              {held}
            </p>
          )}
          {shown.whatIf.wouldRefuse.examples.length > 0 && (
            <ul className="what-if-examples" aria-label="Payments it would have refused">
              {shown.whatIf.wouldRefuse.examples.slice(0, 5).map((example) => (
                <li key={example.paymentId} data-testid="what-if-example">
                  <time dateTime={example.at}>{dateTime(example.at, timeZone)}</time> · <code>{example.service}</code> ·{' '}
                  <Money value={example.amount} /> · {example.message}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}
