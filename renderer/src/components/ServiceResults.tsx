import type { SearchResult } from '../api/types.js';
import { listedServices } from '../../../server/wire/registry-listing.js';
import { BazaarStatus } from './BazaarStatus.js';
import { ServiceRow } from './ServiceRow.js';
import { TableHead } from './TableHead.js';

/** What a search found: how many services, whether the x402 Bazaar was searched too, and the services. */
export function ServiceResults({ result, query, timeZone }: { result: SearchResult; query: string; timeZone: string | undefined }) {
  const services = listedServices(result);
  return (
    <>
      <p className="muted" role="status">
        {services.length}
        {result.totalIsCapped ? '+' : ''} service{services.length === 1 ? '' : 's'}
        {query ? ` for “${query}”` : ''}
        {services.length < result.results.length ? ' (image models: below, with their prices)' : ''}
      </p>
      {result.bazaar ? (
        <BazaarStatus bazaar={result.bazaar} />
      ) : (
        <p className="muted" data-testid="bazaar-off">
          x402 Bazaar discovery is off: <code>coffer settings --bazaar &lt;facilitator URL&gt;</code> lists a facilitator&apos;s x402
          services here too.
        </p>
      )}
      <div className="table-wrap">
        <table>
          <TableHead columns={['Service', 'Kind', 'Price', 'Endpoint']} />
          <tbody>
            {services.map((s) => (
              <ServiceRow key={s.id} service={s} timeZone={timeZone} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
