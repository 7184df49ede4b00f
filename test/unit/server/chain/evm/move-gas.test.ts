import { describe, expect, it } from 'vitest';
import { GAS_PER_MOVE, MOVE_GAS_LIMIT, movesCovered } from '../../../../../server/chain/evm/move-gas.js';

const FEE = 2_000_000_000n; // 2 gwei, the relayer's max fee a gas

describe('how many moves a relayer can still send on its gas', () => {
  it('counts the last move only where its whole gas limit at the max fee is at hand', () => {
    const limit = MOVE_GAS_LIMIT * FEE;
    const move = GAS_PER_MOVE * FEE;
    expect(movesCovered(0n, FEE)).toBe(0);
    // Enough for what one move uses, not for what sending it asks: none.
    expect(movesCovered(move, FEE)).toBe(0);
    expect(movesCovered(limit - 1n, FEE)).toBe(0);
    expect(movesCovered(limit, FEE)).toBe(1);
    // Each move before the last uses at most GAS_PER_MOVE.
    expect(movesCovered(limit + move - 1n, FEE)).toBe(1);
    expect(movesCovered(limit + move, FEE)).toBe(2);
    expect(movesCovered(limit + 99n * move, FEE)).toBe(100);
  });

  it('counts without end where gas costs nothing (a chain with no fee)', () => {
    expect(movesCovered(0n, 0n)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
