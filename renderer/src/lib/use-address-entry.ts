import { useState } from 'react';
import { addressProblem, allowedSpelling } from './allowed-services.js';

/**
 * A recipient address being typed to add to "Only these", and why it was not added (if it was not).
 * `add` hands a valid new address to `onAdd` and empties the field.
 */
export function useAddressEntry(allowed: string[], onAdd: (address: string) => void) {
  const [address, setAddress] = useState('');
  const [error, setError] = useState<string | null>(null);
  const type = (text: string) => {
    setAddress(text);
    setError(null);
  };
  const add = () => {
    const text = address.trim();
    const problem = addressProblem(text, allowed);
    setError(problem);
    if (problem !== null) return;
    setAddress('');
    // As the server keeps it, so that the list sent and the list read back are the same.
    onAdd(allowedSpelling(text));
  };
  return { address, error, type, add };
}
