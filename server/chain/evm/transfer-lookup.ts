/**
 * Reading one USDC transfer off an EVM chain by its transaction's hash, keyless: what the Base rail's
 * Chain answers for it, and how a paid API verifies a Base receipt (server/x402/paywall/verify-receipt.ts).
 * A Solana transfer carries its memo on chain; an EVM one cannot, so Coffer signs its EIP-3009
 * authorization with a nonce committing to its recipient and memo (authorization.ts), and the memo
 * found here is that nonce: the `AuthorizationUsed` log its payer's authorization left in the
 * transaction.
 */
import {
  createPublicClient,
  getAddress,
  parseEventLogs,
  type Address,
  type Hash,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
} from 'viem';
import type { TransferFound, TransferLookup } from '../../core/ports/chain.js';
import { USDC_ABI } from './usdc-abi.js';
import { evmRpcAt } from './rpc.js';
import { nodeUnanswered } from './node-errors.js';
import { tokenNamingReader, type TokenNaming } from './token-domain.js';
import { EARLIER_SEARCHED_SECONDS, authorizationCanceledIn, authorizationUsedIn, earliestOnChain } from './log-reads.js';
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

/** The token's logs in a transaction that succeeded, and the AuthorizationUsed log of `from` with `nonce` among them. */
function authorizationUsedLog(receipt: TransactionReceipt, usdc: Address, from: Address, nonce: Hash) {
  if (receipt.status !== 'success') return null;
  const ofToken = receipt.logs.filter((log) => getAddress(log.address) === usdc);
  const used = parseEventLogs({ abi: USDC_ABI, eventName: 'AuthorizationUsed', logs: ofToken }).find(
    (log) => getAddress(log.args.authorizer) === getAddress(from) && log.args.nonce === nonce,
  );
  return used === undefined ? null : { used, ofToken };
}

/** A receipt or transaction the node does not have: null; any other failure is thrown. */
const notFound = (error: Error) => {
  if (error.name === 'TransactionReceiptNotFoundError' || error.name === 'TransactionNotFoundError') return null;
  throw error;
};

/**
 * Whether the transaction `txHash` ran the authorization of `from` with `nonce` on the token (its
 * AuthorizationUsed log, in a transaction that succeeded): a seller's report of where an x402
 * payment landed, checked by its receipt alone.
 */
export async function ranAuthorization(client: PublicClient, usdc: Address, txHash: string, from: Address, nonce: Hash): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) return false;
  const receipt = await client.getTransactionReceipt({ hash: txHash as Hash }).catch(notFound);
  return receipt !== null && authorizationUsedLog(receipt, usdc, from, nonce) !== null;
}

/**
 * As ranAuthorization, of a transaction its facilitator reported settled (a paywall's): one this node
 * has no receipt of is not known here yet (its node behind the facilitator's), and throws, never a
 * "no": answered no, the payment would be recorded by its transaction alone, and take the answer of
 * every other payment that transaction ran.
 */
async function settledRanAuthorization(client: PublicClient, usdc: Address, txHash: string, from: Address, nonce: Hash): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) return false;
  const receipt = await client.getTransactionReceipt({ hash: txHash as Hash }).catch(notFound);
  if (receipt === null) throw new CofferError('chain_unavailable', 'the transaction the facilitator settled is not known to this node yet');
  return authorizationUsedLog(receipt, usdc, from, nonce) !== null;
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
 * Whether the transaction `txHash` ran `authorization` paying its `to` its `value`: its
 * AuthorizationUsed log of that payer and nonce, followed at once by the token's Transfer of that
 * sum between those two, as USDC writes them for one authorization (a payer may sign two
 * authorizations with one nonce: the log alone says only that one of them ran there). Null where it
 * did not, or the transaction is unknown to the node (dropped); throws while the node knows it but
 * has no receipt of it yet, and, where its facilitator reported it `settled`, while the node does
 * not know it (its node behind the facilitator's: not known here yet, never "not paid").
 */
export async function paidInTransaction(
  client: PublicClient,
  usdc: Address,
  txHash: string,
  authorization: CarriedAuthorization,
  settled = false,
): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) return false;
  const hash = txHash as Hash;
  const receipt = await client.getTransactionReceipt({ hash }).catch(notFound);
  if (receipt === null) {
    const known = (await client.getTransaction({ hash }).catch(notFound)) !== null;
    if (!known && !settled) return false;
    throw new CofferError(
      'chain_unavailable',
      known
        ? 'the transaction that settles the payment is not mined yet'
        : 'the transaction the facilitator settled is not known to this node yet',
    );
  }
  const ran = authorizationUsedLog(receipt, usdc, authorization.from, authorization.nonce);
  if (ran === null) return false;
  const next = ran.ofToken.find((log) => log.logIndex === ran.used.logIndex + 1);
  const [transfer] = next === undefined ? [] : parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: [next] });
  return (
    transfer !== undefined &&
    getAddress(transfer.args.from) === getAddress(authorization.from) &&
    getAddress(transfer.args.to) === getAddress(authorization.to) &&
    transfer.args.value === authorization.value
  );
}

/**
 * The transaction that ran `authorization`, sent no earlier than `since` (seconds by this host's
 * clock), and the account that sent it: null where the token says it was never used, it ran before
 * `since`, or its payer canceled it. Looked for in the blocks from `since` (on the chain's clock) to
 * the authorization's end, however early its window opens (x402's v2 buyers open it at 0); where it
 * is used but not there, in the two hours before (log-reads.ts EARLIER_SEARCHED_SECONDS), then its
 * cancellation from then on. Throws where it is used and neither log is found (a node whose log index
 * lags behind its state: where it ran is not known yet, never "nowhere").
 */
export async function whereAuthorizationRan(
  client: PublicClient,
  usdc: Address,
  authorization: CarriedAuthorization,
  since: bigint,
): Promise<{ transaction: Hash; sender: Address } | null> {
  // The state asked at the block read, as Chain.fateOf does (a load-balanced RPC's nodes differ).
  const newest = await client.getBlock();
  const used = await client.readContract({
    address: usdc,
    abi: USDC_ABI,
    functionName: 'authorizationState',
    args: [authorization.from, authorization.nonce],
    blockNumber: newest.number,
  });
  if (!used) return null;
  const now = BigInt(Math.floor(Date.now() / 1000));
  const earliest = earliestOnChain(since, now, newest, false);
  const transaction = await authorizationUsedIn(client, usdc, authorization, earliest, newest);
  if (transaction !== null) return { transaction, sender: getAddress((await client.getTransaction({ hash: transaction })).from) };
  // Not since `since`: it ran before (another settlement's), its payer canceled it (used, never run:
  // no one was paid), or the log is not indexed yet.
  const searchedFrom = earliest - EARLIER_SEARCHED_SECONDS;
  if ((await authorizationUsedIn(client, usdc, authorization, searchedFrom, newest, earliest)) !== null) return null;
  if ((await authorizationCanceledIn(client, usdc, authorization, searchedFrom, newest)) !== null) return null;
  throw new CofferError('chain_unavailable', 'the authorization is used, but the node does not show where it ran yet');
}

/** A keyless TransferLookup on an EVM chain: its chain id, and its USDC's EIP-712 name and version (what an x402 offer names). */
export interface EvmTransferLookup extends TransferLookup {
  readonly chainId: number;
  tokenNaming(): Promise<TokenNaming>;
  /**
   * Whether the transaction, which its facilitator reported settled, ran this EIP-3009 authorization
   * (its `AuthorizationUsed` log, of this USDC); throws where the node has no receipt of it yet.
   */
  ranAuthorization(txHash: string, from: Address, nonce: Hash): Promise<boolean>;
  /** Whether the transaction ran this authorization paying what it says; `settled` where its facilitator reported so (paidInTransaction). */
  paidInTransaction(txHash: string, authorization: CarriedAuthorization, settled?: boolean): Promise<boolean>;
  /** The transaction that ran this authorization, sent no earlier than `since`, and its sender; throws where not known yet (whereAuthorizationRan). */
  whereAuthorizationRan(authorization: CarriedAuthorization, since: bigint): Promise<{ transaction: Hash; sender: Address } | null>;
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
      asked('which authorization a transaction ran', settledRanAuthorization(client, network.usdc, txHash, from, nonce)),
    paidInTransaction: (txHash, authorization, settled) =>
      asked('whether a transaction ran an authorization', paidInTransaction(client, network.usdc, txHash, authorization, settled)),
    whereAuthorizationRan: (authorization, since) =>
      asked('where an authorization ran', whereAuthorizationRan(client, network.usdc, authorization, since)),
  };
}

/** A keyless TransferLookup over an EVM JSON-RPC: the network its node says it is, a known one's USDC or `usdc`. */
export async function evmTransferLookupAt(rpcUrl: string, usdc?: string): Promise<EvmTransferLookup> {
  const { transport, network } = await evmRpcAt(rpcUrl, usdc);
  return evmTransferLookup(transport, network);
}
