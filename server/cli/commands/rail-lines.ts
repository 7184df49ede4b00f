/**
 * What a wallet holds on each rail, in the words of `coffer status` (the owner's and an agent's): its
 * balance and its address on Solana and on Base, and the gas the treasury holds for its moves on Base.
 * The answers say null for a Base balance both where the rail is off and where its node did not answer;
 * only the dashboard's treasury tells the two apart (`baseNetwork`), so elsewhere the words name both.
 */
import type { RailBalances, RailWallets } from '../../wire/answers/agents.js';
import type { DashboardTreasury } from '../../wire/answers/dashboard.js';
import { groupThousands } from '../../wire/money.js';
import { railName } from '../../wire/rail-words.js';
import { RAILS, type Rail } from '../../wire/rails.js';
import { gasWords } from '../../wire/network-words.js';

/** Why a balance on Base reads as unknown, where the answer does not say whether the rail is open. */
export const BASE_UNKNOWN = 'the Base rail is off here, or its node did not answer';
/** Why a balance on Base reads as unknown where the rail is open. */
export const BASE_NODE_AWAY = 'its node did not answer';

/** "3.00 USDC on Solana"; "unknown on Base" where it could not be read. */
export const heldOn = (balance: string | null, rail: Rail): string =>
  `${balance === null ? 'unknown' : `${balance} USDC`} on ${railName(rail)}`;

/**
 * A line for each rail the wallet has an address on (Solana first): what it holds there and that
 * address, the columns aligned; a balance that could not be read says why (`unknownBecause`).
 */
export function walletLines(wallets: RailWallets, balances: RailBalances, unknownBecause = BASE_UNKNOWN): string[] {
  const rails = RAILS.filter((rail) => wallets[rail] !== null);
  const held = rails.map((rail) => heldOn(balances[rail], rail));
  const width = Math.max(...held.map((words) => words.length));
  return rails.map(
    (rail, index) => `${held[index]!.padEnd(width)}  (${wallets[rail]})${balances[rail] === null ? `: ${unknownBecause}` : ''}`,
  );
}

/** ETH as the dashboard shows it: at most 4 decimals, cut (never more than it holds), grouped. */
function shortEther(balance: string): string {
  const [whole = '0', fraction = ''] = balance.split('.');
  const kept = fraction.slice(0, 4).replace(/0+$/, '');
  return groupThousands(kept === '' ? whole : `${whole}.${kept}`);
}

/**
 * The gas the treasury's Base account holds for the moves it sends (every move on Base), as the
 * dashboard says it, with its warning under 100 moves (`low`); null where it could not be read.
 */
export function gasLine(treasury: Pick<DashboardTreasury, 'baseGas' | 'network' | 'wallets'>): string | null {
  const gas = treasury.baseGas;
  if (gas === null) return null;
  const line = `gas on Base: ${shortEther(gas.balance)} ${gasWords(treasury.network)}, about ${gas.moves.toLocaleString('en-US')} moves`;
  return gas.low ? `${line}: LOW, send ETH to ${treasury.wallets.base ?? 'its Base address'} before it runs out` : line;
}
