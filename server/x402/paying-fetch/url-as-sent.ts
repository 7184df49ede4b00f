/**
 * A URL as fetch sends it: "/a b" as "/a%20b", a bare origin with its "/", no #fragment (fetch never
 * sends one). What payingFetch calls, pays and records, and what a description of the call names.
 * The URL must parse (payingFetch refuses one that does not before this).
 */
export function urlAsSent(asked: string): string {
  const sent = new URL(asked);
  sent.hash = '';
  return sent.href;
}
