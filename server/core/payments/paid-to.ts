/**
 * Whom a payment may go to, whatever the door (/pay, an x402 offer, a Bazaar listing): the one place
 * the rule lives.
 */
import { isEvmAddress, isZeroEvmAddress, type Rail } from '../../wire/rails.js';
import type { EngineContext } from '../context.js';
import type { AgentRecord } from '../ports/store.js';
import { addressOn } from '../rails.js';

/**
 * Whether money sent to `payTo` reaches someone: not the EVM zero address (USDC refuses it; an x402
 * authorization would hold its budget until it lapsed), nor the token's own contract or mint (no one
 * could spend it; on a real chain it is lost).
 */
export const paysSomeone = (payTo: string, asset: string | null): boolean =>
  !isZeroEvmAddress(payTo) && (asset === null || !sameAddress(payTo, asset));

/** One address in two spellings: an EVM address in any case; a Solana one (base58, case-sensitive) as written. */
const sameAddress = (a: string, b: string): boolean => (isEvmAddress(a) ? a.toLowerCase() === b.toLowerCase() : a === b);

/** Whether `recipient` is the paying agent's own wallet on the rail (an EVM address in any case): paying it buys nothing. */
export function isOwnWallet(ctx: EngineContext, agent: AgentRecord, recipient: string, rail: Rail): boolean {
  return sameAddress(recipient, addressOn(ctx, agent.walletAddress, rail));
}
