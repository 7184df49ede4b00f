import { describe, expect, it } from 'vitest';
import { creditOf, type TokenBalanceEntry } from '../../../../../server/chain/solana/token-balance-changes.js';

const USDC = 'usdc-mint';
const OTHER = 'other-mint';
const entry = (accountIndex: number, owner: string, amount: bigint, mint = USDC): TokenBalanceEntry => ({
  accountIndex,
  mint,
  owner,
  uiTokenAmount: { amount: amount.toString() },
});

describe('creditOf', () => {
  const keys = ['fee-payer', 'sender-ata', 'treasury-ata', 'token-program'];

  it('is what the account gained, from the owner of the account that lost the most', () => {
    const pre = [entry(1, 'sender', 500n), entry(2, 'treasury', 100n)];
    const post = [entry(1, 'sender', 200n), entry(2, 'treasury', 400n)];
    expect(creditOf('treasury-ata', USDC, keys, pre, post)).toEqual({ amount: 300n, from: 'sender' });
  });

  it('counts an account created in the transaction (no balance before) from zero', () => {
    const pre = [entry(1, 'sender', 500n)];
    const post = [entry(1, 'sender', 0n), entry(2, 'treasury', 500n)];
    expect(creditOf('treasury-ata', USDC, keys, pre, post)).toEqual({ amount: 500n, from: 'sender' });
  });

  it('is zero when the account lost (an allocation out of the treasury) or did not appear', () => {
    const pre = [entry(1, 'agent', 0n), entry(2, 'treasury', 900n)];
    const post = [entry(1, 'agent', 400n), entry(2, 'treasury', 500n)];
    expect(creditOf('treasury-ata', USDC, keys, pre, post).amount).toBe(0n);
    expect(creditOf('not-in-this-tx', USDC, keys, pre, post).amount).toBe(0n);
  });

  it('ignores other mints, and names the fee payer when nobody lost USDC (a mint straight to the treasury)', () => {
    const pre = [entry(1, 'sender', 500n, OTHER), entry(2, 'treasury', 0n)];
    const post = [entry(1, 'sender', 0n, OTHER), entry(2, 'treasury', 700n)];
    expect(creditOf('treasury-ata', USDC, keys, pre, post)).toEqual({ amount: 700n, from: 'fee-payer' });
  });

  it('finds the account among loaded addresses (indices past the static keys)', () => {
    const withLoaded = [...keys, 'loaded-writable-ata'];
    const pre = [entry(1, 'sender', 50n), entry(4, 'treasury', 0n)];
    const post = [entry(1, 'sender', 0n), entry(4, 'treasury', 50n)];
    expect(creditOf('loaded-writable-ata', USDC, withLoaded, pre, post)).toEqual({ amount: 50n, from: 'sender' });
  });
});
