import { getBase58Decoder, getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import type { SimTransactionRow } from '../ledger.js';
import { RpcError } from './error.js';
import { parsedInstruction } from '../../parsed-instructions.js';

type DecodedMessage = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;
/** A message whose instructions can be read (legacy and v0; not v1). */
type MessageWithInstructions = Extract<DecodedMessage, { instructions: unknown }>;

/** A landed transaction as getTransaction (and getBlock) answer it, in the encoding asked for. */
export function encodeTransaction(
  row: SimTransactionRow,
  encoding: 'json' | 'jsonParsed' | 'base58' | 'base64',
  maxVersion: number | undefined,
) {
  const bytes = new Uint8Array(getBase64Encoder().encode(row.wire));
  const transaction = getTransactionDecoder().decode(bytes);
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  const version = message.version === 'legacy' ? 'legacy' : message.version;
  if (version !== 'legacy' && maxVersion === undefined) {
    throw new RpcError(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const base = { slot: row.slot, blockTime: BigInt(Math.floor(row.blockTime / 1000)), version, meta: transactionMeta(row) };
  if (encoding === 'base64') return { ...base, transaction: [row.wire, 'base64'] };
  if (encoding === 'base58') return { ...base, transaction: [getBase58Decoder().decode(bytes), 'base58'] };
  if (!('instructions' in message)) throw new RpcError(-32602, 'Invalid param: this transaction can be read as base64 only');
  // An unsigned slot reads as 64 ones, as a node writes it.
  const signatures = Object.values(transaction.signatures).map((signature) =>
    signature === null ? '1'.repeat(64) : getBase58Decoder().decode(signature),
  );
  const read = encoding === 'jsonParsed' ? parsedMessage(message) : jsonMessage(message);
  return { ...base, transaction: { signatures, message: read } };
}

function transactionMeta(row: SimTransactionRow) {
  const err = row.meta.err;
  return {
    err,
    status: err === null ? { Ok: null } : { Err: err },
    fee: BigInt(row.meta.fee),
    preBalances: [],
    postBalances: [],
    innerInstructions: [],
    logMessages: row.meta.logMessages,
    preTokenBalances: row.meta.preTokenBalances,
    postTokenBalances: row.meta.postTokenBalances,
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: BigInt(row.meta.computeUnitsConsumed),
  };
}

/** The message as `jsonParsed`: each account key with its roles, the instructions Coffer knows parsed. */
function parsedMessage(message: MessageWithInstructions) {
  const { header } = message;
  const keys = message.staticAccounts.map(String);
  const writable = (index: number) =>
    index < header.numSignerAccounts
      ? index < header.numSignerAccounts - header.numReadonlySignerAccounts
      : index < keys.length - header.numReadonlyNonSignerAccounts;
  return {
    accountKeys: keys.map((pubkey, index) => ({
      pubkey,
      signer: index < header.numSignerAccounts,
      source: 'transaction',
      writable: writable(index),
    })),
    recentBlockhash: message.lifetimeToken,
    instructions: message.instructions.map((instruction) => parsedInstruction(instruction, keys)),
    ...(message.version === 'legacy' ? {} : { addressTableLookups: [] }),
  };
}

/** The message as `json`: its header, account keys and instructions as the wire has them. */
function jsonMessage(message: MessageWithInstructions) {
  const base58 = getBase58Decoder();
  return {
    header: {
      numRequiredSignatures: message.header.numSignerAccounts,
      numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
    },
    accountKeys: message.staticAccounts,
    recentBlockhash: message.lifetimeToken,
    instructions: message.instructions.map((instruction) => ({
      programIdIndex: instruction.programAddressIndex,
      accounts: instruction.accountIndices ?? [],
      data: base58.decode(instruction.data ?? new Uint8Array()),
      stackHeight: null,
    })),
    ...(message.version === 'legacy' ? {} : { addressTableLookups: [] }),
  };
}
