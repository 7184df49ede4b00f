import type { Service } from '../api/types.js';
import { toggled } from '../lib/allowed-services.js';
import type { PolicyDraft } from '../lib/policy-form.js';
import { useAddressEntry } from '../lib/use-address-entry.js';
import { AllowedAddressField } from './AllowedAddressField.js';
import { AllowedServiceOptions } from './AllowedServiceOptions.js';

type ServiceChoice = Pick<PolicyDraft, 'scope' | 'allowedServices'>;

/**
 * Which services may be paid, an explicit choice: any, or only those ticked (registry services or
 * recipient addresses: an address on Solana or Base allows every payment to it, as the server reads
 * `allowedServices`).
 */
export function AllowedServices({
  scope,
  allowed,
  services,
  error,
  onChange,
}: {
  scope: PolicyDraft['scope'];
  allowed: string[];
  services: Service[];
  error: string | undefined;
  onChange: (change: Partial<ServiceChoice>) => void;
}) {
  // Kept while "Any service" is picked, so an address half typed is still there on coming back.
  const entry = useAddressEntry(allowed, (address) => onChange({ allowedServices: [...allowed, address] }));
  return (
    <fieldset className="services" aria-describedby={error ? 'allowedServices-error' : undefined}>
      <legend>Allowed services</legend>
      <label className="check">
        <input type="radio" name="service-scope" checked={scope === 'any'} onChange={() => onChange({ scope: 'any' })} />
        Any service
      </label>
      <label className="check">
        <input type="radio" name="service-scope" checked={scope === 'only'} onChange={() => onChange({ scope: 'only' })} />
        Only these{scope === 'only' ? ` (${allowed.length} picked)` : ''}
      </label>
      {scope === 'only' && (
        <AllowedServiceOptions
          allowed={allowed}
          services={services}
          onToggle={(id) => onChange({ allowedServices: toggled(allowed, id) })}
        />
      )}
      {scope === 'only' && <AllowedAddressField address={entry.address} error={entry.error} onType={entry.type} onAdd={entry.add} />}
      {error && (
        <p className="field-error" id="allowedServices-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
