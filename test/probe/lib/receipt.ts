/**
 * The X-Payment receipt as a paid API receives it: "v1." + base64(JSON). Only the encoding is here;
 * the probe never signs anything (it holds no wallet key), so an edit keeps the payer's proof as is.
 */
export type ReceiptJson = Record<string, unknown>;

export const RECEIPT_FIELDS = [
  'v',
  'network',
  'txSignature',
  'amount',
  'currency',
  'timestamp',
  'recipient',
  'payer',
  'paymentId',
  'memo',
  'proof',
] as const;

export function decodeReceipt(header: string): ReceiptJson {
  if (!header.startsWith('v1.')) throw new Error(`not a v1 receipt: ${header.slice(0, 20)}`);
  return JSON.parse(Buffer.from(header.slice(3), 'base64').toString('utf8')) as ReceiptJson;
}

export const encodeJsonText = (json: string): string => `v1.${Buffer.from(json, 'utf8').toString('base64')}`;

export const encodeReceipt = (receipt: ReceiptJson): string => encodeJsonText(JSON.stringify(receipt));

/** One character of a base58 string changed (still base58). */
export function mutateBase58(text: string, at = Math.floor(text.length / 2)): string {
  const c = text[at] === '2' ? '3' : '2';
  return text.slice(0, at) + c + text.slice(at + 1);
}

/** Deep equality of two parsed receipts (for telling a same-meaning re-encoding from an edit). */
export function sameReceipt(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.join() !== kb.join()) return false;
  return ka.every((k) => sameReceipt((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
