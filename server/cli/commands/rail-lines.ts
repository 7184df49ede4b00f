/**
 * What a wallet holds on each rail, in the words of `coffer status` (the owner's and an agent's): its
 * balance and its address on Solana and on Base, and the gas the treasury holds for its moves on Base.
 * Base is named only where its rail is open (the answer's `baseNetwork`): a Base account is filed for
 * every wallet, and USDC sent there with the rail off would reach no rail this Coffer reads.
 */
import type { CofferClient } from '../../client/coffer-client.js';
import type { RailBalances, RailWallets } from '../../wire/answers/agents.js';
import type { DashboardTreasury } from '../../wire/answers/dashboard.js';
import { railName } from '../../wire/rail-words.js';
import { RAILS, type Rail } from '../../wire/rails.js';
import { gasWords, shortEther } from '../../wire/network-words.js';

/** Why a balance on Base reads as unknown: the rail is open, and its node did not answer. */
const BASE_NODE_AWAY = 'its node did not answer';

/** "3.00 USDC on Solana"; "unknown on Base" where it could not be read. */
export const heldOn = (balance: string | null, rail: Rail): string =>
  `${balance === null ? 'unknown' : `${balance} USDC`} on ${railName(rail)}`;

/** What a wallet holds on each rail this Coffer pays on, in one line: "3.00 USDC on Solana, 1.00 USDC on Base". */
export const heldOnEachRail = (balances: RailBalances, baseNetwork: string | null): string =>
  RAILS.filter((rail) => rail !== 'base' || (baseNetwork ?? null) !== null)
    .map((rail) => heldOn(balances[rail], rail))
    .join(', ');

/**
 * A line for each rail the wallet has an address on and this Coffer pays on (Solana first; Base where
 * `baseNetwork` names it): what it holds there and that address, the columns aligned; a balance that
 * could not be read says why.
 */
export function walletLines(wallets: RailWallets, balances: RailBalances, baseNetwork: string | null): string[] {
  // `?? null`: an older Coffer's answer has no baseNetwork at all, and pays no Base.
  const rails = RAILS.filter((rail) => wallets[rail] !== null && (rail !== 'base' || (baseNetwork ?? null) !== null));
  const held = rails.map((rail) => heldOn(balances[rail], rail));
  const width = Math.max(...held.map((words) => words.length));
  return rails.map(
    (rail, index) => `${held[index]!.padEnd(width)}  (${wallets[rail]})${balances[rail] === null ? `: ${BASE_NODE_AWAY}` : ''}`,
  );
}

/**
 * The gas the treasury's Base account holds for the moves it sends (every move on Base), as the
 * dashboard says it, with its warning under 100 moves (`low`); null where it could not be read. The
 * count is at the fee now, so it grows as the fee falls: said with it, it does not read as wrong.
 */
export function gasLine(treasury: Pick<DashboardTreasury, 'baseGas' | 'network' | 'wallets'>): string | null {
  // `?? null`: an older Coffer's dashboard has no baseGas at all.
  const gas = treasury.baseGas ?? null;
  if (gas === null) return null;
  const line = `gas on Base: ${shortEther(gas.balance)} ${gasWords(treasury.network)}, about ${gas.moves.toLocaleString('en-US')} moves at today's fee`;
  return gas.low ? `${line}: LOW, send ETH to ${treasury.wallets.base ?? 'its Base address'} before it runs out` : line;
}

/**
 * Whether this Coffer's Base rail is open (its health names a Base chain). A health that does not
 * answer counts as closed: Base goes unsaid rather than named where it may be off.
 */
export const baseRailOpen = async (api: Pick<CofferClient, 'health'>): Promise<boolean> =>
  ((await api.health().catch(() => null))?.base ?? null) !== null;
