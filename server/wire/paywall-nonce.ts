/**
 * A Coffer paywall's nonce as any holder reads it, without its key: the shape, and the terms it says.
 * Its terms are authenticated only by the paywall that issued it (server/x402/paywall/nonces.ts reads and
 * checks them); what is read here decides nothing but what a payer need not pay: a receipt for a
 * nonce past its end is refused by that paywall, so a payment for it would buy nothing. Pure and
 * browser-safe.
 *
 * Format: `<issued>.<expires>.<amount>.<route>.<random>.<mac>`.
 */

/**
 * How long a Coffer paywall's 402 terms stay payable by default, and a receipt of a payment made
 * without them (no nonce) is taken after it lands (the paywall's `maxTimeoutSeconds`).
 */
export const DEFAULT_TERMS_SECONDS = 300;

/**
 * Whether a memo has a nonce's shape (six dot-separated fields), whoever issued it: a payment whose
 * memo is shaped so was made for some paywall's 402, and only that paywall's nonce check may redeem it.
 */
export const isNonceShaped = (memo: string): boolean => memo.split('.').length === 6;

/**
 * A Coffer paywall's nonce, as its issuer writes it (server/x402/paywall/nonces.ts): two times in base-36
 * milliseconds, the issued one first, the amount in micro-USDC, then base64url of 6, 9 and 16 bytes
 * (the route's digest, the random part, the MAC). Another seller's memo of six dot-separated fields
 * (`2026.11.28.1301.ab12.ff`) is none: its second field is no end of anything.
 */
const COFFER_NONCE = /^([0-9a-z]{1,11})\.([0-9a-z]{1,11})\.(0|[1-9]\d{0,19})\.[\w-]{8}\.[\w-]{12}\.[\w-]{22}$/;

/**
 * The times and amount a Coffer paywall's nonce says it has, unchecked (ms since the epoch; the
 * amount in micro-USDC); null where the memo is not written as one.
 */
export function coffersNonceTerms(memo: string): { issuedAt: number; expiresAt: number; amount: bigint } | null {
  const match = COFFER_NONCE.exec(memo);
  if (match === null) return null;
  const issuedAt = parseInt(match[1]!, 36);
  const expiresAt = parseInt(match[2]!, 36);
  return issuedAt <= expiresAt ? { issuedAt, expiresAt, amount: BigInt(match[3]!) } : null;
}

/**
 * The route digest of a Coffer paywall's nonce (its fourth field: the method and path it was issued
 * for), unchecked; null where the memo is not written as one. Two nonces of one paywall for one
 * route share it.
 */
export function coffersNonceRoute(memo: string): string | null {
  return COFFER_NONCE.test(memo) ? memo.split('.')[3]! : null;
}
