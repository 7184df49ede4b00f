// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { TopBar } from '../../../../../renderer/src/components/TopBar.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { dashboardTreasury } from '../../../../fixtures/dashboard-treasury.js';

/** The treasury on devnet: 998.00 on Solana, Base's as given (rail off: null network). */
const withTreasury = (baseNetwork: string | null, onBase: string | null) =>
  useDashboard.setState({ dashboard: { treasury: dashboardTreasury(baseNetwork, onBase) } as never });

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
