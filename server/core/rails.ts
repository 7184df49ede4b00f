/**
 * The rails (server/wire/rails.ts) as the rules see them: each rail's chain, and each wallet's
 * address on it. A wallet is named by its Solana address everywhere; its account on the Base rail is
 * filed beside it (the RailWalletStore port), made by the key vault from the treasury's recovery
 * phrase at the wallet's own index, once.
 */
import type { ContextWith, EngineContext } from './context.js';
import type { RailWalletStore } from './ports/store.js';
import type { RailWallets } from '../wire/answers/agents.js';
import type { Chain } from './ports/chain.js';
import { CofferError } from '../wire/errors.js';
import type { Rail } from '../wire/rails.js';

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

/** The Base rail's chain where this data dir has it open; null where it is off. */
export const openBase = (ctx: Pick<EngineContext, 'base'>): Chain | null => ctx.base ?? null;

/** The chain of a rail: Solana's, or Base's where this data dir has it open. */
export function chainOf(ctx: Pick<EngineContext, 'chain' | 'base'>, rail: Rail): Chain {
  if (rail === 'sol') return ctx.chain;
  const base = openBase(ctx);
  if (base === null) {
    throw new CofferError(
      'rail_unavailable',
      "the Base rail is not open on this data dir: it is off where Coffer was started with COFFER_BASE_RPC=off, on a Solana RPC of the owner's own without a COFFER_BASE_RPC, or where the embedded EVM cannot run (Coffer's start said which)",
    );
  }
  return base;
}

/** A wallet's address on a rail: Coffer names each wallet by its Solana address; its Base account is filed beside it. */
export function addressOn(ctx: EngineContext, wallet: string, rail: Rail): string {
  if (rail === 'sol') return wallet;
  const address = ctx.store.railWallets('base', [wallet]).get(wallet);
  if (address === undefined) throw new CofferError('internal', `the wallet ${wallet} has no Base account filed`);
  return address;
}

/** A wallet's address on each rail, as every door shows it. */
export function railWalletsOf(ctx: ContextWith<RailWalletStore>, wallet: string): RailWallets {
  return { sol: wallet, base: ctx.store.railWallets('base', [wallet]).get(wallet) ?? null };
}

/** The wallet (its Solana name) a recipient on a rail is, where it is one of this data dir's; else the address itself. */
export const walletOfRecipient = (ctx: EngineContext, recipient: string, rail: Rail): string =>
  rail === 'sol' ? recipient : (ctx.store.walletOfRailAddress(rail, recipient) ?? recipient);
