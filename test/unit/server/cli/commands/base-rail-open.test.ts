import { describe, expect, it } from 'vitest';
import { baseRailOpen } from '../../../../../server/cli/commands/rail-lines.js';
import type { Health } from '../../../../../server/wire/answers/session.js';

/** Deploy and settings ask the same question: whether this Coffer's Base rail is open. */
describe('baseRailOpen', () => {
  const health = (base: Health['base']): Health => ({ ok: true, network: 'sim', version: 'test', usdcMint: 'mint', base });

  it('is open where the health names a Base chain, and closed where it names none', async () => {
    expect(await baseRailOpen({ health: async () => health({ network: 'base-sepolia', chainId: 84532, usdc: '0x' }) })).toBe(true);
    expect(await baseRailOpen({ health: async () => health(null) })).toBe(false);
  });

  it('takes a health that does not answer as closed: Base goes unsaid rather than named where it may be off', async () => {
    expect(await baseRailOpen({ health: () => Promise.reject(new Error('ECONNREFUSED')) })).toBe(false);
  });
});
