import bs58 from 'bs58';
import {
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  compileTransactionMessage,
  createNoopSigner,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import type { PreparedTransfer } from '../../core/ports/chain.js';
import type { SignBytes } from './signers.js';
import { addressToBytes } from './address-memo.js';
import { shortVec } from './wire-transaction.js';
import { usdcTransferInstructions } from './usdc-transfer.js';

/** One Coffer USDC transfer, as usdcTransferInstructions builds it. */
export interface UsdcTransferParts {
  mint: Address;
  from: Address;
  to: Address;
  feePayer: Address;
  amount: bigint;
  memo: string;
  reference: string;
  createRecipientAccount: boolean;
}

/** What changes from one transfer of a shape to the next: the amount, the memos. */
type Slot = 'fixed' | 'amount' | 'memo' | 'reference';

/**
 * A transfer's message compiled by kit once per shape (who pays whom, from which wallet, whether the
 * recipient's account is created, whether a reference memo follows): the header and account keys as
 * bytes, and each instruction's program, accounts and data with what varies marked. Assembling the
 * message from it is copying bytes; kit would order the accounts, convert every address through
 * base58 and derive each signer's address from its key (an async export) again on every payment.
 */
interface TransferTemplate {
  /** Version prefix, header and account keys: everything before the blockhash. */
  head: Uint8Array;
  instructions: { program: number; accounts: Uint8Array; data: Uint8Array; slot: Slot }[];
  /** The accounts that sign, in the order their signatures are written. */
  signers: Address[];
}

const TEMPLATE_LIMIT = 10_000;
const templates = new Map<string, TransferTemplate>();
const PLACEHOLDER_BLOCKHASH = toBlockhash('11111111111111111111111111111111');
const utf8 = new TextEncoder();
/** A signature's base58 text (bs58's byte loop: several times kit's big-integer conversion). */
const signatureText = { decode: (bytes: Uint8Array) => bs58.encode(bytes) };

async function compileTemplate(parts: UsdcTransferParts): Promise<TransferTemplate> {
  const feePayer = createNoopSigner(parts.feePayer);
  const instructions = await usdcTransferInstructions({
    ...parts,
    from: parts.from === parts.feePayer ? feePayer : createNoopSigner(parts.from),
    feePayer,
    amount: 0n,
    // Placeholders: only whether a reference memo exists shapes the message.
    memo: 'm',
    reference: parts.reference === parts.memo ? 'm' : 'r',
  });
  const compiled = compileTransactionMessage(
    pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(feePayer, message),
      (message) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: PLACEHOLDER_BLOCKHASH, lastValidBlockHeight: 0n }, message),
      (message) => appendTransactionMessageInstructions(instructions, message),
    ),
  );
  const { header, staticAccounts } = compiled;
  const head = new Uint8Array([
    0x80, // version 0
    header.numSignerAccounts,
    header.numReadonlySignerAccounts,
    header.numReadonlyNonSignerAccounts,
    ...shortVec(staticAccounts.length),
    ...staticAccounts.flatMap((key) => [...addressToBytes(key)]),
  ]);
  // usdcTransferInstructions' order: [create ATA], TransferChecked, memo, [reference memo].
  const slots: Slot[] = [
    ...(parts.createRecipientAccount ? ['fixed' as const] : []),
    'amount',
    'memo',
    ...(parts.reference === parts.memo ? [] : ['reference' as const]),
  ];
  if (slots.length !== compiled.instructions.length) throw new Error('a Coffer transfer compiled to an unexpected number of instructions');
  return {
    head,
    instructions: compiled.instructions.map((instruction, index) => ({
      program: instruction.programAddressIndex,
      accounts: new Uint8Array(instruction.accountIndices ?? []),
      data: new Uint8Array(instruction.data ?? []),
      slot: slots[index]!,
    })),
    signers: staticAccounts.slice(0, header.numSignerAccounts),
  };
}

async function templateOf(parts: UsdcTransferParts): Promise<TransferTemplate> {
  const key = `${parts.mint}|${parts.feePayer}|${parts.from}|${parts.to}|${parts.createRecipientAccount}|${parts.reference === parts.memo}`;
  let template = templates.get(key);
  if (template === undefined) {
    template = await compileTemplate(parts);
    if (templates.size >= TEMPLATE_LIMIT) templates.clear();
    templates.set(key, template);
  }
  return template;
}

function instructionData(slot: Slot, fixed: Uint8Array, parts: UsdcTransferParts): Uint8Array {
  switch (slot) {
    case 'fixed':
      return fixed;
    case 'amount': {
      // TransferChecked: discriminator, amount (u64 little-endian), decimals.
      const data = new Uint8Array(fixed);
      new DataView(data.buffer).setBigUint64(1, parts.amount, true);
      return data;
    }
    case 'memo':
      return utf8.encode(parts.memo);
    case 'reference':
      return utf8.encode(`coffer:${parts.reference}`);
  }
}

/**
 * The v0 message of a Coffer transfer, byte for byte what kit compiles and encodes for the same
 * instructions (a test holds them equal), and the accounts that must sign it, in order.
 */
export async function usdcTransferMessage(
  parts: UsdcTransferParts,
  blockhash: string,
): Promise<{ message: Uint8Array; signers: Address[] }> {
  if (parts.amount < 0n || parts.amount >= 2n ** 64n) throw new RangeError('a transfer amount is a u64');
  const template = await templateOf(parts);
  const chunks: (Uint8Array | number[])[] = [template.head, addressToBytes(blockhash), shortVec(template.instructions.length)];
  for (const instruction of template.instructions) {
    const data = instructionData(instruction.slot, instruction.data, parts);
    chunks.push([instruction.program, ...shortVec(instruction.accounts.length)], instruction.accounts, shortVec(data.length), data);
  }
  chunks.push([0]); // no address lookup tables
  const message = new Uint8Array(chunks.reduce((length, chunk) => length + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    message.set(chunk, at);
    at += chunk.length;
  }
  return { message, signers: template.signers };
}

/** Signs a transfer's message with each of its signers' keys: the transaction ready to record and send. */
export async function signedUsdcTransfer(
  parts: UsdcTransferParts,
  lifetime: { blockhash: string; lastValidBlockHeight: bigint },
  signBytes: (address: Address) => Promise<SignBytes>,
): Promise<PreparedTransfer> {
  const { message, signers } = await usdcTransferMessage(parts, lifetime.blockhash);
  const signatures = await Promise.all(signers.map(async (signer) => (await signBytes(signer))(message)));
  const wire = Buffer.concat([Uint8Array.from(shortVec(signatures.length)), ...signatures, message]);
  return {
    txSignature: signatureText.decode(signatures[0]!),
    txWire: wire.toString('base64'),
    lifetimeEnd: lifetime.lastValidBlockHeight,
  };
}
