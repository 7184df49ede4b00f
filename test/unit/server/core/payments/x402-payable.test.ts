import { describe, expect, it } from 'vitest';
import { isPayableOn, isUsdcOn, type OfferedTerms } from '../../../../../server/core/payments/x402-payable.js';
import { paysSomeone } from '../../../../../server/core/payments/paid-to.js';

const SOL_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const SOL_PAYEE = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const BASE_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const BASE_PAYEE = '0x1111111111111111111111111111111111111111';

const onSol = { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', usdc: SOL_USDC };
const onBase = { network: 'eip155:84532', usdc: BASE_USDC };
const solOffer: OfferedTerms = { scheme: 'exact', network: onSol.network, asset: SOL_USDC, payTo: SOL_PAYEE, amount: 10_000n };
const baseOffer: OfferedTerms = { scheme: 'exact', network: onBase.network, asset: BASE_USDC, payTo: BASE_PAYEE, amount: 10_000n };

describe('which x402 requirements Coffer pays on a rail', () => {
  it('pays exact, on its network, in its USDC, a positive amount, to an address of the rail', () => {
    expect(isPayableOn('sol', onSol, solOffer)).toBe(true);
    expect(isPayableOn('base', onBase, baseOffer)).toBe(true);
    // An EVM address in another case is the same token; a Solana mint is as written.
    expect(isPayableOn('base', onBase, { ...baseOffer, asset: BASE_USDC.toLowerCase() })).toBe(true);
    expect(isUsdcOn('sol', SOL_USDC, SOL_USDC.toLowerCase())).toBe(false);
  });

  it("never pays the token's own contract (an EVM address in any case) or its mint (a Solana address as written)", () => {
    expect(paysSomeone(BASE_USDC.toLowerCase(), BASE_USDC)).toBe(false);
    expect(paysSomeone(SOL_USDC, SOL_USDC)).toBe(false);
    // Base58 is case-sensitive: another case of the mint's letters is another address.
    const otherCase = SOL_USDC.replace('z', 'Z');
    expect(paysSomeone(otherCase, SOL_USDC)).toBe(true);
    expect(paysSomeone(SOL_PAYEE, SOL_USDC)).toBe(true);
  });

  it.each([
    ['another scheme', { scheme: 'upto' }],
    ['another network', { network: 'eip155:8453' }],
    ['another token', { asset: '0x2222222222222222222222222222222222222222' }],
    ['no token named', { asset: null }],
    ['no amount', { amount: null }],
    ['a zero amount', { amount: 0n }],
    ['no recipient', { payTo: null }],
    ["a recipient of the other rail's kind", { payTo: SOL_PAYEE }],
  ] as const)('refuses %s', (_what, change) => {
    expect(isPayableOn('base', onBase, { ...baseOffer, ...change })).toBe(false);
  });

  it("refuses a Solana offer to an EVM address, and one rail's terms judged on the other", () => {
    expect(isPayableOn('sol', onSol, { ...solOffer, payTo: BASE_PAYEE })).toBe(false);
    expect(isPayableOn('sol', onSol, baseOffer)).toBe(false);
    expect(isPayableOn('base', onBase, solOffer)).toBe(false);
  });
});
