import { getAddressDecoder, getAddressEncoder, type Address } from '@solana/kit';

/**
 * Addresses between their base58 text and their 32 bytes, remembered: a payment names the same few
 * wallets, token accounts and programs again and again, and each base58 conversion is a big-integer
 * division loop (10-30 µs) while a lookup is a fraction of one. Bounded: past the limit the memo
 * starts again (a conversion is never wrong, only slower).
 */
const LIMIT = 50_000;
const textOf = new Map<string, Address>();
const bytesOf = new Map<string, Uint8Array>();
const decoder = getAddressDecoder();
const encoder = getAddressEncoder();

/** The address text of 32 bytes (a view into a larger buffer is fine; it is not kept). */
export function addressFromBytes(bytes: Uint8Array): Address {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let text = textOf.get(key);
  if (text === undefined) {
    if (textOf.size >= LIMIT) textOf.clear();
    text = decoder.decode(bytes);
    textOf.set(key, text);
  }
  return text;
}

/** An address text checked (throws on a string that is not one), through the memo: most are met again. */
export function checkedAddress(text: string): Address {
  addressToBytes(text);
  return text as Address;
}

/** The 32 bytes of an address (throws on a string that is not one). Callers must not write into them. */
export function addressToBytes(address: string): Uint8Array {
  let bytes = bytesOf.get(address);
  if (bytes === undefined) {
    if (bytesOf.size >= LIMIT) bytesOf.clear();
    bytes = new Uint8Array(encoder.encode(address as Address));
    bytesOf.set(address, bytes);
  }
  return bytes;
}
