// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AgentBalance } from '../../../../../renderer/src/components/AgentBalance.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { onRail } from '../../../../fixtures/jsdom-page.js';

afterEach(() => {
  cleanup();
  useDashboard.setState({ dashboard: null, deposits: [] });
});

describe("an agent row's balance", () => {
  it('shows the Solana balance, and the one on Base under it where it was read', () => {
    onRail('base-sepolia');
    const { container } = render(<AgentBalance balance="1.50" balances={{ sol: '1.50', base: '1250' }} />);
    expect(screen.getByTestId('agent-balance-base').textContent).toBe('On Base: 1,250.00 USDC');
    // Each figure says its chain: one funded on Base alone does not read as empty.
    expect(container.textContent).toBe('1.50 USDC on Solana' + 'On Base: 1,250.00 USDC');
  });

  it('leads with Base where its wallet holds USDC there and none on Solana, Solana under it', () => {
    onRail('base-sepolia');
    const { container } = render(<AgentBalance balance="0.00" balances={{ sol: '0.00', base: '4' }} />);
    // An agent funded on Base alone does not lead with an empty wallet.
    expect(container.textContent).toBe('4.00 USDC on Base' + 'On Solana: 0.00 USDC');
    expect(screen.getByTestId('agent-balance-sol').textContent).toBe('On Solana: 0.00 USDC');
  });

  it("says the Base balance is unknown where the rail is open and its node did not answer, as the treasury's card does", () => {
    onRail('base-sepolia');
    render(<AgentBalance balance="1.50" balances={{ sol: '1.50', base: null }} />);
    expect(screen.getByTestId('agent-balance-base').textContent).toBe('On Base: balance unknown now');
  });

  it('shows nothing of Base where the rail is off', () => {
    onRail(null);
    const { container } = render(<AgentBalance balance="1.50" balances={{ sol: '1.50', base: null }} />);
    expect(screen.queryByTestId('agent-balance-base')).toBeNull();
    expect(container.textContent).toBe('1.50 USDC');
  });
});
