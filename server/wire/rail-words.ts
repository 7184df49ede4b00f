/**
 * A rail's name where a person reads it (the tray, the CLI): USDC on Solana, USDC on Base. Pure and
 * browser-safe.
 */
import { isEvmAddress, type Rail } from './rails.js';

const RAIL_NAMES: Readonly<Record<Rail, string>> = { sol: 'Solana', base: 'Base' };

/** "Solana", "Base": the chain a person knows the rail by. */
export const railName = (rail: Rail): string => RAIL_NAMES[rail];

/**
 * A wallet a backup lacks the key of, by what it is: a Solana wallet, or a wallet's account on Base
 * (its 0x address), which an owner who knows the agents by their Solana addresses could not place.
 */
export const keylessWalletWords = (address: string): string =>
  isEvmAddress(address) ? `the Base account ${address}` : `wallet ${address}`;
