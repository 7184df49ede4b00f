/**
 * Reading one USDC transfer off an EVM chain by its transaction's hash, keyless: what the Base rail's
 * Chain answers for it, and how a paid API verifies a Base receipt (server/x402/verify-receipt.ts).
 * A Solana transfer carries its memo on chain; an EVM one cannot, so Coffer signs its EIP-3009
 * authorization with a nonce committing to its recipient and memo (authorization.ts), and the memo
 * found here is that nonce: the `AuthorizationUsed` log its payer's authorization left in the
 * transaction.
 */
import { createPublicClient, getAddress, parseEventLogs, type Address, type Hash, type PublicClient, type Transport } from 'viem';
import type { TransferFound, TransferLookup } from '../../core/ports/chain.js';
import { USDC_ABI } from './usdc-abi.js';
import { evmRpcAt } from './rpc.js';
import { nodeUnanswered } from './node-errors.js';
import { tokenNamingReader, type TokenNaming } from './token-domain.js';
import { authorizationUsedIn } from './log-reads.js';
import { CofferError } from '../../wire/errors.js';

/**
 * The token's transfer in a transaction: null where it is not one, or it moved the token more than
 * once (a batch: which of its transfers a receipt means is not for Coffer to guess). `memo` is the
 * nonce of the authorization its sender used there, null where it moved without one.
 */
export async function findEvmTransfer(client: PublicClient, usdc: Address, txHash: string): Promise<TransferFound | null> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) return null;
  const receipt = await client.getTransactionReceipt({ hash: txHash as Hash }).catch((error: Error) => {
    if (error.name === 'TransactionReceiptNotFoundError') return null;
    throw error;
  });
  if (receipt === null) return null;
  const ofToken = receipt.logs.filter((log) => getAddress(log.address) === usdc);
  const transfers = parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: ofToken });
  if (transfers.length !== 1) return null;
  const [transfer] = transfers as [(typeof transfers)[number]];
  const used = parseEventLogs({ abi: USDC_ABI, eventName: 'AuthorizationUsed', logs: ofToken }).filter(
    (log) => getAddress(log.args.authorizer) === getAddress(transfer.args.from),
  );
  const block = await client.getBlock({ blockHash: receipt.blockHash });
  return {
    txSignature: receipt.transactionHash,
    succeeded: receipt.status === 'success',
    error: receipt.status === 'success' ? null : 'reverted',
    from: getAddress(transfer.args.from),
    toTokenAccount: getAddress(transfer.args.to),
    to: getAddress(transfer.args.to),
    mint: usdc,
    amount: transfer.args.value,
    memo: used.length === 1 ? used[0]!.args.nonce : null,
    blockTime: Number(block.timestamp),
    slot: receipt.blockNumber,
  };
}

/**
 * Whether the transaction `txHash` ran the authorization of `from` with `nonce` on the token (its
 * AuthorizationUsed log, in a transaction that succeeded): a seller's report of where an x402
 * payment landed, checked by its receipt alone.
 */
export async function ranAuthorization(client: PublicClient, usdc: Address, txHash: string, from: Address, nonce: Hash): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) return false;
  const receipt = await client.getTransactionReceipt({ hash: txHash as Hash }).catch((error: Error) => {
    if (error.name === 'TransactionReceiptNotFoundError') return null;
    throw error;
  });
  if (receipt === null || receipt.status !== 'success') return false;
  const ofToken = receipt.logs.filter((log) => getAddress(log.address) === usdc);
  return parseEventLogs({ abi: USDC_ABI, eventName: 'AuthorizationUsed', logs: ofToken }).some(
    (log) => getAddress(log.args.authorizer) === from && log.args.nonce === nonce,
  );
}

/** An EIP-3009 authorization as a buyer's x402 payment carries it (what it pays, and its window). */
export interface CarriedAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  nonce: Hash;
  validAfter: bigint;
  validBefore: bigint;
}

/**
 * The transaction where `authorization`'s nonce was used to pay its `to` its `value`: the
 * AuthorizationUsed log of its payer and nonce (looked for from `earliest`, seconds, to its end),
 * followed at once by the token's Transfer of that amount between those two, as USDC writes them for
 * one authorization. Null where the nonce was not used so: not used, or used by another
 * authorization of the payer's paying someone else or another sum (a payer may sign two with one
 * nonce: the chain says only that one of them ran). Throws where it was used and no log of it is
 * found from `earliest` on.
 */
export async function paidByAuthorization(
  client: PublicClient,
  usdc: Address,
  authorization: CarriedAuthorization,
  earliest: bigint,
): Promise<Hash | null> {
  const { from, nonce } = authorization;
  if (!(await client.readContract({ address: usdc, abi: USDC_ABI, functionName: 'authorizationState', args: [from, nonce] }))) return null;
  const used = await authorizationUsedIn(client, usdc, authorization, earliest);
  // Used (or canceled by its payer), and not found where it could have run: a node whose log index
  // lags may show it later, so the outcome is not known yet.
  if (used === null) throw new CofferError('chain_unavailable', 'the authorization was used, but where is not found on chain yet');
  const receipt = await client.getTransactionReceipt({ hash: used });
  if (receipt.status !== 'success') return null;
  const ofToken = receipt.logs.filter((log) => getAddress(log.address) === usdc);
  const ran = parseEventLogs({ abi: USDC_ABI, eventName: 'AuthorizationUsed', logs: ofToken }).find(
    (log) => getAddress(log.args.authorizer) === getAddress(authorization.from) && log.args.nonce === authorization.nonce,
  );
  if (ran === undefined) return null;
  const next = ofToken.find((log) => log.logIndex === ran.logIndex + 1);
  const [transfer] = next === undefined ? [] : parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: [next] });
  const paid =
    transfer !== undefined &&
    getAddress(transfer.args.from) === getAddress(authorization.from) &&
    getAddress(transfer.args.to) === getAddress(authorization.to) &&
    transfer.args.value === authorization.value;
  return paid ? receipt.transactionHash : null;
}

/** A keyless TransferLookup on an EVM chain: its chain id, and its USDC's EIP-712 name and version (what an x402 offer names). */
export interface EvmTransferLookup extends TransferLookup {
  readonly chainId: number;
  tokenNaming(): Promise<TokenNaming>;
  /** Whether the transaction ran this EIP-3009 authorization (its `AuthorizationUsed` log, of this USDC). */
  ranAuthorization(txHash: string, from: Address, nonce: Hash): Promise<boolean>;
  /** Where this authorization's nonce paid what it says (paidByAuthorization); null: nowhere. */
  paidByAuthorization(authorization: CarriedAuthorization, earliest: bigint): Promise<Hash | null>;
}

/**
 * A keyless TransferLookup on an EVM chain, its network named as Coffer names it. A question its node
 * does not answer fails in one line (a paywall logs it: viem's message names the node's URL, which for
 * a hosted RPC carries its key).
 */
export function evmTransferLookup(transport: Transport, network: { name: string; chainId: number; usdc: Address }): EvmTransferLookup {
  const client = createPublicClient({ transport });
  const asked = <T>(what: string, answer: Promise<T>) =>
    answer.catch((error: unknown) => {
      throw nodeUnanswered(network.name, what, error);
    });
  const naming = tokenNamingReader(client, network.usdc, network.chainId);
  return {
    network: network.name,
    chainId: network.chainId,
    usdc: network.usdc,
    findTransfer: (txHash) => asked('a transaction', findEvmTransfer(client, network.usdc, txHash)),
    tokenNaming: () => asked("the USDC token's name", naming()),
    ranAuthorization: (txHash, from, nonce) =>
      asked('which authorization a transaction ran', ranAuthorization(client, network.usdc, txHash, from, nonce)),
    paidByAuthorization: (authorization, earliest) =>
      asked('where an authorization ran', paidByAuthorization(client, network.usdc, authorization, earliest)),
  };
}

/** A keyless TransferLookup over an EVM JSON-RPC: the network its node says it is, a known one's USDC or `usdc`. */
export async function evmTransferLookupAt(rpcUrl: string, usdc?: string): Promise<EvmTransferLookup> {
  const { transport, network } = await evmRpcAt(rpcUrl, usdc);
  return evmTransferLookup(transport, network);
}
