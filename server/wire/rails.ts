import { keccak_256 } from '@noble/hashes/sha3';
import bs58 from 'bs58';

/**
 * The rails Coffer moves USDC on: `sol`, USDC on Solana (the wallet that names each treasury and agent
 * is its Solana address), and `base`, USDC on Base (each wallet's EVM account, from the same recovery
 * phrase). One ledger and one policy hold over both: every move of money records its rail.
 */
export const RAILS = ['sol', 'base'] as const;
export type Rail = (typeof RAILS)[number];

/** Whether a value (from outside the types: JSON, a program's options) names a rail. */
export const isRail = (value: unknown): value is Rail => (RAILS as readonly unknown[]).includes(value);

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** An EVM address in its EIP-55 spelling (the checksum in the letters' case). */
export function checksummedEvmAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(hex));
  let spelled = '0x';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    spelled += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return spelled;
}

/** The EVM zero address, in any case: no one holds its key, and USDC refuses to move money to it. */
export const isZeroEvmAddress = (text: string): boolean => /^0x0{40}$/i.test(text);

/**
 * An EVM address as a person may give it: 0x and 40 hex digits, all lower case, all upper case, or in
 * its EIP-55 spelling; a mixed case that is not the checksum is a typo, and refused.
 */
export function isEvmAddress(text: string): boolean {
  if (!EVM_ADDRESS.test(text)) return false;
  const digits = text.slice(2);
  return digits === digits.toLowerCase() || digits === digits.toUpperCase() || checksummedEvmAddress(text) === text;
}

/** The rail an address is on: an EVM address is a Base account, anything else a Solana wallet. */
export const railOfAddress = (address: string): Rail => (EVM_ADDRESS.test(address) ? 'base' : 'sol');

/**
 * The entries on one rail first (the rail asked for, or the owner's preferred), the rest after, each
 * group in its own order; all in their order where the rail is null.
 */
export const railFirst = <T extends { rail: Rail }>(entries: readonly T[], rail: Rail | null): T[] => [
  ...entries.filter((entry) => entry.rail === rail),
  ...entries.filter((entry) => entry.rail !== rail),
];

/** A Solana address: base58, 32 bytes (32 to 44 characters). */
export const ADDRESS_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * A Solana address: base58 text of 32 bytes (the pattern alone lets 33-byte strings through). Read on every request (the owner, recipients), so with
 * bs58's byte loop rather than a big-integer conversion (several times faster; the same answer).
 */
export const isSolanaAddress = (text: string): boolean => ADDRESS_PATTERN.test(text) && bs58.decodeUnsafe(text)?.length === 32;

/** A Solana transaction signature: base58 text of 64 bytes (64 to 88 characters). */
export const isTransactionSignature = (text: string): boolean =>
  /^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(text) && bs58.decodeUnsafe(text)?.length === 64;
