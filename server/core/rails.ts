/**
 * Each wallet's account on the Base rail, filed beside the Solana address that names it (the
 * RailWalletStore port): made by the key vault from the treasury's recovery phrase at the wallet's
 * own index, once, and read with the wallet wherever it is shown.
 */
import type { EngineContext } from './context.js';

/**
 * Files the Base account of each wallet named that has none yet: a new wallet as it is made, and a
 * data dir's wallets made before the Base rail when it opens. The account is in the key store before
 * its row, so a row always names an account whose key is kept.
 */
export async function fileBaseWallets(ctx: EngineContext, treasury: string, wallets: readonly string[]): Promise<void> {
  const filed = ctx.store.railWallets('base', wallets);
  for (const wallet of new Set(wallets)) {
    if (filed.has(wallet)) continue;
    const address = await ctx.vault.evmWalletOf(wallet, treasury);
    // Another caller may have filed it while the key store answered.
    if (ctx.store.railWallets('base', [wallet]).size === 0) ctx.store.insertRailWallet(wallet, 'base', address);
  }
}
