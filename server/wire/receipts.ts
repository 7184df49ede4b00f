import { z } from 'zod';

/**
 * The payment receipt an agent sends as `X-Payment`: "v1." + base64(JSON). It names the transaction;
 * a paid API trusts nothing in it without finding that transaction on chain.
 */
export const receiptSchema = z.strictObject({
  v: z.literal(1),
  network: z.string().min(1),
  txSignature: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/),
  amount: z.string().regex(/^\d+\.\d{2,6}$/),
  currency: z.literal('USDC'),
  timestamp: z.iso.datetime(),
  recipient: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
  payer: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
  paymentId: z.string().min(1),
  memo: z.string(),
  /**
   * The payer wallet's Ed25519 signature (base58) of receiptProofMessage: everything else in a receipt
   * can be read off the chain, so this is what stops someone else from presenting it.
   */
  proof: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/),
});
export type Receipt = z.infer<typeof receiptSchema>;

export const RECEIPT_PREFIX = 'v1.';

/**
 * The bytes a payer signs for a receipt: every other field, in a fixed order, as a JSON array (so no
 * two receipts share a message). A holder can change nothing, not even the fields the chain cannot
 * check (timestamp, paymentId). The `v2` tag keeps these apart from the older network/tx/memo proofs.
 */
export const receiptProofMessage = (receipt: Omit<Receipt, 'proof'>): Uint8Array =>
  new TextEncoder().encode(
    'coffer-receipt:v2:' +
      JSON.stringify([
        receipt.v,
        receipt.network,
        receipt.txSignature,
        receipt.amount,
        receipt.currency,
        receipt.timestamp,
        receipt.recipient,
        receipt.payer,
        receipt.paymentId,
        receipt.memo,
      ]),
  );

/**
 * The one JSON spelling of a receipt: its fields in the schema's order, JSON.stringify's escaping, no
 * whitespace. A header in any other spelling is refused, so one receipt is one header string and no
 * duplicate key can hide a second value behind the one that was signed.
 */
const canonicalJson = (receipt: Receipt): string =>
  JSON.stringify(Object.fromEntries(Object.keys(receiptSchema.shape).map((field) => [field, receipt[field as keyof Receipt]])));

export function encodeReceipt(receipt: Receipt): string {
  return RECEIPT_PREFIX + Buffer.from(canonicalJson(receipt), 'utf8').toString('base64');
}

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

/**
 * A receipt of a payment on the Base rail: the same claims, with the rail and the chain's id; the
 * transaction is an EVM transaction hash, the addresses are EVM accounts, and the proof is the
 * payer account's EIP-191 signature (hex) of baseReceiptProofMessage.
 */
export const baseReceiptSchema = z.strictObject({
  v: z.literal(1),
  rail: z.literal('base'),
  network: z.string().min(1),
  chainId: z.number().int().positive(),
  txSignature: z.string().regex(/^0x[0-9a-f]{64}$/),
  amount: z.string().regex(/^\d+\.\d{2,6}$/),
  currency: z.literal('USDC'),
  timestamp: z.iso.datetime(),
  recipient: evmAddress,
  payer: evmAddress,
  paymentId: z.string().min(1),
  memo: z.string(),
  proof: z.string().regex(/^0x[0-9a-f]{130}$/),
});
export type BaseReceipt = z.infer<typeof baseReceiptSchema>;

/** The bytes a Base payer signs for a receipt: every other field, in a fixed order (its own tag). */
export const baseReceiptProofMessage = (receipt: Omit<BaseReceipt, 'proof'>): Uint8Array =>
  new TextEncoder().encode(
    'coffer-receipt:base:v1:' +
      JSON.stringify([
        receipt.v,
        receipt.rail,
        receipt.network,
        receipt.chainId,
        receipt.txSignature,
        receipt.amount,
        receipt.currency,
        receipt.timestamp,
        receipt.recipient,
        receipt.payer,
        receipt.paymentId,
        receipt.memo,
      ]),
  );

export function encodeBaseReceipt(receipt: BaseReceipt): string {
  const canonical = JSON.stringify(
    Object.fromEntries(Object.keys(baseReceiptSchema.shape).map((field) => [field, receipt[field as keyof BaseReceipt]])),
  );
  return RECEIPT_PREFIX + Buffer.from(canonical, 'utf8').toString('base64');
}

/** Decodes and validates a receipt; null for anything that is not a well-formed v1 receipt. */
export function decodeReceipt(header: string): Receipt | null {
  return decodeCanonical(header, receiptSchema);
}

/** Decodes and validates a receipt of a payment on the Base rail; null for anything else. */
export function decodeBaseReceipt(header: string): BaseReceipt | null {
  return decodeCanonical(header, baseReceiptSchema);
}

/** A header's receipt under `schema`, in its one canonical spelling only (else many headers would be one receipt). */
function decodeCanonical<T extends Record<string, unknown>>(header: string, schema: z.ZodType<T> & { shape: object }): T | null {
  if (!header.startsWith(RECEIPT_PREFIX) || header.length > 4096) return null;
  const body = header.slice(RECEIPT_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  const bytes = Buffer.from(body, 'base64');
  if (bytes.toString('base64') !== body) return null;
  const json = bytes.toString('utf8');
  try {
    const parsed = schema.safeParse(JSON.parse(json));
    if (!parsed.success) return null;
    // Only the canonical spelling (no other whitespace, key order, escaping or duplicate keys).
    const canonical = JSON.stringify(Object.fromEntries(Object.keys(schema.shape).map((field) => [field, parsed.data[field]])));
    return canonical === json ? parsed.data : null;
  } catch {
    return null;
  }
}
