/**
 * A URL as fetch sends it: "/a b" as "/a%20b", a bare origin with its "/", no #fragment (fetch never
 * sends one). What payingFetch calls, pays and records, what /v1 keeps of an x402 purchase's URL,
 * and what a description of the call names. A URL that does not parse is given back as asked: the
 * caller refuses it (payingFetch, /v1's schema) or names it as the agent typed it (a description).
 */
export function urlAsSent(asked: string): string {
  if (!URL.canParse(asked)) return asked;
  const sent = new URL(asked);
  sent.hash = '';
  return sent.href;
}
