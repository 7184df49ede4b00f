import { describe, expect, it } from 'vitest';
import { DashboardSessions, SESSION_COOKIE, readCookie } from '../../server/http/sessions.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const OWNER = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const OTHER_OWNER = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

function setup(start = 1_750_000_000_000) {
  const clock = { t: start };
  const sessions = new DashboardSessions(() => clock.t);
  return { clock, sessions };
}

describe('DashboardSessions login tokens', () => {
  it('a fresh token trades for a session of its owner', () => {
    const { sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    const redeemed = sessions.redeemLoginToken(token);
    expect(redeemed).not.toBeNull();
    expect(redeemed!.owner).toBe(OWNER);
    expect(redeemed!.sessionId).toEqual(expect.any(String));
    expect(redeemed!.sessionId.length).toBeGreaterThanOrEqual(32);
    expect(redeemed!.maxAgeSeconds).toBe(12 * 60 * 60);
    expect(sessions.ownerOf(redeemed!.sessionId)).toBe(OWNER);
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

  it('is single use', () => {
    const { sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    expect(sessions.redeemLoginToken(token)).not.toBeNull();
    expect(sessions.redeemLoginToken(token)).toBeNull();
    expect(sessions.redeemLoginToken(token)).toBeNull();
  });

  it('using one token leaves other tokens usable', () => {
    const { sessions } = setup();
    const first = sessions.issueLoginToken(OWNER);
    const second = sessions.issueLoginToken(OTHER_OWNER);
    expect(sessions.redeemLoginToken(first)?.owner).toBe(OWNER);
    expect(sessions.redeemLoginToken(second)?.owner).toBe(OTHER_OWNER);
  });

  it('each redemption opens a different session', () => {
    const { sessions } = setup();
    const a = sessions.redeemLoginToken(sessions.issueLoginToken(OWNER))!;
    const b = sessions.redeemLoginToken(sessions.issueLoginToken(OWNER))!;
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(sessions.ownerOf(a.sessionId)).toBe(OWNER);
    expect(sessions.ownerOf(b.sessionId)).toBe(OWNER);
  });

  it('is still valid just before 10 minutes', () => {
    const { clock, sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    clock.t += 10 * MINUTE - 1;
    expect(sessions.redeemLoginToken(token)?.owner).toBe(OWNER);
  });

  it('expires after 10 minutes', () => {
    const { clock, sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    clock.t += 10 * MINUTE + 1;
    expect(sessions.redeemLoginToken(token)).toBeNull();
  });

  it('an expired attempt uses the token up: it stays unusable even if the clock goes back', () => {
    const { clock, sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    clock.t += 11 * MINUTE;
    expect(sessions.redeemLoginToken(token)).toBeNull();
    clock.t -= 11 * MINUTE;
    expect(sessions.redeemLoginToken(token)).toBeNull();
  });

  it('rejects unknown tokens and does not accept a session id as a login token', () => {
    const { sessions } = setup();
    expect(sessions.redeemLoginToken('')).toBeNull();
    expect(sessions.redeemLoginToken('not-a-token')).toBeNull();
    const { sessionId } = sessions.redeemLoginToken(sessions.issueLoginToken(OWNER))!;
    expect(sessions.redeemLoginToken(sessionId)).toBeNull();
  });

  it('a login token is not a session id', () => {
    const { sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    expect(sessions.ownerOf(token)).toBeNull();
    // And asking does not consume it.
    expect(sessions.redeemLoginToken(token)?.owner).toBe(OWNER);
  });
});

describe('DashboardSessions sessions', () => {
  it('last 12 hours from redemption (not from issue)', () => {
    const { clock, sessions } = setup();
    const token = sessions.issueLoginToken(OWNER);
    clock.t += 9 * MINUTE;
    const { sessionId } = sessions.redeemLoginToken(token)!;
    clock.t += 12 * HOUR - 1;
    expect(sessions.ownerOf(sessionId)).toBe(OWNER);
  });

  it('expire after 12 hours', () => {
    const { clock, sessions } = setup();
    const { sessionId } = sessions.redeemLoginToken(sessions.issueLoginToken(OWNER))!;
    clock.t += 12 * HOUR + 1;
    expect(sessions.ownerOf(sessionId)).toBeNull();
    expect(sessions.ownerOf(sessionId)).toBeNull();
  });

  it('an expired session stays gone even if the clock goes back', () => {
    const { clock, sessions } = setup();
    const { sessionId } = sessions.redeemLoginToken(sessions.issueLoginToken(OWNER))!;
    clock.t += 13 * HOUR;
    expect(sessions.ownerOf(sessionId)).toBeNull();
    clock.t -= 13 * HOUR;
    expect(sessions.ownerOf(sessionId)).toBeNull();
  });

  it('unknown or empty session ids have no owner', () => {
    const { sessions } = setup();
    expect(sessions.ownerOf('')).toBeNull();
    expect(sessions.ownerOf('forged')).toBeNull();
  });

  it('instances do not share state (a restart signs everyone out)', () => {
    const { sessions } = setup();
    const { sessions: restarted } = setup();
    const token = sessions.issueLoginToken(OWNER);
    expect(restarted.redeemLoginToken(token)).toBeNull();
    const { sessionId } = sessions.redeemLoginToken(sessions.issueLoginToken(OWNER))!;
    expect(restarted.ownerOf(sessionId)).toBeNull();
  });
});

describe('readCookie', () => {
  it('uses the coffer_session cookie name', () => {
    expect(SESSION_COOKIE).toBe('coffer_session');
  });

  it.each([
    [undefined, null],
    ['', null],
    ['coffer_session=abc', 'abc'],
    ['a=1; coffer_session=abc; b=2', 'abc'],
    ['a=1;coffer_session=abc;b=2', 'abc'],
    ['  coffer_session=abc  ', 'abc'],
    ['a=1; b=2', null],
    ['xcoffer_session=abc', null],
    ['coffer_session_old=old; coffer_session=new', 'new'],
    ['coffer_sessio=abc', null],
    ['coffer_session=a=b==', 'a=b=='],
    ['coffer_session=', ''],
  ])('readCookie(%j) is %j', (header, value) => {
    expect(readCookie(header, SESSION_COOKIE)).toBe(value);
  });

  it('reads any cookie by name', () => {
    expect(readCookie('theme=dark; lang=en', 'lang')).toBe('en');
    expect(readCookie('theme=dark; lang=en', 'theme')).toBe('dark');
  });
});
