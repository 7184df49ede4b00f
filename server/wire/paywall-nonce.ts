/**
 * A Coffer paywall's nonce as any holder reads it, without its key: the shape, and the end it says.
 * Its terms are authenticated only by the paywall that issued it (server/x402/nonces.ts reads and
 * checks them); what is read here decides nothing but what a payer need not pay: a receipt for a
 * nonce past its end is refused by that paywall, so a payment for it would buy nothing. Pure and
 * browser-safe.
 *
 * Format: `<issued>.<expires>.<amount>.<route>.<random>.<mac>`, the times in base-36 milliseconds.
 */

/**
 * Whether a memo has a nonce's shape (six dot-separated fields), whoever issued it: a payment whose
 * memo is shaped so was made for some paywall's 402, and only that paywall's nonce check may redeem it.
 */
export const isNonceShaped = (memo: string): boolean => memo.split('.').length === 6;

/** The end a nonce says it has (ms since the epoch), unchecked; null where it is no nonce of this shape. */
export function nonceStatedEnd(memo: string): number | null {
  if (!isNonceShaped(memo)) return null;
  const expires = memo.split('.')[1]!;
  if (!/^[0-9a-z]{1,11}$/.test(expires)) return null;
  return parseInt(expires, 36);
}
