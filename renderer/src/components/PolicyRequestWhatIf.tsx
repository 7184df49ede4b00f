import { useEffect, useState } from 'react';
import type { Approval } from '../api/types.js';
import type { PolicyUpdate } from '../lib/policy-form.js';
import { asksOwner } from '../../../server/wire/policy/what-if-words.js';
import { useDashboard, useTimeZone } from '../state/store.js';
import { WhatIfAnswer, whatIfFailed, type WhatIfShown } from './WhatIfAnswer.js';

/**
 * An agent's request to change its own policy (an approval of kind `policy`), tried on its last 30
 * days of payments before the owner decides: the request exactly as it waits (`approval.request`), as
 * the owner (POST /v1/agents/:id/policy/what-if), said as the policy editor says a change
 * (WhatIfAnswer), and plainly when it would have refused and held none. A request no longer valid (the
 * policy moved since) is said in the server's words. Asked once when its card shows, and again only
 * if the approval itself changes: never at a refresh of the page.
 */
export function PolicyRequestWhatIf({ approval }: { approval: Approval }) {
  // Whether there is a client, not which one: a sign-in made again (another tab, a reconnect) hands
  // the store a new client, and that must not ask again.
  const signedIn = useDashboard((s) => s.client !== null);
  const timeZone = useTimeZone();
  const [shown, setShown] = useState<WhatIfShown | null>(null);
  // The approval as far as its what-if goes: a refresh hands the page equal copies, which ask nothing.
  const key = JSON.stringify([approval.approvalId, approval.targetAgentId, approval.request]);
  useEffect(() => {
    const client = useDashboard.getState().client;
    if (!signedIn || !client) return;
    const [, agentId, request] = JSON.parse(key) as [string, string, PolicyUpdate];
    let current = true;
    setShown({ state: 'trying' });
    client.policyWhatIf(agentId, request).then(
      (whatIf) => current && setShown({ state: 'done', whatIf }),
      (error: unknown) => current && setShown(whatIfFailed(error)),
    );
    // An answer for an approval no longer shown, arriving late, is dropped.
    return () => {
      current = false;
    };
  }, [signedIn, key]);

  if (shown === null) return null;
  const titleId = `what-if-title-${approval.approvalId}`;
  return (
    <div
      className="what-if approval-what-if"
      role="group"
      aria-labelledby={titleId}
      aria-live="polite"
      aria-busy={shown.state === 'trying'}
      data-testid="approval-what-if"
    >
      <h3 className="what-if-title" id={titleId}>
        Tried on the last 30 days
      </h3>
      <WhatIfAnswer shown={shown} what="this request" asks={asksOwner(approval.request)} timeZone={timeZone} plainWhenUnchanged />
    </div>
  );
}
