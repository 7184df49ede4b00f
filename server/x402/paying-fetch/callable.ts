/**
 * Whether a call can be made as asked, before anything is called: payingFetch calls the web's APIs
 * over HTTP, so a `file:` or `data:` URL is no call it makes (`data:` would answer without any server),
 * a password in a URL is refused by fetch itself (and would be repeated in the words of its failure),
 * and a header no HTTP request carries is the caller's mistake, not the host out of reach.
 */
import { PaymentError } from './payment-error.js';

const NOTHING = 'nothing was called or paid';

export function checkCallable(url: string, init: RequestInit): void {
  // The URL is never repeated: what is not a URL, or carries a password, may hold a secret.
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (parsed === null) throw new PaymentError('invalid_request', `the URL is not a URL: ${NOTHING}`);
  if (parsed.username !== '' || parsed.password !== '') {
    throw new PaymentError(
      'invalid_request',
      `the URL carries a user name or password, which no request sends in its URL: send credentials in a header (${NOTHING})`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PaymentError('invalid_request', `the URL is ${JSON.stringify(parsed.protocol)}, not http or https: ${NOTHING}`);
  }
  const bad = uncarriedHeader(init.headers);
  if (bad !== null) {
    throw new PaymentError(
      'invalid_request',
      `the header ${JSON.stringify(bad.slice(0, 100))} is one no HTTP request can carry (a name that is not one word, or a line break or control character in its value): ${NOTHING}`,
    );
  }
}

/** The name of the first header fetch would refuse to send; null where it sends them all. Its value is not repeated (a line break in it would be). */
function uncarriedHeader(headers: RequestInit['headers']): string | null {
  if (headers === undefined || headers instanceof Headers) return null;
  const pairs = Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of pairs) {
    try {
      new Headers([[String(name), String(value)]]);
    } catch {
      return String(name);
    }
  }
  return null;
}
