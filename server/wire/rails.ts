/**
 * The rails Coffer moves USDC on: `sol`, USDC on Solana (the wallet that names each treasury and agent
 * is its Solana address), and `base`, USDC on Base (each wallet's EVM account, from the same recovery
 * phrase). One ledger and one policy hold over both: every move of money records its rail.
 */
export const RAILS = ['sol', 'base'] as const;
export type Rail = (typeof RAILS)[number];
