import type { RailBalances } from '../api/types.js';
import type { Rail } from '../../../server/wire/rails.js';
import { tryParseUsdc } from '../../../server/wire/money.js';

/**
 * The rail an agent's money is on, as the dashboard leads with it (its balance, its Funds card): Base
 * where its wallet holds USDC there and none on Solana, so an agent funded on Base alone does not
 * read as empty; Solana otherwise (a Base balance unread counts as none).
 */
export function railHolding(balances: RailBalances): Rail {
  const onSolana = tryParseUsdc(balances.sol) ?? 0n;
  const onBase = balances.base === null ? 0n : (tryParseUsdc(balances.base) ?? 0n);
  return onSolana === 0n && onBase > 0n ? 'base' : 'sol';
}

/**
 * An agent's balance as its row and its page lead with it: the rail its money is on (Solana alone where
 * the Base rail is off), that rail's figure, and the other rail, shown small beneath.
 */
export function leadingBalance(balances: RailBalances, baseOff: boolean): { lead: Rail; amount: string; other: Rail } {
  const lead = baseOff ? 'sol' : railHolding(balances);
  return { lead, amount: lead === 'base' && balances.base !== null ? balances.base : balances.sol, other: lead === 'sol' ? 'base' : 'sol' };
}
