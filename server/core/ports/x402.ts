import type { Rail } from '../../wire/rails.js';

/**
 * The x402 buyer port: reading a seller's 402 and signing its payment with an agent's wallet, as the
 * official x402 packages do (the adapter is built on them). The core decides whether to pay (policy,
 * registry price, balance, in the same reservation as /pay); the adapter owns the wire formats.
 */

/** One way a seller accepts payment (an entry of its `accepts` list), in Coffer's terms. */
export interface X402Requirement {
  scheme: string;
  /** The x402 network id as the seller wrote it (`solana-devnet`, `solana:EtWT...`). */
  network: string;
  /** Smallest units of `asset`. */
  amount: bigint;
  asset: string;
  payTo: string;
  /** The facilitator's fee payer (`extra.feePayer`, Solana): it signs as fee payer and sends. */
  feePayer: string | null;
  /** How long the seller gives the payment to complete (`maxTimeoutSeconds`); null where it is not a number. */
  maxTimeoutSeconds: number | null;
  /** The entry's `extra` as the seller wrote it (an EVM token's EIP-712 `name` and `version`, a transfer method). */
  extra: Record<string, unknown>;
}

/** How x402 names one network: v1's name (none for a chain v1 does not know) and v2's CAIP-2 id. */
export interface X402Names {
  v1: string | null;
  v2: string;
}

/** A seller's 402, read. `source` is the adapter's own parse, handed back to `sign`. */
export interface X402Offer {
  x402Version: number;
  requirements: X402Requirement[];
  source: unknown;
}

export interface X402Signed {
  /** The header to retry the paid request with (`X-PAYMENT` for v1, `PAYMENT-SIGNATURE` for v2). */
  header: { name: string; value: string };
  /**
   * What the payer signed, as the rail's chain keeps it: on Solana the transaction (the fee payer's
   * signature slot still empty); on Base the EIP-3009 authorization (the seller's facilitator sends it).
   */
  txWire: string;
  /**
   * How the landed payment is recognised: on Solana the payer's own signature in the transaction; on
   * Base the authorization's nonce (the token runs each at most once).
   */
  payerSignature: string;
  /** Solana: a block height after which the transaction can no longer land. Base: the authorization's `validBefore` (seconds). */
  lifetimeEnd: bigint;
}

/**
 * A seller's offer to sign in instead of paying again (x402's `sign-in-with-x`, CAIP-122): the
 * challenge it issued for this request, and the chains it takes proofs from.
 */
export interface X402SignInChallenge {
  /** The host the proof is for; it must be the one asked. */
  domain: string;
  /** The resource it is for; its origin must be the one asked. */
  uri: string;
  /** CAIP-2 chain ids it takes an Ed25519 (Solana) proof for. */
  ed25519Chains: string[];
  /** CAIP-2 chain ids it takes an EIP-191 (EVM, Sign-In With Ethereum) proof for. */
  eip191Chains: string[];
  /**
   * Why a SIWE/SIWS message cannot carry the challenge as the standards write one (a line break in a
   * field, another version, a time that is no RFC 3339 time); null where it can.
   */
  fault: string | null;
}

export interface X402Buyer {
  /**
   * The x402 names of the networks Coffer pays on, by rail: Solana's (`solana-devnet`,
   * `solana:EtWT...`) and Base's (`base-sepolia`, `eip155:84532`). Null: x402 names no network of
   * that rail here (Solana's sim chain, a local cluster) or the rail is not open.
   */
  readonly networks: { sol: X402Names | null; base: X402Names | null };
  /** Reads a 402 answer (v2: the PAYMENT-REQUIRED header; v1: the body); null when it is no x402 offer. */
  readOffer(answer: { headers: Record<string, string>; body: unknown }): X402Offer | null;
  /**
   * Signs the payment of one requirement of the offer on its rail with the payer's account there,
   * and reads back what was signed before it is handed out. Solana: the payer signs only as the
   * token owner (the fee payer's slot stays empty), and the transaction moves exactly that amount of
   * that asset to that recipient and nothing else of the payer's. Base: an EIP-3009 authorization of
   * exactly that amount of this chain's USDC to that recipient, within the offer's time, its nonce
   * committing to that recipient and `paymentId`, so that the payment signed again (a held purchase
   * keeps its id) can move money once at most.
   */
  sign(offer: X402Offer, requirement: X402Requirement, payer: string, rail: Rail, paymentId: string): Promise<X402Signed>;
  /**
   * Why `sign` would refuse this requirement on its rail whatever the payer (on Base: a token name or
   * version that is not this USDC's, a transfer method other than EIP-3009, no time given), asked
   * before anything is judged so that a rail it would refuse is never chosen or held; null where it
   * would sign it, or cannot tell now (its chain unanswered: the signing says so).
   */
  signingRefusal(requirement: X402Requirement, rail: Rail): Promise<string | null>;
  /** The offer's sign-in challenge (v2 `extensions["sign-in-with-x"]`), if it makes one. */
  readSignIn(offer: X402Offer): X402SignInChallenge | null;
  /**
   * Signs the offer's sign-in challenge for this chain with the wallet's key on that rail (its Solana
   * wallet, or its Base account for an `eip155` chain), as `@x402/extensions` formats it (a Sign-In
   * With Solana or With Ethereum text message, never a transaction): the header the request is sent
   * again with.
   */
  signIn(offer: X402Offer, chainId: string, wallet: string, url: string, rail: Rail): Promise<{ name: string; value: string }>;
  /** The transaction a seller reports having settled (`PAYMENT-RESPONSE`, `X-PAYMENT-RESPONSE`), if any. */
  readSettlement(headers: Record<string, string>): string | null;
}
