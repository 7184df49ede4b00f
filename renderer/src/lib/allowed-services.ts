import { isSolanaAddress } from '../../../server/wire/rails.js';
import type { Service } from '../api/types.js';

/** The list with `id` ticked if it was not, or unticked if it was. */
export const toggled = (allowed: string[], id: string): string[] =>
  allowed.includes(id) ? allowed.filter((s) => s !== id) : [...allowed, id];

/**
 * The allowed entries the registry does not list: recipient addresses (every payment to one is
 * allowed, as the server reads `allowedServices`), and anything else (a service since removed).
 */
export function unlistedEntries(allowed: string[], services: Service[]): { addresses: string[]; unknown: string[] } {
  const unlisted = allowed.filter((id) => !services.some((s) => s.id === id));
  return { addresses: unlisted.filter(isSolanaAddress), unknown: unlisted.filter((id) => !isSolanaAddress(id)) };
}

/** Why a typed recipient address cannot be added to the allowed list (the server's own rule, in its words), or null. */
export function addressProblem(text: string, allowed: string[]): string | null {
  if (!isSolanaAddress(text)) {
    return text === '' ? 'Type the recipient’s Solana address to add it' : `${text} is not a Solana address (base58, 32 bytes)`;
  }
  return allowed.includes(text) ? 'This address is already allowed' : null;
}
