import { randomBytes, createHash } from 'node:crypto';

const LOGIN_TOKEN_TTL_MS = 10 * 60 * 1000;
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const SESSION_COOKIE = 'coffer_session';

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Dashboard sign-in: `serve` prints a one-time login URL; opening it trades the token for an
 * HttpOnly, SameSite=Strict session cookie. Both live in memory only (a restart signs everyone out)
 * and are kept as hashes, so a heap dump does not hand out sessions.
 */
export class DashboardSessions {
  private readonly loginTokens = new Map<string, { owner: string; expiresAt: number }>();
  private readonly sessions = new Map<string, { owner: string; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  issueLoginToken(owner: string): string {
    const token = randomBytes(24).toString('base64url');
    this.loginTokens.set(digest(token), { owner, expiresAt: this.now() + LOGIN_TOKEN_TTL_MS });
    return token;
  }

  /** Single use: the token is gone after the first attempt, whatever its outcome. */
  redeemLoginToken(token: string): { sessionId: string; owner: string; maxAgeSeconds: number } | null {
    const key = digest(token);
    const entry = this.loginTokens.get(key);
    this.loginTokens.delete(key);
    if (!entry || entry.expiresAt < this.now()) return null;
    return { ...this.issueSession(entry.owner), owner: entry.owner };
  }

  /** A session straight away, for the desktop window: the main process sets it as a cookie. */
  issueSession(owner: string): { sessionId: string; maxAgeSeconds: number } {
    const sessionId = randomBytes(32).toString('base64url');
    this.sessions.set(digest(sessionId), { owner, expiresAt: this.now() + SESSION_TTL_MS });
    return { sessionId, maxAgeSeconds: SESSION_TTL_MS / 1000 };
  }

  ownerOf(sessionId: string): string | null {
    const entry = this.sessions.get(digest(sessionId));
    if (!entry) return null;
    if (entry.expiresAt < this.now()) {
      this.sessions.delete(digest(sessionId));
      return null;
    }
    return entry.owner;
  }
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}
