import type { PolicyWhatIf } from '../api/types.js';
import { dateTime } from '../lib/time.js';
import { holdWords, unchangedWords, whatIfWords } from '../../../server/wire/policy/what-if-words.js';
import { Money } from './Money.js';
import { railName } from '../../../server/wire/rail-words.js';

/** Where a what-if stands: asked, answered, or answered with an error (its message). */
export type WhatIfShown = { state: 'trying' } | { state: 'done'; whatIf: PolicyWhatIf } | { state: 'failed'; message: string };

/** A what-if's error in words, as the client's error says it. */
export const whatIfFailed = (error: unknown): WhatIfShown => ({
  state: 'failed',
  message: error instanceof Error ? error.message : String(error),
});

/**
 * A policy change tried on the agent's last 30 days (POST /v1/agents/:id/policy/what-if), in words:
 * how many of its payments it would have refused and how much, by reason, and the first five, their
 * times in the owner's zone; how many of the rest it would have held for the owner's yes (said where
 * it holds some, or `asks`: the change asks the owner first). `what` names the change in the
 * sentences of its trying and failing ("this change", "this request"). With `plainWhenUnchanged`, a
 * change that would have refused and held none says just that, in one sentence.
 * The policy editor's preview (WhatIfPreview) and a policy request in Approvals both show it.
 */
export function WhatIfAnswer({
  shown,
  what,
  asks,
  timeZone,
  plainWhenUnchanged = false,
}: {
  shown: WhatIfShown;
  what: string;
  asks: boolean;
  timeZone: string;
  plainWhenUnchanged?: boolean;
}) {
  if (shown.state === 'trying') return <p className="muted">Trying {what} on the last 30 days…</p>;
  if (shown.state === 'failed') {
    return (
      <p className="what-if-error" data-testid="what-if-error">
        Could not try {what} on the last 30 days: {shown.message}
      </p>
    );
  }
  const { whatIf } = shown;
  const unchanged = plainWhenUnchanged ? unchangedWords(whatIf) : null;
  if (unchanged !== null) return <p className="what-if-summary">{unchanged}</p>;
  const held = holdWords(whatIf, asks);
  return (
    <>
      <p className="what-if-summary">{whatIfWords(whatIf)}</p>
      {held !== null && (
        <p className="what-if-held" data-testid="what-if-held">
          {held}
        </p>
      )}
      {whatIf.wouldRefuse.examples.length > 0 && (
        <ul className="what-if-examples" aria-label="Payments it would have refused">
          {whatIf.wouldRefuse.examples.slice(0, 5).map((example) => (
            <li key={example.paymentId} data-testid="what-if-example">
              <time dateTime={example.at}>{dateTime(example.at, timeZone)}</time> · <code>{example.service}</code> ·{' '}
              <Money value={example.amount} /> on {railName(example.rail)} · {example.message}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
