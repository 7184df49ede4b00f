import { randomBytes, createHash } from 'node:crypto';

const LOGIN_TOKEN_TTL_MS = 10 * 60 * 1000;
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** The dashboard's credential: sent as `Authorization: Bearer cof_ses_...`, never as a cookie. */
export const SESSION_TOKEN_PREFIX = 'cof_ses_';

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

export interface SignedIn {
  owner: string;
  /** When the login link was used: how fresh the sign-in is (key-issuing actions want a fresh one). */
  signedInAt: number;
  expiresAt: number;
}

export type Redemption = { ok: true; sessionToken: string; session: SignedIn } | { ok: false; reason: 'used' | 'expired' };

/**
 * Dashboard sign-in. `serve` prints a one-time login URL; the page it opens trades the token for a
 * session token, which the page keeps in sessionStorage and sends in the Authorization header.
 *
 * Security invariant: nothing the browser sends on its own carries the sign-in. Cookies are not kept
 * apart by port, so a cookie would reach any program listening on another 127.0.0.1 port the browser
 * visits; sessionStorage and a header are per origin (scheme, host and port), so only this page holds
 * and sends the session. Tokens live in memory only and are kept as hashes, so a heap dump does not
 * hand out sessions.
 */
export class DashboardSessions {
  private readonly loginTokens = new Map<string, { owner: string; expiresAt: number; usedAt: number | null }>();
  private readonly sessions = new Map<string, SignedIn>();

  constructor(private readonly now: () => number) {}

  issueLoginToken(owner: string): string {
    this.forgetExpired();
    const token = randomBytes(24).toString('base64url');
    this.loginTokens.set(digest(token), { owner, expiresAt: this.now() + LOGIN_TOKEN_TTL_MS, usedAt: null });
    return token;
  }

  /** Single use: the token is spent by the first attempt, whatever its outcome. */
  redeemLoginToken(token: string): Redemption {
    const entry = this.loginTokens.get(digest(token));
    if (!entry) return { ok: false, reason: 'expired' };
    if (entry.usedAt !== null) return { ok: false, reason: 'used' };
    entry.usedAt = this.now();
    if (entry.expiresAt < this.now()) return { ok: false, reason: 'expired' };
    const sessionToken = `${SESSION_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const session: SignedIn = { owner: entry.owner, signedInAt: this.now(), expiresAt: this.now() + SESSION_TTL_MS };
    this.sessions.set(digest(sessionToken), session);
    return { ok: true, sessionToken, session };
  }

  sessionOf(sessionToken: string): SignedIn | null {
    const key = digest(sessionToken);
    const session = this.sessions.get(key);
    if (!session) return null;
    if (session.expiresAt < this.now()) {
      this.sessions.delete(key);
      return null;
    }
    return session;
  }

  /** A used login token is remembered until it would have expired, to say "used" rather than "expired". */
  private forgetExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.loginTokens) if (entry.expiresAt < now) this.loginTokens.delete(key);
    for (const [key, session] of this.sessions) if (session.expiresAt < now) this.sessions.delete(key);
  }
}
