import { useDashboard } from '../state/store.js';

/** What a tab without a session shows: why (signed out, a spent login link), and how to sign in. */
export function SignedOutPage() {
  const signedOut = useDashboard((s) => s.signedOut);
  const signInProblem = useDashboard((s) => s.signInProblem);
  return (
    <main className="signed-out">
      <h1>Sign in to Coffer</h1>
      {signedOut && <p role="status">Signed out: this tab's session no longer works, here or anywhere it was copied.</p>}
      {signInProblem && (
        <p className="error-note" role="alert">
          {signInProblem}
        </p>
      )}
      <p>
        Run <code>coffer open</code> in a terminal (or use the tray app's “Open dashboard”): it opens this page signed in. A login link
        works once, for ten minutes, and signs in this tab only.
      </p>
    </main>
  );
}
