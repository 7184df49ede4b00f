/**
 * What an answer reads of the Base rail beside Solana: unknown (null) where the rail is off or its
 * node does not answer (logged), so that a second rail out of reach never keeps an answer about the
 * first from the owner. One answer reads through one BaseReads: once a read failed, the reads after
 * it are unknown at once, not waited for again (viem waits 15 s and tries once more: a dashboard that
 * asked the rows' pages, the treasury, its gas and the archived agents of a hung node, one after
 * another, took minutes).
 */
import type { EngineContext } from './context.js';
import { formatUsdc } from '../wire/money.js';
import type { Chain } from './ports/chain.js';
import { openBase } from './rails.js';

/** Fewer moves than this left in the treasury's gas on Base, and the dashboard warns. */
export const LOW_GAS_MOVES = 100;

export interface BaseReads {
  /** What a Base account holds, in USDC; null where there is none, or Base is unknown. */
  balance(account: string | null): Promise<string | null>;
  /** What a page of Base accounts holds, by account, in one read; null where Base is unknown. */
  balances(accounts: string[]): Promise<Map<string, bigint> | null>;
  /** The gas the treasury's Base account holds for the moves it sends; null where Base is unknown. */
  gas(account: string | null): Promise<{ balance: string; moves: number; low: boolean } | null>;
}

export function baseReads(ctx: Pick<EngineContext, 'base' | 'log'>): BaseReads {
  let base: Chain | null = openBase(ctx);
  const read = async <T>(what: string, asked: (chain: Chain) => Promise<T>): Promise<T | null> => {
    if (base === null) return null;
    try {
      return await asked(base);
    } catch (error) {
      base = null;
      ctx.log(`the Base rail's node did not answer ${what} (${(error as Error).message}); shown as unknown`);
      return null;
    }
  };
  return {
    balance: async (account) =>
      account === null ? null : read('a balance', async (chain) => formatUsdc(await chain.usdcBalance(account))),
    balances: async (accounts) =>
      accounts.length === 0 && base !== null ? new Map() : read("the agents' balances", (chain) => chain.usdcBalances(accounts)),
    gas: async (account) => {
      if (account === null || base?.gasCover === undefined) return null;
      return read("the treasury's gas", async (chain) => {
        const { balance, moves } = await chain.gasCover!(account);
        return { balance, moves, low: moves < LOW_GAS_MOVES };
      });
    },
  };
}
