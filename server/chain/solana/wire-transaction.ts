import bs58 from 'bs58';
import type { Address } from '@solana/kit';
import { addressFromBytes } from './address-memo.js';

/**
 * A signed transaction in its wire bytes, with what the embedded chain needs of it read once: its
 * signature, its version, its account keys and which of them are writable, its blockhash. Reading
 * these takes offsets into the bytes and remembered addresses; kit's decoder would convert every
 * key and signature through base58 on each payment.
 */
export interface WireTransaction {
  bytes: Uint8Array;
  /** The first signature in base58: the transaction's id. */
  signature: string;
  signatureCount: number;
  version: 'legacy' | number;
  accountKeys: Address[];
  /** The 32 bytes of each account key (views into `bytes`). */
  accountKeyBytes: Uint8Array[];
  /** Indices into accountKeys of the accounts the transaction may write. */
  writable: number[];
  /** How many of the first account keys sign it. */
  signerCount: number;
  blockhash: string;
  /** The signatures' bytes (views into `bytes`), in the order of the signing account keys. */
  signatures: Uint8Array[];
  /** Where its instructions begin (read by instructionsOf, only where they are wanted). */
  instructionsAt: number;
}

/** An instruction: the program's and accounts' indices into accountKeys, and its data (a view into the bytes). */
export interface WireInstruction {
  program: number;
  accounts: number[];
  data: Uint8Array;
}

/** A transaction's instructions, read from its bytes (throws where they end early). */
export function instructionsOf(transaction: WireTransaction): WireInstruction[] {
  const { bytes } = transaction;
  const instructions: WireInstruction[] = [];
  const [count, first] = readShortVec(bytes, transaction.instructionsAt);
  let next = first;
  for (let i = 0; i < count; i++) {
    const program = bytes[next];
    if (program === undefined) throw new Error('the transaction ends inside an instruction');
    const [accountCount, accountsAt] = readShortVec(bytes, next + 1);
    const [dataLength, dataAt] = readShortVec(bytes, accountsAt + accountCount);
    if (dataAt + dataLength > bytes.length) throw new Error('the transaction ends inside an instruction');
    instructions.push({
      program,
      accounts: [...bytes.subarray(accountsAt, accountsAt + accountCount)],
      data: bytes.subarray(dataAt, dataAt + dataLength),
    });
    next = dataAt + dataLength;
  }
  return instructions;
}

/** A signature's base58 text (bs58's byte loop: several times kit's big-integer conversion, read per transaction). */
const signatureText = { decode: (bytes: Uint8Array) => bs58.encode(bytes) };

/** A compact-u16 (Solana's "shortvec"): the bytes that write `value`. */
export function shortVec(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) return [...bytes, byte];
    bytes.push(byte | 0x80);
  }
}

/** Reads a compact-u16 (Solana's "shortvec") at `offset`: its value and the offset after it. */
function readShortVec(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw new Error('the transaction ends inside a length');
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [value, offset + i + 1];
  }
  throw new Error('a length in the transaction is too long');
}

/** Reads a signed transaction's wire bytes; throws when they are not one. */
export function readWireTransaction(bytes: Uint8Array): WireTransaction {
  const [signatureCount, signaturesAt] = readShortVec(bytes, 0);
  let at = signaturesAt + 64 * signatureCount;
  if (signatureCount === 0 || at > bytes.length) throw new Error('the transaction has no complete signature');
  const first = bytes.subarray(signaturesAt, signaturesAt + 64);
  const prefix = bytes[at];
  let version: 'legacy' | number = 'legacy';
  if (prefix !== undefined && (prefix & 0x80) !== 0) {
    version = prefix & 0x7f;
    at += 1;
  }
  if (at + 3 > bytes.length) throw new Error('the transaction ends inside its header');
  const [signers, readonlySigners, readonlyNonSigners] = [bytes[at]!, bytes[at + 1]!, bytes[at + 2]!];
  const [keyCount, keysAt] = readShortVec(bytes, at + 3);
  at = keysAt + 32 * keyCount;
  if (at + 32 > bytes.length) throw new Error('the transaction ends inside its account keys');
  const accountKeyBytes = Array.from({ length: keyCount }, (_, i) => bytes.subarray(keysAt + 32 * i, keysAt + 32 * (i + 1)));
  const writable: number[] = [];
  for (let i = 0; i < signers - readonlySigners; i++) writable.push(i);
  for (let i = signers; i < keyCount - readonlyNonSigners; i++) writable.push(i);
  return {
    bytes,
    signature: signatureText.decode(first),
    signatures: Array.from({ length: signatureCount }, (_, i) => bytes.subarray(signaturesAt + 64 * i, signaturesAt + 64 * (i + 1))),
    instructionsAt: at + 32,
    signatureCount,
    version,
    accountKeys: accountKeyBytes.map(addressFromBytes),
    accountKeyBytes,
    writable,
    signerCount: signers,
    blockhash: addressFromBytes(bytes.subarray(at, at + 32)),
  };
}
