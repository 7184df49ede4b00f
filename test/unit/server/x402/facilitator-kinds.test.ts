import { describe, expect, it } from 'vitest';
import { offersExactOn } from '../../../../server/x402/facilitator-kinds.js';

const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

describe('where a paywall offers x402 through a facilitator', () => {
  it('on an EVM chain where it settles exact there; on Solana only where it also names its fee payer', () => {
    const kinds = [
      { x402Version: 2, scheme: 'exact', network: 'eip155:790526' as const },
      { x402Version: 2, scheme: 'exact', network: SOLANA_DEVNET as `${string}:${string}` },
      { x402Version: 2, scheme: 'upto', network: 'eip155:84532' as const },
    ];
    expect(offersExactOn(kinds, 'eip155:790526')).toBe(true);
    expect(offersExactOn(kinds, 'eip155:84532')).toBe(false);
    expect(offersExactOn(kinds, SOLANA_DEVNET)).toBe(false);
    expect(offersExactOn([{ ...kinds[1]!, extra: { feePayer: 'FeePayer1111111111111111111111111111111111' } }], SOLANA_DEVNET)).toBe(true);
  });
});
