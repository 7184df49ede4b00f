/**
 * The dashboard's sign-in, held by this page only. sessionStorage is kept per origin (scheme, host and
 * port), so no other program on another 127.0.0.1 port, and no other site, can read it; and it is
 * sent only by this page's own requests, in the Authorization header. A cookie would be sent by the
 * browser to every 127.0.0.1 port it visits. It lasts for this tab (a reload keeps it); a new tab
 * signs in with a new login link.
 */
const KEY = 'coffer.session';

export const sessionToken = (): string | null => {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
};

export const keepSessionToken = (token: string): void => sessionStorage.setItem(KEY, token);

export const forgetSessionToken = (): void => sessionStorage.removeItem(KEY);

/** The header that signs a request in, when signed in. */
export const authorization = (): Record<string, string> => {
  const token = sessionToken();
  return token === null ? {} : { authorization: `Bearer ${token}` };
};
