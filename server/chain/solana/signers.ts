import type { KeyPairSigner } from '@solana/kit';
import type { KeyVault } from '../../core/ports/keys.js';

/**
 * Signs bytes with one wallet's key, at once (Ed25519 in node:crypto, on the calling thread). Not on
 * the thread pool, though that frees about 100 µs of the serving thread a payment: each hop there lets
 * whatever else waits (a dashboard refresh's pages) run in the middle of the payment, and a payment's
 * p99 while the dashboard refreshes went from 1.3x its idle p99 to 3.2x (measured both ways, with the
 * refresher in the payments' own process; with it in a process of its own, 1.2x to 1.9x, too noisy to choose on).
 */
export type SignBytes = (message: Uint8Array) => Uint8Array;

/**
 * What the Solana rail signs with (its chains and Coffer's x402 buyer): besides the key vault, one
 * wallet's key as @solana/kit's signer or as a synchronous signing function. The key bytes stay in
 * the vault (server/keys), which answers this port: the rail owns what it needs of the keys.
 */
export interface WalletSigners extends KeyVault {
  signer(address: string): Promise<KeyPairSigner>;
  /**
   * The same key as a synchronous signing function: WebCrypto's sign hops to the thread pool and back
   * (about 90 µs here against 30 µs), and a payment signs three times.
   */
  signBytes(address: string): Promise<SignBytes>;
}
