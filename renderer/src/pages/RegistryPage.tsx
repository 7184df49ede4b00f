import { useState } from 'react';
import { useDashboard } from '../state/store.js';
import { useRegistry } from '../lib/use-registry.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { ModelTable } from '../components/ModelTable.js';
import { ServiceResults } from '../components/ServiceResults.js';

/**
 * The registry: services agents can pay (searchable) and image models with prices per resolution.
 * Each image model is listed once, with its prices, under Image models (the API also lists each one
 * as a service, `model:<id>`, for agents that search there). With Bazaar discovery on, a
 * facilitator's x402 listings follow the catalog's, each saying where it was found, under a line
 * that says how old that list is and what of it was left out.
 */
export function RegistryPage() {
  const timeZone = useDashboard((s) => s.settings?.timeZone);
  const [query, setQuery] = useState('');
  const { result, models, error } = useRegistry(query);
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
        {result && <ServiceResults result={result} query={query} timeZone={timeZone} />}
      </section>
      <section className="card" aria-labelledby="models-title">
        <h2 id="models-title">Image models</h2>
        <ModelTable models={models} />
      </section>
    </>
  );
}
