/**
 * Port: a facilitator's x402 Bazaar discovery list, read over HTTP (`GET <facilitator>/discovery/resources`,
 * the path and query the official `withBazaar` client uses). The adapter only moves bytes: it answers
 * the page's JSON as it came, unread; the core validates every field of it (bazaar-listing.ts).
 */
export interface DiscoveryReader {
  /**
   * One page of the list. Throws a CofferError: `bazaar_unreachable` (no answer, or not 2xx),
   * `bazaar_answer_too_large` (past the byte cap), `bazaar_bad_answer` (not JSON), or the signal's
   * reason once it is aborted (the core's deadline: `bazaar_timeout`).
   */
  readPage(facilitator: string, page: { limit: number; offset: number }, signal: AbortSignal): Promise<unknown>;
}
