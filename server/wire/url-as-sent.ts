/**
 * A URL as fetch sends it: "/a b" as "/a%20b", a bare origin with its "/", no #fragment (fetch never
 * sends one). What payingFetch calls, pays and records, what /v1 keeps of an x402 purchase's URL,
 * and what a description of the call names. The URL must parse (both refuse one that does not first).
 */
export function urlAsSent(asked: string): string {
  const sent = new URL(asked);
  sent.hash = '';
  return sent.href;
}
