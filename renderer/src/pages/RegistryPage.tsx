import { useEffect, useState } from 'react';
import type { Model, SearchResult } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { Money } from '../components/Money.js';
import { TableHead } from '../components/TableHead.js';
import { ExampleTag } from '../components/ExampleTag.js';
import { BazaarStatus, facilitatorName } from '../components/BazaarStatus.js';
import { shortTime } from '../lib/time.js';

const SOURCE: Record<string, string> = {
  'svc-native': 'Coffer',
  'model-registry': 'Model',
  'x402-marketplace': 'x402 API',
  'x402-bazaar': 'x402 Bazaar',
};

/** A URL that may wrap after its separators, never inside a word. */
function breakable(url: string) {
  return url.split(/(?<=[/?&])/).map((part, i) => (
    <span key={i}>
      {part}
      <wbr />
    </span>
  ));
}

/**
 * The registry: services agents can pay (searchable) and image models with prices per resolution.
 * Each image model is listed once, with its prices, under Image models (the API also lists each one
 * as a service, `model:<id>`, for agents that search there). With Bazaar discovery on, a
 * facilitator's x402 listings follow the catalog's, each saying where it was found, under a line
 * that says how old that list is and what of it was left out.
 */
export function RegistryPage() {
  const client = useDashboard((s) => s.client);
  const timeZone = useDashboard((s) => s.settings?.timeZone);
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<SearchResult | null>(null);
  const [models, setModels] = useState<Model[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!client) return;
    const timer = setTimeout(() => {
      client.searchServices(query).then(setResult, (e: Error) => setError(e.message));
    }, 150);
    return () => clearTimeout(timer);
  }, [client, query]);
  useEffect(() => {
    client?.models().then(
      (r) => setModels(r.models),
      (e: Error) => setError(e.message),
    );
  }, [client]);

  return (
    <>
      <section className="card" aria-labelledby="services-title">
        <h2 id="services-title">Services</h2>
        <label htmlFor="search" className="sr-only">
          Search services
        </label>
        <input
          id="search"
          type="search"
          className="search"
          placeholder="Search: weather, image, translate…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <ErrorNote error={error} />
        {result && (
          <>
            <p className="muted" role="status">
              {services(result).length}
              {result.totalIsCapped ? '+' : ''} service{services(result).length === 1 ? '' : 's'}
              {query ? ` for “${query}”` : ''}
              {services(result).length < result.results.length ? ' (image models: below, with their prices)' : ''}
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
                  {services(result).map((s) => (
                    <tr key={s.id} data-testid={`service-${s.id}`}>
                      <td>
                        <strong>{s.name}</strong> <code>{s.id}</code>
                        <ExampleTag endpoint={s.endpoint} />
                        <div className="muted">{s.description}</div>
                        {s.discovery && (
                          <div className="muted" data-testid="origin">
                            Found in the x402 Bazaar of {facilitatorName(s.discovery.facilitator)}
                            {s.discovery.lastUpdated ? `, listed there ${shortTime(s.discovery.lastUpdated, new Date(), timeZone)}` : ''};
                            paid with x402, allowed by its recipient
                          </div>
                        )}
                      </td>
                      <td>
                        <span className="nowrap">{SOURCE[s.source] ?? s.source}</span> · <span className="nowrap">{s.category}</span>
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
                        <code className="endpoint">{breakable(s.endpoint)}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
      <section className="card" aria-labelledby="models-title">
        <h2 id="models-title">Image models</h2>
        <div className="table-wrap">
          <table>
            <TableHead
              columns={['Model', 'Provider', { label: '1k', num: true }, { label: '2k', num: true }, { label: '4k', num: true }]}
            />
            <tbody>
              {models.map((m) => (
                <tr key={m.id}>
                  <td>
                    <strong>{m.displayName}</strong> <code>{m.id}</code>
                    <div className="muted">{m.description}</div>
                  </td>
                  <td>{m.provider}</td>
                  {(['1k', '2k', '4k'] as const).map((r) => (
                    <td key={r} className="num">
                      {m.pricing[r] ? <Money value={m.pricing[r]} /> : '—'}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}

/** The services to show: every one but the image models, which have their own table with prices. */
const services = (result: SearchResult) => result.results.filter((service) => service.source !== 'model-registry');
