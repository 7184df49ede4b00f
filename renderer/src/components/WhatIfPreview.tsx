import { useEffect, useRef, useState } from 'react';
import type { PolicyWhatIf } from '../api/types.js';
import type { PolicyUpdate } from '../lib/policy-form.js';
import { asksOwner } from '../../../server/wire/policy/what-if-words.js';
import { WhatIfAnswer, whatIfFailed, type WhatIfShown } from './WhatIfAnswer.js';

/** How long the owner's typing rests before the change is tried (one request per pause, not per key). */
export const WHAT_IF_DELAY_MS = 600;

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
  const [shown, setShown] = useState<WhatIfShown | null>(null);
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
        (error: unknown) => current && setShown(whatIfFailed(error)),
      );
    }, WHAT_IF_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [key]);

  if (shown === null) return null;
  return (
    <div className="what-if" aria-live="polite" aria-busy={shown.state === 'trying'} data-testid="policy-what-if">
      <WhatIfAnswer shown={shown} what="this change" asks={update !== null && asksOwner(update)} timeZone={timeZone} />
    </div>
  );
}
