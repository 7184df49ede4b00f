/**
 * The dashboard's sign-ins, kept in the data dir's database: the port the HTTP door's sessions
 * (server/http/sessions.ts) talk through, owned here with its SQLite adapter.
 */
import type { SqliteDatabase } from './sqlite-driver.js';

export interface SignedIn {
  owner: string;
  /** When the login link was used: how fresh the sign-in is (key-issuing actions want a fresh one). */
  signedInAt: number;
  expiresAt: number;
}

export interface LoginTokenEntry {
  owner: string;
  expiresAt: number;
  usedAt: number | null;
  /** When the session that minted it signed in; null when the owner key did (a new sign-in). */
  signedInAt: number | null;
}

/** Where sign-ins are kept, by the SHA-256 of their token: the data dir's database. */
export interface SignInStore {
  putLoginToken(hash: string, entry: { owner: string; expiresAt: number; signedInAt: number | null }): void;
  loginToken(hash: string): LoginTokenEntry | null;
  /** Marks a login token used; false when it was used already (single use, atomically). */
  spendLoginToken(hash: string, at: number): boolean;
  putSession(hash: string, session: SignedIn): void;
  session(hash: string): SignedIn | null;
  forgetSession(hash: string): void;
  forgetExpired(now: number): void;
}

/** The dashboard's login tokens and sessions in SQLite, by the hash of their token. */
export function createSqliteSignInStore(db: SqliteDatabase): SignInStore {
  const putLoginToken = db.prepare(
    'INSERT INTO dashboard_login_tokens (token_hash, owner, expires_at, used_at, signed_in_at) VALUES (?, ?, ?, NULL, ?)',
  );
  const loginToken = db.prepare(
    'SELECT owner, expires_at AS expiresAt, used_at AS usedAt, signed_in_at AS signedInAt FROM dashboard_login_tokens WHERE token_hash = ?',
  );
  const spendLoginToken = db.prepare('UPDATE dashboard_login_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL');
  const putSession = db.prepare('INSERT INTO dashboard_sessions (token_hash, owner, signed_in_at, expires_at) VALUES (?, ?, ?, ?)');
  const session = db.prepare(
    'SELECT owner, signed_in_at AS signedInAt, expires_at AS expiresAt FROM dashboard_sessions WHERE token_hash = ?',
  );
  const forgetSession = db.prepare('DELETE FROM dashboard_sessions WHERE token_hash = ?');
  const forgetLoginTokens = db.prepare('DELETE FROM dashboard_login_tokens WHERE expires_at < ?');
  const forgetSessions = db.prepare('DELETE FROM dashboard_sessions WHERE expires_at < ?');
  return {
    putLoginToken: (hash, entry) => void putLoginToken.run(hash, entry.owner, entry.expiresAt, entry.signedInAt),
    loginToken: (hash) => (loginToken.get(hash) as LoginTokenEntry | undefined) ?? null,
    spendLoginToken: (hash, at) => spendLoginToken.run(at, hash).changes === 1,
    putSession: (hash, signedIn) => void putSession.run(hash, signedIn.owner, signedIn.signedInAt, signedIn.expiresAt),
    session: (hash) => (session.get(hash) as SignedIn | undefined) ?? null,
    forgetSession: (hash) => void forgetSession.run(hash),
    forgetExpired: (now) => {
      forgetLoginTokens.run(now);
      forgetSessions.run(now);
    },
  };
}
