import type { SearchResult } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { shortTime } from '../lib/time.js';

type Bazaar = NonNullable<SearchResult['bazaar']>;

/** Why listings were left out, in words (the reasons of server/core/registry/bazaar-listing.ts). */
const LEFT_OUT: Record<string, string> = {
  other_network: 'on other networks',
  not_usdc: 'in another token',
  not_exact: 'in a scheme Coffer does not pay',
  not_http: 'not HTTP APIs (MCP tools)',
  invalid: 'malformed',
  duplicate: 'listed twice',
  over_limit: 'past the first 1,000',
};

/** "3 min ago", "2 h ago": how old the list shown is. */
export const age = (seconds: number) =>
  seconds < 60 ? 'just now' : seconds < 3600 ? `${Math.floor(seconds / 60)} min ago` : `${Math.floor(seconds / 3600)} h ago`;

/** The facilitator as a person names it: its host, and its path when it has one. */
export const facilitatorName = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
};

/**
 * Where the Bazaar's list stands, above the registry's services: whose list, how old, what of it
 * cannot be paid here and why; a warning when the facilitator did not answer (the last good list is
 * shown), or when no list could be read at all. Nothing when Bazaar discovery is off.
 */
export function BazaarStatus({ bazaar }: { bazaar: Bazaar }) {
  const timeZone = useDashboard((s) => s.settings?.timeZone);
  const who = facilitatorName(bazaar.facilitator ?? '');
  const leftOut = Object.entries(bazaar.leftOut ?? {}).filter(([, count]) => count > 0);
  const leftOutCount = leftOut.reduce((sum, [, count]) => sum + count, 0);
  const failed = bazaar.error && (
    <>
      {' '}
      The last read failed at {shortTime(bazaar.error.at, new Date(), timeZone)}: {bazaar.error.message} ({bazaar.error.code}).
    </>
  );
  return (
    <div data-testid="bazaar-status">
      {bazaar.state === 'loading' && <p className="muted">Reading the x402 Bazaar list of {who}…</p>}
      {bazaar.state === 'failed' && (
        <p className="banner error" role="alert">
          No x402 Bazaar list from {who} yet.{failed}
        </p>
      )}
      {(bazaar.state === 'fresh' || bazaar.state === 'stale') && (
        <p className={bazaar.error ? 'banner warning' : 'muted'} role={bazaar.error ? 'alert' : undefined}>
          x402 Bazaar of {who}: {bazaar.listed} service{bazaar.listed === 1 ? '' : 's'} Coffer can pay, read {age(bazaar.ageSeconds ?? 0)}
          {bazaar.state === 'stale' && !bazaar.error ? ' (reading it again)' : ''}.{failed}
          {bazaar.error ? ' Shown: its last good list.' : ''}
        </p>
      )}
      {leftOutCount > 0 && (
        <p className="muted">
          {leftOutCount} more listed there left out: {leftOut.map(([reason, count]) => `${count} ${LEFT_OUT[reason] ?? reason}`).join(', ')}
          .
        </p>
      )}
      {bazaar.note && <p className="muted">{bazaar.note}.</p>}
    </div>
  );
}
