import { randomBytes } from 'node:crypto';
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import type { PaymentRequirements, SchemeNetworkClient } from '@x402/core/types';
import type { ExactSvmScheme } from '@x402/svm/exact/client';
import type { SignBytes } from '../../chain/solana/signers.js';
import { addressToBytes } from '../../chain/solana/address-memo.js';
import { shortVec } from '../../chain/solana/wire-transaction.js';
import { MEMO_PROGRAM_ADDRESS } from '../../chain/solana/usdc-transfer.js';

/**
 * The x402 `exact` transaction (v2) as `@x402/svm` builds it, assembled from a template the package
 * compiled itself. The package compiles the whole message with kit on every payment: it orders the
 * accounts and converts each address through base58 with big integers, about 2 ms a purchase here,
 * more than everything else Coffer does for it. Its message differs between two purchases of a
 * shape (the same payer, seller, fee payer and asset) only in the blockhash, the amount and the
 * memo's bytes. So the package compiles each shape once (with placeholders), and a purchase copies
 * those bytes, writes its own three values in, and is signed by the payer's key. The result is byte
 * for byte what the package signs for the same terms (test/integration/x402-exact-template.test.ts
 * holds them equal); anything the template does not recognise is left to the package.
 */
interface ExactTemplate {
  /** Version prefix, header and account keys: everything before the blockhash. */
  head: Uint8Array;
  /** The compiled instructions in order; the transfer's amount and the memo's bytes vary. */
  instructions: { program: number; accounts: Uint8Array; data: Uint8Array; slot: 'fixed' | 'amount' | 'memo' }[];
  /** Signers in signature order, and which of them is the payer (the others' slots stay empty). */
  signerCount: number;
  payerIndex: number;
}

export interface ExactTerms {
  /** Smallest units of the asset. */
  amount: bigint;
  blockhash: string;
  /** The seller's `extra.memo`, or null: then a random 16-byte nonce in hex, as the package writes. */
  memo: string | null;
}

const TEMPLATE_LIMIT = 10_000;
const PLACEHOLDER_BLOCKHASH = '11111111111111111111111111111111';
const TRANSFER_CHECKED = 12;
/** The package refuses a longer seller memo; such an offer is left to it, to refuse. */
const MAX_MEMO_BYTES = 256;
const utf8 = new TextEncoder();

/** The package's own transaction for these requirements with placeholders, read back as a template; null when it is not the shape known here. */
async function compileTemplate(scheme: ExactSvmScheme, requirements: PaymentRequirements, payer: string): Promise<ExactTemplate | null> {
  const placeholder = await scheme.createPaymentPayload(2, {
    ...requirements,
    amount: '1',
    extra: { ...requirements.extra, memo: 'm', recentBlockhash: PLACEHOLDER_BLOCKHASH, lastValidBlockHeight: '0' },
  });
  const wire = (placeholder.payload as { transaction?: unknown }).transaction;
  if (typeof wire !== 'string') return null;
  const message = getCompiledTransactionMessageDecoder().decode(
    getTransactionDecoder().decode(getBase64Encoder().encode(wire)).messageBytes,
  );
  if (message.version !== 0 || !('instructions' in message) || message.addressTableLookups?.length) return null;
  const keys = message.staticAccounts.map(String);
  const payerIndex = keys.indexOf(payer);
  if (payerIndex < 0 || payerIndex >= message.header.numSignerAccounts) return null;
  const instructions: ExactTemplate['instructions'] = [];
  for (const instruction of message.instructions) {
    const program = keys[instruction.programAddressIndex];
    const data = new Uint8Array(instruction.data ?? []);
    const slot =
      program === MEMO_PROGRAM_ADDRESS
        ? 'memo'
        : data[0] === TRANSFER_CHECKED && data.length === 10 && program !== undefined
          ? 'amount'
          : 'fixed';
    instructions.push({ program: instruction.programAddressIndex, accounts: new Uint8Array(instruction.accountIndices ?? []), data, slot });
  }
  // One transfer and one memo, the memo last (its bytes may change the length of what follows it).
  if (instructions.filter((entry) => entry.slot === 'amount').length !== 1 || instructions.at(-1)?.slot !== 'memo') return null;
  if (instructions.filter((entry) => entry.slot === 'memo').length !== 1) return null;
  const { header } = message;
  return {
    head: new Uint8Array([
      0x80,
      header.numSignerAccounts,
      header.numReadonlySignerAccounts,
      header.numReadonlyNonSignerAccounts,
      ...shortVec(keys.length),
      ...keys.flatMap((key) => [...addressToBytes(key)]),
    ]),
    instructions,
    signerCount: header.numSignerAccounts,
    payerIndex,
  };
}

/** The message of one purchase from its template. */
function assemble(template: ExactTemplate, terms: ExactTerms): Uint8Array {
  const memo = terms.memo ?? randomBytes(16).toString('hex');
  const chunks: (Uint8Array | number[])[] = [template.head, addressToBytes(terms.blockhash), shortVec(template.instructions.length)];
  for (const instruction of template.instructions) {
    let data = instruction.data;
    if (instruction.slot === 'amount') {
      data = new Uint8Array(instruction.data);
      new DataView(data.buffer).setBigUint64(1, terms.amount, true);
    } else if (instruction.slot === 'memo') {
      data = utf8.encode(memo);
    }
    chunks.push([instruction.program, ...shortVec(instruction.accounts.length)], instruction.accounts, shortVec(data.length), data);
  }
  chunks.push([0]); // no address lookup tables
  return Buffer.concat(chunks.map((chunk) => Uint8Array.from(chunk)));
}

/**
 * The package's v2 exact scheme for one payer, with templates: each shape is compiled by the package
 * once, then purchases are assembled and signed by `signBytes`. The blockhash must come in the
 * requirements (`extra.recentBlockhash`, as Coffer hands it over); without it, or for a shape the
 * template does not know, the package builds the transaction itself.
 */
export function templatedExactScheme(scheme: ExactSvmScheme, payer: string, signBytes: () => Promise<SignBytes>): SchemeNetworkClient {
  const templates = new Map<string, Promise<ExactTemplate | null>>();
  return {
    scheme: scheme.scheme,
    async createPaymentPayload(version, requirements) {
      const blockhash = requirements.extra?.recentBlockhash;
      const feePayer = requirements.extra?.feePayer;
      const sellerMemo = requirements.extra?.memo;
      // What the template writes exactly as the package would; anything else is the package's to sign
      // (or refuse): a memo that is no string (the package writes any truthy value as text), one
      // longer than x402 allows, an amount that is no u64.
      const plainMemo =
        sellerMemo === undefined ||
        sellerMemo === null ||
        sellerMemo === '' ||
        (typeof sellerMemo === 'string' && utf8.encode(sellerMemo).length <= MAX_MEMO_BYTES);
      const u64Amount = /^\d{1,20}$/.test(requirements.amount) && BigInt(requirements.amount) < 2n ** 64n;
      if (version !== 2 || typeof blockhash !== 'string' || typeof feePayer !== 'string' || !u64Amount || !plainMemo) {
        return scheme.createPaymentPayload(version, requirements);
      }
      const key = `${requirements.network}|${requirements.asset}|${requirements.payTo}|${feePayer}`;
      let template = templates.get(key);
      if (template === undefined) {
        if (templates.size >= TEMPLATE_LIMIT) templates.clear();
        template = compileTemplate(scheme, requirements, payer);
        templates.set(key, template);
        template.catch(() => templates.delete(key));
      }
      const compiled = await template;
      if (compiled === null) return scheme.createPaymentPayload(version, requirements);
      const message = assemble(compiled, {
        amount: BigInt(requirements.amount),
        blockhash,
        memo: typeof sellerMemo === 'string' && sellerMemo !== '' ? sellerMemo : null,
      });
      const signature = (await signBytes())(message);
      const empty = new Uint8Array(64);
      const signatures = Array.from({ length: compiled.signerCount }, (_, index) => (index === compiled.payerIndex ? signature : empty));
      const transaction = Buffer.concat([Uint8Array.from(shortVec(compiled.signerCount)), ...signatures, message]).toString('base64');
      return { x402Version: version, payload: { transaction } };
    },
  };
}
