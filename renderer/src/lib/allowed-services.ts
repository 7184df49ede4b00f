import { checksummedEvmAddress, isEvmAddress, isSolanaAddress } from '../../../server/wire/rails.js';
import type { Service } from '../api/types.js';

/** The list with `id` ticked if it was not, or unticked if it was. */
export const toggled = (allowed: string[], id: string): string[] =>
  allowed.includes(id) ? allowed.filter((s) => s !== id) : [...allowed, id];

/** A recipient's address on either rail: Solana's, or Base's (an EVM address, in a case the server takes). */
const isRecipientAddress = (text: string) => isSolanaAddress(text) || isEvmAddress(text);

/** An address as the server keeps it in `allowedServices`: a Base one in its checksum spelling, a Solana one as typed. */
export const allowedSpelling = (address: string): string => (isEvmAddress(address) ? checksummedEvmAddress(address) : address);

/**
 * The allowed entries the registry does not list: recipient addresses on either rail (every payment
 * to one is allowed, as the server reads `allowedServices`), and anything else (a service since removed).
 */
export function unlistedEntries(allowed: string[], services: Service[]): { addresses: string[]; unknown: string[] } {
  const unlisted = allowed.filter((id) => !services.some((s) => s.id === id));
  return { addresses: unlisted.filter(isRecipientAddress), unknown: unlisted.filter((id) => !isRecipientAddress(id)) };
}

/**
 * Why a typed recipient address cannot be added to the allowed list (the server's own rule, in its
 * words), or null: a Solana address, or a Base one (helper 192: the dashboard took Solana's alone,
 * where the CLI and the API take both).
 */
export function addressProblem(text: string, allowed: string[]): string | null {
  if (!isRecipientAddress(text)) {
    return text === ''
      ? 'Type the recipient’s address, on Solana or Base, to add it'
      : `${text} is not an address: a Solana one (base58, 32 bytes) or a Base one (0x and 40 hex digits)`;
  }
  return allowed.includes(allowedSpelling(text)) ? 'This address is already allowed' : null;
}
