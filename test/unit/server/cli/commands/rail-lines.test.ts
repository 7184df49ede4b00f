import { describe, expect, it } from 'vitest';
import { gasLine, heldOn, walletLines } from '../../../../../server/cli/commands/rail-lines.js';

const SOL = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const BASE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe("coffer status's words for each rail", () => {
  it('a line a rail: what the wallet holds there and its address there, aligned', () => {
    expect(walletLines({ sol: SOL, base: BASE }, { sol: '12.00', base: '3.50' }, 'base-sepolia')).toEqual([
      `12.00 USDC on Solana  (${SOL})`,
      `3.50 USDC on Base     (${BASE})`,
    ]);
  });

  it('a Base balance not read where the rail is open says why: its node did not answer', () => {
    expect(walletLines({ sol: SOL, base: BASE }, { sol: '12.00', base: null }, 'base-sepolia')).toEqual([
      `12.00 USDC on Solana  (${SOL})`,
      `unknown on Base       (${BASE}): its node did not answer`,
    ]);
    expect(heldOn(null, 'base')).toBe('unknown on Base');
  });

  it('no Base line where the rail is off (its account is filed all the same), nor for a wallet with no Base account yet', () => {
    expect(walletLines({ sol: SOL, base: BASE }, { sol: '1.00', base: null }, null)).toEqual([`1.00 USDC on Solana  (${SOL})`]);
    expect(walletLines({ sol: SOL, base: null }, { sol: '1.00', base: null }, 'base-sepolia')).toEqual([`1.00 USDC on Solana  (${SOL})`]);
    // An older Coffer answers no baseNetwork at all: it pays no Base, whatever accounts it files.
    const olderAnswer = undefined as unknown as null;
    expect(walletLines({ sol: SOL, base: BASE }, { sol: '1.00', base: null }, olderAnswer)).toEqual([`1.00 USDC on Solana  (${SOL})`]);
  });

  it("the treasury's gas on Base: cut to 4 decimals, test ETH on sim and in coffer demo-x402, and a warning under 100 moves", () => {
    const treasury = { network: 'sim', wallets: { sol: SOL, base: BASE } };
    expect(gasLine({ ...treasury, baseGas: { balance: '0.009999871', moves: 4950, low: false } })).toBe(
      "gas on Base: 0.0099 test ETH, about 4,950 moves at today's fee",
    );
    expect(gasLine({ ...treasury, network: 'mainnet', baseGas: { balance: '0.0001', moves: 42, low: true } })).toBe(
      `gas on Base: 0.0001 ETH, about 42 moves at today's fee: LOW, send ETH to ${BASE} before it runs out`,
    );
    expect(gasLine({ ...treasury, baseGas: { balance: '1234', moves: 1_000_000, low: false } })).toBe(
      "gas on Base: 1,234 test ETH, about 1,000,000 moves at today's fee",
    );
    expect(gasLine({ ...treasury, network: 'demo-localnet', baseGas: { balance: '9.9998', moves: 72_574, low: false } })).toBe(
      "gas on Base: 9.9998 test ETH, about 72,574 moves at today's fee",
    );
    expect(gasLine({ ...treasury, baseGas: null })).toBeNull();
    // An older Coffer's dashboard has no baseGas at all.
    expect(gasLine({ ...treasury, baseGas: undefined as unknown as null })).toBeNull();
  });
});
