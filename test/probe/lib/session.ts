import { isJsonObject, rawRequest } from './http.js';

/**
 * A signed-in dashboard, however this version of Coffer does it: opening the one-time login URL
 * either sets a `coffer_session` cookie, or serves the page, which trades the URL's token for a
 * session token (`POST /v1/session {loginToken}`) sent as `Authorization: Bearer cof_ses_...`.
 */
export interface DashboardSession {
  kind: 'cookie' | 'token';
  /** The credential's value: the cookie's, or the session token. */
  value: string;
  /** A request as the dashboard page itself sends it (same origin, the headers a browser adds). */
  headers: Record<string, string>;
  /** Only what a browser attaches by itself, replayed by another program: the cookie, no Origin. */
  replay: Record<string, string>;
  /** The answer to using the same login URL a second time (must not sign in again). */
  reuse: () => Promise<{ signedIn: boolean; status: number }>;
}

const cookieOf = (setCookie: unknown) => /coffer_session=([^;]+)/.exec(String(setCookie ?? ''))?.[1];

export async function signIn(base: string, loginUrl: string): Promise<DashboardSession> {
  const url = new URL(loginUrl);
  const path = url.pathname + url.search;
  const browser = { origin: base, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' };
  const opened = await rawRequest(base, { method: 'GET', path, headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' } });
  const cookie = cookieOf(opened.headers['set-cookie']);
  if (cookie) {
    return {
      kind: 'cookie',
      value: cookie,
      headers: { cookie: `coffer_session=${cookie}`, 'x-requested-with': 'coffer', ...browser },
      replay: { cookie: `coffer_session=${cookie}`, 'x-requested-with': 'coffer' },
      reuse: async () => {
        const again = await rawRequest(base, { method: 'GET', path });
        return { signedIn: cookieOf(again.headers['set-cookie']) !== undefined, status: again.status };
      },
    };
  }
  const loginToken = url.searchParams.get('token') ?? '';
  const trade = () =>
    rawRequest(base, {
      method: 'POST',
      path: '/v1/session',
      headers: { 'content-type': 'application/json', ...browser },
      body: JSON.stringify({ loginToken }),
    });
  const traded = await trade();
  const token = isJsonObject(traded.json) && typeof traded.json.sessionToken === 'string' ? traded.json.sessionToken : null;
  if (token === null)
    throw new Error(
      `the login URL gave neither a session cookie (${opened.status}) nor a session token (${traded.status} ${traded.text.slice(0, 120)})`,
    );
  return {
    kind: 'token',
    value: token,
    headers: { authorization: `Bearer ${token}`, 'x-requested-with': 'coffer', ...browser },
    // A program that read the browser's storage and tries it the way a cookie would travel.
    replay: { cookie: `coffer_session=${token}`, 'x-requested-with': 'coffer' },
    reuse: async () => {
      const again = await trade();
      return { signedIn: isJsonObject(again.json) && typeof again.json.sessionToken === 'string', status: again.status };
    },
  };
}
