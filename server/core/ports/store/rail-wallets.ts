/**
 * Port: each wallet's address on the rails besides Solana's. Coffer names a wallet (a treasury's or an
 * agent's) by its Solana address everywhere; its account on another rail (`base`: an EVM address,
 * from the same recovery phrase index) is kept beside it, once, and found from either side.
 */
export type OtherRail = 'base';

export interface RailWalletStore {
  /** Files `wallet`'s address on `rail`; a wallet has one per rail and an address one wallet, for good. */
  insertRailWallet(wallet: string, rail: OtherRail, address: string): void;
  /** The addresses on `rail` of the wallets named (those that have one). */
  railWallets(rail: OtherRail, wallets: readonly string[]): Map<string, string>;
  /** The wallet whose address on `rail` this is, if any. */
  walletOfRailAddress(rail: OtherRail, address: string): string | null;
}
