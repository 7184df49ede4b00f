import { randomBytes, createHash } from 'node:crypto';
import type { SignedIn, SignInStore } from '../store/sign-in-store.js';

const LOGIN_TOKEN_TTL_MS = 10 * 60 * 1000;
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** The dashboard's credential: sent as `Authorization: Bearer cof_ses_...`, never as a cookie. */
export const SESSION_TOKEN_PREFIX = 'cof_ses_';

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

export type Redemption = { ok: true; sessionToken: string; session: SignedIn } | { ok: false; reason: 'used' | 'expired' };

/**
 * Dashboard sign-in. `serve` prints a one-time login URL; the page it opens trades the token for a
 * session token, which the page keeps in sessionStorage and sends in the Authorization header.
 *
 * Security invariant: nothing the browser sends on its own carries the sign-in. Cookies are not kept
 * apart by port, so a cookie would reach any program listening on another 127.0.0.1 port the browser
 * visits; sessionStorage and a header are per origin (scheme, host and port), so only this page holds
 * and sends the session. Tokens are kept only as hashes (in the data dir's database, so a restart of
 * the server signs no one out), so neither the database nor a heap dump hands out sessions.
 */
export class DashboardSessions {
  private readonly signOutListeners = new Set<() => void>();

  constructor(
    private readonly now: () => number,
    private readonly store: SignInStore,
  ) {}

  /**
   * A one-time login token. `mintedBy` is the sign-in time of the dashboard session that asks, if one
   * does: the session it signs in to counts as signed in then, and ends when that one would, so a
   * session that mints links for itself never becomes fresh again nor outlives its 12 hours. The
   * owner key (`coffer open`, the tray) mints a new sign-in.
   */
  issueLoginToken(owner: string, mintedBy: { signedInAt: number } | null = null): string {
    this.store.forgetExpired(this.now());
    const token = randomBytes(24).toString('base64url');
    this.store.putLoginToken(digest(token), {
      owner,
      expiresAt: this.now() + LOGIN_TOKEN_TTL_MS,
      signedInAt: mintedBy?.signedInAt ?? null,
    });
    return token;
  }

  /**
   * Single use: the token is spent by the first attempt, whatever its outcome. A used token is
   * remembered until it would have expired, to say "used" rather than "expired".
   */
  redeemLoginToken(token: string): Redemption {
    const hash = digest(token);
    const entry = this.store.loginToken(hash);
    if (!entry) return { ok: false, reason: 'expired' };
    if (!this.store.spendLoginToken(hash, this.now())) return { ok: false, reason: 'used' };
    if (entry.expiresAt < this.now()) return { ok: false, reason: 'expired' };
    const sessionToken = `${SESSION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const signedInAt = entry.signedInAt ?? this.now();
    const session: SignedIn = { owner: entry.owner, signedInAt, expiresAt: signedInAt + SESSION_TTL_MS };
    this.store.putSession(digest(sessionToken), session);
    return { ok: true, sessionToken, session };
  }

  /** Signs a session out: its token is dead at once, and whoever listens (open event streams) is told. */
  signOut(sessionToken: string): boolean {
    if (this.sessionOf(sessionToken) === null) return false;
    this.store.forgetSession(digest(sessionToken));
    for (const listener of this.signOutListeners) listener();
    return true;
  }

  /** Calls `listener` after every sign-out (each stream checks whether it was its own); answers how to stop. */
  onSignOut(listener: () => void): () => void {
    this.signOutListeners.add(listener);
    return () => this.signOutListeners.delete(listener);
  }

  sessionOf(sessionToken: string): SignedIn | null {
    const hash = digest(sessionToken);
    const session = this.store.session(hash);
    if (session === null || session.expiresAt >= this.now()) return session;
    // Gone for good: a clock set back later does not bring it back.
    this.store.forgetSession(hash);
    return null;
  }
}
