import { describe, expect, it } from 'vitest';
import { DashboardSessions, SESSION_TOKEN_PREFIX, type Redemption } from '../../../../server/http/sessions.js';
import { FRESH_SIGN_IN_MS, requireFreshSignIn, type Principal } from '../../../../server/core/auth.js';
import { CofferError } from '../../../../server/wire/errors.js';
import { openDatabase } from '../../../../server/store/database.js';
import { createSqliteSignInStore } from '../../../../server/store/sign-in-store.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const OWNER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const OTHER_OWNER = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

function setup(start = 1_750_000_000_000) {
  const clock = { t: start };
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'coffer-sessions-')), 'coffer.db'));
  const sessions = new DashboardSessions(() => clock.t, createSqliteSignInStore(db));
  return { clock, sessions, db };
}

/** The session token of a redemption that must have worked. */
function tokenOf(redemption: Redemption): string {
  if (!redemption.ok) throw new Error(`expected a session, got ${redemption.reason}`);
  return redemption.sessionToken;
}

describe('DashboardSessions login tokens', () => {
  it('a fresh token trades for a session of its owner, signed in now, for 12 hours', () => {
    const { clock, sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    const redeemed = sessions.redeemLoginToken(token);
    expect(redeemed).toEqual({
      ok: true,
      sessionToken: expect.stringMatching(new RegExp(`^${SESSION_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`)),
      session: { owner: OWNER, signedInAt: clock.t, expiresAt: clock.t + 12 * HOUR },
    });
    expect(sessions.sessionOf(tokenOf(redeemed))).toEqual({ owner: OWNER, signedInAt: clock.t, expiresAt: clock.t + 12 * HOUR });
  });

  it('tokens are URL-safe, random and distinct', () => {
    const { sessions } = setup();
    const tokens = Array.from({ length: 50 }, () => sessions.issueLoginToken(OWNER));
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(encodeURIComponent(token)).toBe(token);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('is single use, and a second try says "used", not "expired"', () => {
    const { sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    expect(sessions.redeemLoginToken(token).ok).toBe(true);
    expect(sessions.redeemLoginToken(token)).toEqual({ ok: false, reason: 'used' });
    expect(sessions.redeemLoginToken(token)).toEqual({ ok: false, reason: 'used' });
  });

  it('using one token leaves other tokens usable', () => {
    const { sessions } = setup();
    const first = sessions.issueLoginToken(OWNER);
    const second = sessions.issueLoginToken(OTHER_OWNER);
    expect(sessions.sessionOf(tokenOf(sessions.redeemLoginToken(first)))?.owner).toBe(OWNER);
    expect(sessions.sessionOf(tokenOf(sessions.redeemLoginToken(second)))?.owner).toBe(OTHER_OWNER);
  });

  it('each redemption opens a different session', () => {
    const { sessions } = setup();
    const a = tokenOf(sessions.redeemLoginToken(sessions.issueLoginToken(OWNER)));
    const b = tokenOf(sessions.redeemLoginToken(sessions.issueLoginToken(OWNER)));
    expect(a).not.toBe(b);
    expect(sessions.sessionOf(a)?.owner).toBe(OWNER);
    expect(sessions.sessionOf(b)?.owner).toBe(OWNER);
  });

  it('is still valid just before 10 minutes, and expired after', () => {
    const { clock, sessions } = setup();
    const early = sessions.issueLoginToken(OWNER);
    const late = sessions.issueLoginToken(OWNER);
    clock.t += 10 * MINUTE - 1;
    expect(sessions.redeemLoginToken(early).ok).toBe(true);
    clock.t += 2;
    expect(sessions.redeemLoginToken(late)).toEqual({ ok: false, reason: 'expired' });
  });

  it('an expired attempt uses the token up: it stays unusable even if the clock goes back', () => {
    const { clock, sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    clock.t += 11 * MINUTE;
    expect(sessions.redeemLoginToken(token).ok).toBe(false);
    clock.t -= 11 * MINUTE;
    expect(sessions.redeemLoginToken(token).ok).toBe(false);
  });

  it('rejects unknown tokens and does not accept a session token as a login token, nor the reverse', () => {
    const { sessions } = setup();
    expect(sessions.redeemLoginToken('')).toEqual({ ok: false, reason: 'expired' });
    expect(sessions.redeemLoginToken('not-a-token').ok).toBe(false);
    const sessionToken = tokenOf(sessions.redeemLoginToken(sessions.issueLoginToken(OWNER)));
    expect(sessions.redeemLoginToken(sessionToken).ok).toBe(false);
    const token = sessions.issueLoginToken(OWNER);
    expect(sessions.sessionOf(token)).toBeNull();
    // And asking does not consume it.
    expect(sessions.redeemLoginToken(token).ok).toBe(true);
  });
});

describe('DashboardSessions sessions', () => {
  it('last 12 hours from redemption (not from issue)', () => {
    const { clock, sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    clock.t += 9 * MINUTE;
    const session = tokenOf(sessions.redeemLoginToken(token));
    clock.t += 12 * HOUR - 1;
    expect(sessions.sessionOf(session)?.owner).toBe(OWNER);
  });

  it('expire after 12 hours, and stay gone even if the clock goes back', () => {
    const { clock, sessions } = setup();
    const session = tokenOf(sessions.redeemLoginToken(sessions.issueLoginToken(OWNER)));
    clock.t += 12 * HOUR + 1;
    expect(sessions.sessionOf(session)).toBeNull();
    clock.t -= 13 * HOUR;
    expect(sessions.sessionOf(session)).toBeNull();
  });

  it('unknown or empty session tokens have no owner', () => {
    const { sessions } = setup();
    expect(sessions.sessionOf('')).toBeNull();
    expect(sessions.sessionOf(`${SESSION_TOKEN_PREFIX}forged`)).toBeNull();
  });

  it('outlive a restart of the server: sessions and unused login links are kept (as hashes) in the data dir', () => {
    const { clock, sessions, db } = setup();
    const session = tokenOf(sessions.redeemLoginToken(sessions.issueLoginToken(OWNER)));
    const link = sessions.issueLoginToken(OTHER_OWNER);
    const used = sessions.issueLoginToken(OWNER);
    sessions.redeemLoginToken(used);
    const restarted = new DashboardSessions(() => clock.t, createSqliteSignInStore(db));
    expect(restarted.sessionOf(session)).toMatchObject({ owner: OWNER });
    expect(restarted.redeemLoginToken(used)).toEqual({ ok: false, reason: 'used' });
    expect(tokenOf(restarted.redeemLoginToken(link))).toMatch(new RegExp(`^${SESSION_TOKEN_PREFIX}`));
    const stored =
      JSON.stringify(db.prepare('SELECT * FROM dashboard_sessions').all()) +
      JSON.stringify(db.prepare('SELECT * FROM dashboard_login_tokens').all());
    for (const token of [session, link, used]) expect(stored).not.toContain(token);
  });

  it('instances do not share state', () => {
    const { sessions } = setup();
    const { sessions: other } = setup();
    const token = sessions.issueLoginToken(OWNER);
    expect(other.redeemLoginToken(token).ok).toBe(false);
    expect(other.sessionOf(tokenOf(sessions.redeemLoginToken(sessions.issueLoginToken(OWNER))))).toBeNull();
  });
});

describe('a fresh sign-in for what outlives the session', () => {
  const now = 1_750_000_000_000;
  const signedIn = (ago: number): Principal => ({ kind: 'owner', owner: OWNER, signedInAt: now - ago });

  it('lets the owner key, and a session signed in within 10 minutes, through', () => {
    expect(() => requireFreshSignIn({ kind: 'owner', owner: OWNER }, now)).not.toThrow();
    expect(() => requireFreshSignIn(signedIn(0), now)).not.toThrow();
    expect(() => requireFreshSignIn(signedIn(FRESH_SIGN_IN_MS), now)).not.toThrow();
  });

  it('stops an older session with confirmation_required, saying how to sign in again', () => {
    try {
      requireFreshSignIn(signedIn(FRESH_SIGN_IN_MS + 1), now);
      expect.unreachable('an old session must not pass');
    } catch (error) {
      expect(error).toBeInstanceOf(CofferError);
      expect((error as CofferError).code).toBe('confirmation_required');
      expect((error as CofferError).message).toContain('coffer open');
    }
  });
});
