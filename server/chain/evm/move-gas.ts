/** The gas of a move on an EVM rail (a `transferWithAuthorization` the relayer sends), and how many a balance covers. */

/** The gas one move uses at most: 66,295 to a holder, 83,407 to an account never credited (measured), with room. */
export const GAS_PER_MOVE = 90_000n;

/**
 * The gas limit of a move's transaction: above any transferWithAuthorization of USDC (66,295 to
 * a holder, 83,407 to an account never credited, measured on the test node), with room for a token
 * upgrade. Unused gas is not paid, but a node takes a transaction only from a sender holding its
 * whole limit at its max fee.
 */
export const MOVE_GAS_LIMIT = 150_000n;

/**
 * How many moves a sender holding `wei` can still send at `maxFeePerGas`, one at a time: each one
 * before the last uses at most GAS_PER_MOVE, and the last must find its whole MOVE_GAS_LIMIT at
 * hand. An estimate at today's fee: several moves in flight at once each hold their whole limit
 * until mined (a node counts them together), and a fee raised for a stuck move costs more. Without
 * end where gas costs nothing.
 */
export function movesCovered(wei: bigint, maxFeePerGas: bigint): number {
  if (maxFeePerGas === 0n) return Number.MAX_SAFE_INTEGER;
  const last = MOVE_GAS_LIMIT * maxFeePerGas;
  if (wei < last) return 0;
  return 1 + Number((wei - last) / (GAS_PER_MOVE * maxFeePerGas));
}
