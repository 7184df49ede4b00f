import type { Service } from '../api/types.js';
import { unlistedEntries } from '../lib/allowed-services.js';
import { ExampleTag } from './ExampleTag.js';

/**
 * What "Only these" may tick: the recipient addresses allowed (first: the list of services may be
 * long, and scrolls), the registry's services, then allowed entries the registry does not list.
 */
export function AllowedServiceOptions({
  allowed,
  services,
  onToggle,
}: {
  allowed: string[];
  services: Service[];
  onToggle: (id: string) => void;
}) {
  const { addresses, unknown } = unlistedEntries(allowed, services);
  return (
    <div className="service-options">
      {addresses.map((id) => (
        <div key={id} className="allowed-address" data-testid={`allowed-address-${id}`}>
          <span>
            Every payment to <code className="address">{id}</code>
          </span>
          <button type="button" className="button small" aria-label={`Remove ${id}`} onClick={() => onToggle(id)}>
            Remove
          </button>
        </div>
      ))}
      {services.map((service) => (
        <label key={service.id} className="check">
          <input type="checkbox" checked={allowed.includes(service.id)} onChange={() => onToggle(service.id)} />
          {service.name} <code>{service.id}</code>
          <ExampleTag endpoint={service.endpoint} />
        </label>
      ))}
      {unknown.map((id) => (
        <label key={id} className="check">
          <input type="checkbox" checked onChange={() => onToggle(id)} />
          <code>{id}</code> (not in the registry)
        </label>
      ))}
    </div>
  );
}
