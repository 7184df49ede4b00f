/**
 * The DiscoveryReader port over HTTP: one page of a facilitator's x402 Bazaar discovery list,
 * `GET <facilitator>/discovery/resources?type=http&limit=N&offset=M`, the request the official
 * `withBazaar(new HTTPFacilitatorClient({url})).extensions.bazaar.listResources()` makes. Written here
 * rather than through that client because a discovery list is untrusted input read in the background:
 * this read has a deadline (the caller's signal) and a byte cap, and answers the JSON unread (the core
 * validates it, server/core/registry/bazaar-listing.ts).
 */
import { CofferError } from '../wire/errors.js';
import type { DiscoveryReader } from '../core/ports/discovery.js';

/** The most one page may weigh. */
export const DISCOVERY_PAGE_MAX_BYTES = 4 * 1024 * 1024;

export function createBazaarReader(options: { maxBytes?: number } = {}): DiscoveryReader {
  const maxBytes = options.maxBytes ?? DISCOVERY_PAGE_MAX_BYTES;
  return {
    async readPage(facilitator, page, signal) {
      const url = new URL(`${facilitator}/discovery/resources`);
      url.searchParams.set('type', 'http');
      url.searchParams.set('limit', String(page.limit));
      url.searchParams.set('offset', String(page.offset));
      const where = `the facilitator at ${facilitator}`;
      const aborted = () =>
        signal.reason instanceof CofferError ? signal.reason : new CofferError('bazaar_timeout', `${where} did not answer in time`);
      let response: Response;
      try {
        response = await fetch(url, { headers: { accept: 'application/json' }, signal });
      } catch (error) {
        if (signal.aborted) throw aborted();
        throw new CofferError('bazaar_unreachable', `${where} did not answer (${causeOf(error)})`);
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new CofferError('bazaar_unreachable', `${where} answered HTTP ${response.status} to GET /discovery/resources`);
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (declared > maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw tooLarge(where, maxBytes);
      }
      const text = await readCapped(response, maxBytes, where, signal, aborted);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new CofferError('bazaar_bad_answer', `${where} answered its discovery list with something that is not JSON`);
      }
    },
  };
}

const tooLarge = (where: string, maxBytes: number) =>
  new CofferError('bazaar_answer_too_large', `${where} answered a discovery page over ${maxBytes / (1024 * 1024)} MiB`);

/** The body as text, refused (and the connection dropped) as soon as it passes the cap. */
async function readCapped(
  response: Response,
  maxBytes: number,
  where: string,
  signal: AbortSignal,
  aborted: () => CofferError,
): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(where, maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof CofferError) throw error;
    if (signal.aborted) throw aborted();
    throw new CofferError('bazaar_unreachable', `${where} broke off its discovery list (${causeOf(error)})`);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
