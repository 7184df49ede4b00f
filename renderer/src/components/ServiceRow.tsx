import type { Service } from '../api/types.js';
import { urlBreaks } from '../lib/registry.js';
import { railsOf } from '../../../server/wire/registry-listing.js';
import { railName } from '../../../server/wire/rail-words.js';
import { shortTime } from '../lib/time.js';
import { facilitatorName } from './BazaarStatus.js';
import { ExampleTag } from './ExampleTag.js';
import { Money } from './Money.js';

const SOURCE: Record<string, string> = {
  'svc-native': 'Coffer',
  'model-registry': 'Model',
  // An API that answers HTTP 402 (Coffer's own terms, or an x402 offer): fetch_paid and coffer fetch pay either.
  'x402-marketplace': 'Paid API',
  'x402-bazaar': 'x402 Bazaar',
};

/** One service agents can pay: what it is (and, from the Bazaar, where it was found), its kind, its price and its endpoint. */
export function ServiceRow({ service: s, timeZone }: { service: Service; timeZone: string | undefined }) {
  return (
    <tr data-testid={`service-${s.id}`}>
      <td>
        <strong>{s.name}</strong> <code>{s.id}</code>
        <ExampleTag endpoint={s.endpoint} />
        <div className="muted">{s.description}</div>
        {s.discovery && (
          <div className="muted" data-testid="origin">
            Found in the x402 Bazaar of {facilitatorName(s.discovery.facilitator)}
            {s.discovery.lastUpdated ? `, listed there ${shortTime(s.discovery.lastUpdated, new Date(), timeZone)}` : ''}; paid with x402,
            allowed by its recipient
          </div>
        )}
      </td>
      <td>
        <span className="nowrap">{SOURCE[s.source] ?? s.source}</span> · <span className="nowrap">{s.category}</span>
        {s.base && (
          <div className="muted nowrap" data-testid="rails">
            paid on {railsOf(s).map(railName).join(' or ')}
          </div>
        )}
      </td>
      <td className="nowrap">
        {s.pricePerCall ? (
          <>
            <Money value={s.pricePerCall} /> a call
          </>
        ) : (
          Object.entries(s.pricing).map(([resolution, price]) => (
            <div key={resolution}>
              {resolution}: <Money value={price} />
            </div>
          ))
        )}
      </td>
      <td>
        <code className="endpoint">
          {urlBreaks(s.endpoint).map((part, i) => (
            <span key={i}>
              {part}
              <wbr />
            </span>
          ))}
        </code>
      </td>
    </tr>
  );
}
