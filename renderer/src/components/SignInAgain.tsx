import { useEffect } from 'react';
import { CofferApiError } from '../api/client.js';
import { rememberDestination } from '../state/store.js';
import { CopyButton } from './CopyButton.js';

/** The server refused for a sign-in older than ten minutes (403 confirmation_required): nothing changed. */
export const needsFreshSignIn = (error: unknown): boolean => error instanceof CofferApiError && error.code === 'confirmation_required';

/**
 * What to do when the tab's sign-in is too old for what was asked (a new key, moving money). The tab
 * cannot sign itself in afresh: a login link needs the owner key or a fresh sign-in (POST
 * /v1/session/login-link), and a link a session mints signs in as of that session's own sign-in. So
 * it says how, where the owner stands: the command, copyable, or the tray. This page is remembered,
 * so the tab `coffer open` opens lands on it.
 */
export function SignInAgain({ then }: { then: string }) {
  useEffect(rememberDestination, []);
  return (
    <div className="error-note sign-in-again" role="alert" data-testid="sign-in-again">
      <p>
        This needs a sign-in from the last 10 minutes. Sign in again: run <code>coffer open</code> in a terminal (it opens this page in a
        new tab, signed in afresh), or use the tray app's “Open dashboard”. Then {then}.
      </p>
      <CopyButton text="coffer open" label="Copy the command" />
    </div>
  );
}
