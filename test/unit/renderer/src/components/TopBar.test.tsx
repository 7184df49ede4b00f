// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { TopBar } from '../../../../../renderer/src/components/TopBar.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';

/** The treasury as GET /v1/dashboard answers it: 998.00 on Solana, Base's as given (rail off: null network). */
const withTreasury = (baseNetwork: string | null, onBase: string | null) =>
  useDashboard.setState({
    dashboard: {
      treasury: {
        walletAddress: 'EQLviLtSasRjyL96DdDZS1FjZxLhZ3KdeiJMUz2mMLtm',
        wallets: { sol: 'EQLviLtSasRjyL96DdDZS1FjZxLhZ3KdeiJMUz2mMLtm', base: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' },
        balances: { sol: '998.00', base: onBase },
        baseGas: null,
        baseNetwork,
        amount: '998000000',
        currency: 'USDC',
        decimals: 6,
        network: 'devnet',
        balance: '998.00',
      },
    } as never,
  });

const bar = () => {
  render(<TopBar route={{ page: 'overview' }} theme="light" onToggleTheme={() => {}} onSignOutError={() => {}} />);
  return screen.getByTitle(/treasury/i);
};

afterEach(() => {
  cleanup();
  useDashboard.setState({ dashboard: null });
});

describe("the top bar's treasury figure", () => {
  it('says each rail and its network where Base is open: a figure with no rail read as the whole treasury', () => {
    withTreasury('base-sepolia', '1250.50');
    const figure = bar();
    expect(figure.textContent).toBe('998.00 USDC on Solana devnet · 1,250.50 USDC on Base base-sepolia');
    expect(figure.getAttribute('title')).toBe("The treasury's USDC on each rail");
  });

  it('says Base is unknown where its node did not answer, not zero', () => {
    withTreasury('base-sepolia', null);
    expect(bar().textContent).toBe('998.00 USDC on Solana devnet · unknown on Base base-sepolia');
  });

  it('is the one figure where the Base rail is off', () => {
    withTreasury(null, null);
    const figure = bar();
    expect(figure.textContent).toBe('998.00 USDC devnet');
    expect(figure.getAttribute('title')).toBe("The treasury's USDC");
  });
});
