/**
 * A rail's name where a person reads it (the tray, the CLI): USDC on Solana, USDC on Base. Pure and
 * browser-safe.
 */
import type { Rail } from './rails.js';

const RAIL_NAMES: Readonly<Record<Rail, string>> = { sol: 'Solana', base: 'Base' };

/** "Solana", "Base": the chain a person knows the rail by. */
export const railName = (rail: Rail): string => RAIL_NAMES[rail];
