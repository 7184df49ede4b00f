import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { SimTransactionMeta } from './ledger.js';
import { uiTokenAmount, type RpcTokenBalance } from '../rpc-shapes.js';
import { addressToBytes } from '../address-memo.js';

/**
 * How the embedded chain keeps a landed transaction small (about 330 bytes where the base64 wire and
 * the metadata's JSON took 3,300). What a payment's transaction holds is mostly the same few
 * addresses and log lines again and again:
 * - its wire bytes are kept as they are, except the account keys (32 bytes each, ten in a payment):
 *   each is the number of its address in `sim_keys`, a varint;
 * - its metadata drops what the wire already says (the account keys) and what follows from the rest
 *   (a token amount's ui forms), names addresses by the same numbers, and is deflated against a
 *   dictionary of the logs Coffer's own transfers write (a payment's 900 bytes of logs take some 40).
 * Decoding gives back the same wire bytes and the same metadata, so the chain answers JSON-RPC as it
 * did. The first byte is the format: one that changes the dictionary or the layout is a new format,
 * and rows of the older ones stay readable.
 */
const FORMAT = 1;

/** The numbers of addresses (sim_keys): given out on write, read back on decode. */
export interface SimKeys {
  idOf(address: string): number;
  addressOf(id: number): string;
}

/** A token balance as stored: [accountIndex, mint, owner, programId (key numbers), amount, decimals]. */
type StoredBalance = [number, number, number, number, string, number];

interface StoredMeta {
  /** The RPC error; absent when the transaction succeeded. */
  e?: SimTransactionMeta['err'];
  f: number;
  u: number;
  l: string[];
  pre: StoredBalance[];
  post: StoredBalance[];
}

const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const ATA = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const SYSTEM = '11111111111111111111111111111111';
const logsOf = (lines: string[]) => lines.map((line) => JSON.stringify(line)).join(',');
/**
 * What deflate may refer back to: the stored metadata of Coffer's own transactions, the most common
 * last (nearer strings cost fewer bits). Fixed for FORMAT 1: changing a byte makes older rows unreadable.
 */
const DICTIONARY = Buffer.from(
  logsOf([
    `Program ${TOKEN} failed: custom program error: 0x1`,
    'Program log: Error: insufficient funds',
    'Program log: Instruction: MintToChecked',
    'Program log: Instruction: TransferChecked',
    `Program ${SYSTEM} invoke [1]`,
    `Program ${SYSTEM} success`,
    `Program ${ATA} invoke [1]`,
    'Program log: CreateIdempotent',
    `Program ${TOKEN} invoke [2]`,
    `Program ${TOKEN} consumed 183 of 594571 compute units`,
    `Program return: ${TOKEN} pQAAAAAAAAA=`,
    `Program ${TOKEN} success`,
    `Program ${SYSTEM} invoke [2]`,
    `Program ${SYSTEM} success`,
    'Program log: Initialize the associated token account',
    `Program ${TOKEN} invoke [2]`,
    `Program ${TOKEN} consumed 38 of 589469 compute units`,
    `Program ${TOKEN} success`,
    `Program ${TOKEN} invoke [2]`,
    `Program ${TOKEN} consumed 235 of 587005 compute units`,
    `Program ${TOKEN} success`,
    `Program ${ATA} consumed 13534 of 600000 compute units`,
    `Program ${ATA} success`,
  ]) +
    '{"f":10000,"u":4829,"l":[' +
    logsOf([
      `Program ${ATA} invoke [1]`,
      'Program log: CreateIdempotent',
      `Program ${ATA} consumed 4437 of 600000 compute units`,
      `Program ${ATA} success`,
      `Program ${TOKEN} invoke [1]`,
      `Program ${TOKEN} consumed 105 of 595563 compute units`,
      `Program ${TOKEN} success`,
      `Program ${MEMO} invoke [1]`,
      'Program log: Memo (len 26)',
      'Program log: pay_',
      `Program ${MEMO} consumed 287 of 595458 compute units`,
      `Program ${MEMO} success`,
    ]) +
    '],"pre":[[2,5,2,9,"479010000",6],[3,5,6,9,"20990000",6]],"post":[[2,5,2,9,"479000000",6],[3,5,6,9,"21000000",6]]}',
);

/**
 * The dictionary a transaction's metadata is deflated against: the fixed one, then its own stored
 * wire (its logs repeat what its instructions say: a memo's text above all).
 */
const dictionaryFor = (compactWire: Uint8Array) => Buffer.concat([DICTIONARY, compactWire]);

/** The wire's layout up to its account keys: where they start and how many there are. */
function accountKeysAt(wire: Uint8Array): { keysAt: number; keyCount: number } {
  const [signatureCount, signaturesAt] = readVarint(wire, 0);
  let at = signaturesAt + 64 * signatureCount;
  if (((wire[at] ?? 0) & 0x80) !== 0) at += 1; // a versioned message's prefix
  const [keyCount, keysAt] = readVarint(wire, at + 3); // after the three header bytes
  if (keysAt + 32 * keyCount > wire.length) throw new Error('the transaction ends inside its account keys');
  return { keysAt, keyCount };
}

/** The 64 bytes of a stored transaction's first signature (its id). */
export function firstSignatureBytes(body: Uint8Array): Uint8Array {
  if (body[0] !== FORMAT) throw new Error(`a stored transaction of an unknown format (${body[0]})`);
  const [, wireAt] = readVarint(body, 1);
  const [, signaturesAt] = readVarint(body, wireAt);
  return body.subarray(signaturesAt, signaturesAt + 64);
}

/** The stored form of a transaction's wire bytes and metadata. */
export function encodeSimTransaction(wire: Uint8Array, accountKeys: readonly string[], meta: SimTransactionMeta, keys: SimKeys): Buffer {
  const { keysAt, keyCount } = accountKeysAt(wire);
  if (keyCount !== accountKeys.length) throw new Error('the account keys do not match the transaction');
  const ids = accountKeys.map((key) => keys.idOf(key));
  const storeBalance = (balance: RpcTokenBalance): StoredBalance => [
    balance.accountIndex,
    keys.idOf(balance.mint),
    keys.idOf(balance.owner),
    keys.idOf(balance.programId),
    balance.uiTokenAmount.amount,
    balance.uiTokenAmount.decimals,
  ];
  const stored: StoredMeta = {
    ...(meta.err === null ? {} : { e: meta.err }),
    f: meta.fee,
    u: meta.computeUnitsConsumed,
    l: meta.logMessages,
    pre: meta.preTokenBalances.map(storeBalance),
    post: meta.postTokenBalances.map(storeBalance),
  };
  const compactWire = Buffer.concat([wire.subarray(0, keysAt), Buffer.from(ids.flatMap(varint)), wire.subarray(keysAt + 32 * keyCount)]);
  const packedMeta = deflateRawSync(JSON.stringify(stored), { dictionary: dictionaryFor(compactWire), level: 9 });
  return Buffer.concat([Buffer.from([FORMAT, ...varint(compactWire.length)]), compactWire, packedMeta]);
}

/** The wire bytes and the metadata of a stored transaction. */
export function decodeSimTransaction(body: Uint8Array, keys: SimKeys): { wire: Buffer; meta: SimTransactionMeta } {
  if (body[0] !== FORMAT) throw new Error(`a stored transaction of an unknown format (${body[0]})`);
  const [wireLength, wireAt] = readVarint(body, 1);
  const compactWire = body.subarray(wireAt, wireAt + wireLength);
  // The compact wire's layout matches the wire's up to the keys (only the keys became varints).
  const [signatureCount, signaturesAt] = readVarint(compactWire, 0);
  let at = signaturesAt + 64 * signatureCount;
  if (((compactWire[at] ?? 0) & 0x80) !== 0) at += 1;
  const [keyCount, keysAt] = readVarint(compactWire, at + 3);
  const accountKeys: string[] = [];
  at = keysAt;
  for (let i = 0; i < keyCount; i++) {
    const [id, next] = readVarint(compactWire, at);
    accountKeys.push(keys.addressOf(id));
    at = next;
  }
  const wire = Buffer.concat([compactWire.subarray(0, keysAt), ...accountKeys.map(addressToBytes), compactWire.subarray(at)]);
  const stored = JSON.parse(
    inflateRawSync(body.subarray(wireAt + wireLength), { dictionary: dictionaryFor(compactWire) }).toString('utf8'),
  ) as StoredMeta;
  const balance = ([accountIndex, mint, owner, programId, amount, decimals]: StoredBalance): RpcTokenBalance => ({
    accountIndex,
    mint: keys.addressOf(mint),
    owner: keys.addressOf(owner),
    programId: keys.addressOf(programId),
    uiTokenAmount: uiTokenAmount(BigInt(amount), decimals),
  });
  return {
    wire,
    meta: {
      err: stored.e ?? null,
      fee: stored.f,
      logMessages: stored.l,
      computeUnitsConsumed: stored.u,
      accountKeys,
      preTokenBalances: stored.pre.map(balance),
      postTokenBalances: stored.post.map(balance),
    },
  };
}

/** An unsigned LEB128 varint (Solana's compact-u16 is one). */
function varint(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    bytes.push(byte);
  } while (value > 0);
  return bytes;
}

function readVarint(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw new Error('a stored transaction ends inside a length');
    value += (byte & 0x7f) * 128 ** i;
    if ((byte & 0x80) === 0) return [value, offset + i + 1];
  }
  throw new Error('a length in a stored transaction is too long');
}
