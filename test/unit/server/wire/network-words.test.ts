import { describe, expect, it } from 'vitest';
import { DEMO_LOCALNET, networkChip, networkWords } from '../../../../server/wire/network-words.js';

describe('network words: test money is said to be test money', () => {
  it("the demo's local cluster is named for what it is wherever a person reads it, never as devnet", () => {
    expect(DEMO_LOCALNET).toBe('demo-localnet');
    expect(networkChip(DEMO_LOCALNET)).toBe('demo-localnet (test money)');
    expect(networkWords(DEMO_LOCALNET)).toMatch(/test USDC, not devnet/);
  });

  it('the sim chain keeps its words; devnet and mainnet are their names', () => {
    expect(networkWords('sim')).toBe('the embedded sim chain (test USDC)');
    expect(networkChip('sim')).toBe('sim');
    for (const network of ['devnet', 'mainnet', 'localnet', 'custom']) {
      expect(networkWords(network)).toBe(network);
      expect(networkChip(network)).toBe(network);
    }
  });
});
