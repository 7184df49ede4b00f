/**
 * A paywall's x402 rails: its terms on Solana and on Base, how it reads each chain, and what its
 * facilitator says of each now.
 */
import type { Address, Hash } from 'viem';
import type { CarriedAuthorization } from '../../chain/evm/transfer-lookup.js';
import type { Chain, TransferFound } from '../../core/ports/chain.js';
import type { facilitatorFeePayer, facilitatorSettles } from './facilitator-kinds.js';
import type { Nonces } from './nonces.js';
import type { PaywallStore } from './paywall-store.js';
import type { X402BaseSeller, X402Seller } from './x402-requirements.js';

/** The paywall's x402 terms on Base: the chain as x402 names it, its USDC, the recipient, and the token's EIP-712 name and version (read from the token). */
export interface PaywallBaseTerms extends X402BaseSeller {
  tokenNaming(): Promise<{ name: string; version: string }>;
  /** Whether the transaction ran this EIP-3009 authorization (its `AuthorizationUsed` log). */
  ranAuthorization(txHash: string, from: Address, nonce: Hash): Promise<boolean>;
  /** Whether the transaction ran this authorization paying what it says; `settled` where the facilitator said it settled there (a node that does not know it then throws). */
  paidInTransaction(txHash: string, authorization: CarriedAuthorization, settled?: boolean): Promise<boolean>;
  /** The transaction that ran this authorization, sent no earlier than `since` (seconds), and its sender. */
  whereAuthorizationRan(authorization: CarriedAuthorization, since: bigint): Promise<{ transaction: Hash; sender: Address } | null>;
}

/** The paywall's x402 terms on Solana, and how it reads a transaction there (its receipts' lookup). */
export interface PaywallSolTerms extends X402Seller {
  findTransfer(txSignature: string): Promise<TransferFound | null>;
  /** Where a payer's signed transaction landed, where the lookup can tell (a cluster's RPC); null otherwise. */
  fateOfPayerSigned: Chain['fateOfPayerSigned'] | null;
  /** Whether the cluster still takes a wire transaction's blockhash, where the lookup can tell (a cluster's RPC); null otherwise. */
  blockhashUsable: ((txWire: string) => Promise<boolean>) | null;
}

/** A paywall's rails as a payment is read on them: its terms on each, and what its facilitator says now. */
export interface Rails {
  sol: PaywallSolTerms | null;
  base: PaywallBaseTerms | null;
  /** The facilitator's fee payers on Solana (facilitator-kinds.ts); null where the paywall has no Solana. */
  feePayer: ReturnType<typeof facilitatorFeePayer> | null;
  /** Whether the facilitator settles on Base, and from which accounts; null where the paywall has no Base. */
  baseSettled: ReturnType<typeof facilitatorSettles> | null;
  /** The Base token's name and version while the facilitator settles there; null otherwise. */
  baseToken(): Promise<{ name: string; version: string } | null>;
  nonces: Nonces;
  store: PaywallStore;
}
