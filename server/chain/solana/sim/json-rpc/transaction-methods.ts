import { z } from 'zod';
import { getBase58Encoder, getBase64Encoder, getSignatureFromTransaction, getTransactionDecoder, type Transaction } from '@solana/kit';
import type { RpcTransactionError } from '../transaction-errors.js';
import { RpcError } from './error.js';
import { rpcMethod, type SimRpcMethod } from './method.js';
import { address, commitment } from './params.js';
import { encodeTransaction } from './transaction-encoding.js';

const wireEncoding = z.enum(['base58', 'base64']).optional();
const simulateConfig = z
  .object({ encoding: wireEncoding, sigVerify: z.boolean().optional(), replaceRecentBlockhash: z.boolean().optional(), commitment })
  .loose();
const sendConfig = z
  .object({
    encoding: wireEncoding,
    skipPreflight: z.boolean().optional(),
    preflightCommitment: commitment,
    maxRetries: z.number().optional(),
  })
  .loose();
const transactionConfig = z
  .object({
    encoding: z.enum(['json', 'jsonParsed', 'base58', 'base64']).optional(),
    maxSupportedTransactionVersion: z.number().int().optional(),
    commitment,
  })
  .loose();
const signaturesConfig = z
  .object({ limit: z.number().int().min(1).max(1000).optional(), before: z.string().optional(), until: z.string().optional(), commitment })
  .loose();

/** Transactions: simulated, sent, their statuses, read back, and listed by the accounts they name. */
export const transactionMethods: Record<string, SimRpcMethod> = {
  simulateTransaction: rpcMethod(z.tuple([z.string(), simulateConfig.optional()]), ({ ledger, withContext }, [wire, config]) => {
    const transaction = decodeTransaction(wire, config?.encoding ?? 'base58');
    const sigVerify = config?.sigVerify ?? false;
    if (sigVerify) assertSigned(transaction);
    const result = ledger.simulate(transaction, { sigVerify, replaceRecentBlockhash: config?.replaceRecentBlockhash ?? false });
    return withContext({
      err: result.err,
      logs: result.logs,
      accounts: null,
      unitsConsumed: BigInt(result.unitsConsumed),
      returnData: null,
      innerInstructions: null,
      ...(result.replacementBlockhash ? { replacementBlockhash: result.replacementBlockhash } : {}),
    });
  }),
  sendTransaction: rpcMethod(z.tuple([z.string(), sendConfig.optional()]), ({ ledger }, [input, config]) => {
    const transaction = decodeTransaction(input, config?.encoding ?? 'base58');
    assertSigned(transaction);
    // Coffer's history keeps base64 bytes, whatever encoding the transaction came in.
    const wire = Buffer.from(wireBytes(input, config?.encoding ?? 'base58')).toString('base64');
    if (!config?.skipPreflight) {
      // Preflight refuses what already landed (LiteSVM's simulation does not look at history).
      if (ledger.findTransaction(getSignatureFromTransaction(transaction)) !== null) throw preflightFailure('AlreadyProcessed', [], 0);
      const preflight = ledger.simulate(transaction, { sigVerify: true, replaceRecentBlockhash: false });
      if (preflight.err !== null) throw preflightFailure(preflight.err, preflight.logs, preflight.unitsConsumed);
    }
    const { signature } = ledger.execute(wire);
    // As on a cluster: without preflight, what cannot land is simply never seen.
    return signature;
  }),
  getSignatureStatuses: rpcMethod(z.tuple([z.array(z.string()).max(256)]).rest(z.unknown()), ({ ledger, withContext }, [signatures]) =>
    withContext(
      signatures.map((signature) => {
        const found = ledger.findTransaction(signature);
        if (found === null) return null;
        const err = found.meta.err;
        return {
          slot: found.slot,
          confirmations: null,
          err,
          status: err === null ? { Ok: null } : { Err: err },
          confirmationStatus: 'finalized',
        };
      }),
    ),
  ),
  getTransaction: rpcMethod(z.tuple([z.string(), transactionConfig.optional()]), ({ ledger }, [signature, config]) => {
    const found = ledger.findTransaction(signature);
    return found === null ? null : encodeTransaction(found, config?.encoding ?? 'json', config?.maxSupportedTransactionVersion);
  }),
  getSignaturesForAddress: rpcMethod(z.tuple([address, signaturesConfig.optional()]), ({ ledger }, [key, config]) =>
    ledger.signaturesFor(key, { before: config?.before, until: config?.until, limit: config?.limit ?? 1000 }).map((row) => ({
      signature: row.signature,
      slot: row.slot,
      err: row.meta.err,
      memo: null,
      blockTime: BigInt(Math.floor(row.blockTime / 1000)),
      confirmationStatus: 'finalized',
    })),
  ),
};

function wireBytes(input: string, encoding: 'base58' | 'base64'): Uint8Array {
  try {
    return new Uint8Array(encoding === 'base64' ? getBase64Encoder().encode(input) : getBase58Encoder().encode(input));
  } catch {
    throw new RpcError(-32602, `Invalid param: the transaction is not ${encoding}`);
  }
}

function decodeTransaction(input: string, encoding: 'base58' | 'base64'): Transaction {
  const bytes = wireBytes(input, encoding);
  try {
    return getTransactionDecoder().decode(bytes) as Transaction;
  } catch {
    throw new RpcError(-32602, 'Invalid param: the transaction cannot be decoded');
  }
}

/** Every signature slot filled: what a node checks before anything else. */
function assertSigned(transaction: Transaction): void {
  for (const signature of Object.values(transaction.signatures)) {
    if (signature === null) throw new RpcError(-32003, 'Transaction signature verification failure');
  }
}

function preflightFailure(err: RpcTransactionError, logs: string[], unitsConsumed: number): RpcError {
  const named = typeof err === 'string' ? err : JSON.stringify(err);
  return new RpcError(-32002, `Transaction simulation failed: ${named}`, {
    err,
    logs,
    accounts: null,
    unitsConsumed: BigInt(unitsConsumed),
    returnData: null,
    innerInstructions: null,
  });
}
