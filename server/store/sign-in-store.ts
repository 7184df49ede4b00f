import type { SqliteDatabase } from './database.js';
import type { LoginTokenEntry, SignInStore, SignedIn } from '../http/sessions.js';

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
