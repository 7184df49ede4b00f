// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AgentFacts } from '../../../../../renderer/src/components/AgentFacts.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { onRail } from '../../../../fixtures/jsdom-page.js';

const BASE_ACCOUNT = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const SOL_WALLET = 'EQLviLtSasRjyL96DdDZS1FjZxLhZ3KdeiJMUz2mMLtm';

/** An agent's row as the dashboard answers it: a Base account filed whether or not the rail is open. */
const agent = {
  agentId: 'researcher',
  walletAddress: SOL_WALLET,
  wallets: { sol: SOL_WALLET, base: BASE_ACCOUNT },
  balance: '1.00',
  balances: { sol: '1.00', base: null },
  spent24h: '0.00',
  lifetimeSpent: '0.00',
  lifetimePayments: 0,
  policy: { dailyBudget: '5.00' },
};

afterEach(() => {
  cleanup();
  useDashboard.setState({ dashboard: null, deposits: [] });
});

describe("an agent's facts", () => {
  it("say its Base account is test money where the Base rail runs on the demo's chain, not Base", () => {
    onRail('evm-790527');
    render(<AgentFacts agent={agent as never} />);
    expect(screen.getByText('Base account (test USDC, on the local EVM chain of coffer demo-x402, not Base)')).toBeTruthy();
  });

  it('show its Base account where the Base rail is open, and none where it is off', () => {
    onRail('base-sepolia');
    const { rerender } = render(<AgentFacts agent={agent as never} />);
    expect(screen.getByTestId('wallet-address-base').textContent).toBe(BASE_ACCOUNT);
    // Beside it, the Solana wallet and its balance say their chain.
    expect(screen.getByText('Solana wallet address (USDC on Solana)')).toBeTruthy();
    expect(screen.getByText('Wallet balance on Solana')).toBeTruthy();
    onRail(null);
    rerender(<AgentFacts agent={agent as never} />);
    // USDC sent there would reach no rail this Coffer reads.
    expect(screen.queryByTestId('wallet-address-base')).toBeNull();
    expect(screen.getByText('Wallet address')).toBeTruthy();
    expect(screen.getByText('Wallet balance')).toBeTruthy();
    expect(screen.getByTestId('wallet-address').textContent).toBe(SOL_WALLET);
  });

  it('lead with its balance on Base where its wallet holds USDC there and none on Solana', () => {
    onRail('base-sepolia');
    const { container } = render(<AgentFacts agent={{ ...agent, balance: '0.00', balances: { sol: '0.00', base: '4' } } as never} />);
    expect(screen.getByText('Wallet balance on Base')).toBeTruthy();
    expect(container.querySelector('.big-number')?.textContent).toBe('4.00 USDC');
    expect(screen.getByTestId('agent-facts-sol').textContent).toBe('On Solana: 0.00 USDC');
  });

  it('say its balance on Base where the rail is open, unknown while its node does not answer, and nothing of it where the rail is off', () => {
    onRail('base-sepolia');
    const { rerender } = render(<AgentFacts agent={{ ...agent, balances: { sol: '1.00', base: '2.5' } } as never} />);
    expect(screen.getByTestId('agent-facts-base').textContent).toBe('On Base: 2.50 USDC');
    rerender(<AgentFacts agent={agent as never} />);
    expect(screen.getByTestId('agent-facts-base').textContent).toBe('On Base: balance unknown now');
    onRail(null);
    rerender(<AgentFacts agent={agent as never} />);
    expect(screen.queryByTestId('agent-facts-base')).toBeNull();
  });

  it("say apart what of its 24 h waits for the owner's yes, not paid; nothing of it where none waits", () => {
    onRail(null);
    const { rerender } = render(<AgentFacts agent={{ ...agent, spent24h: '3.00', held24h: '2.5' } as never} />);
    expect(screen.getByTestId('held-note').textContent).toBe('(2.50 USDC of it held for your yes, not paid)');
    rerender(<AgentFacts agent={{ ...agent, held24h: '0.00' } as never} />);
    expect(screen.queryByTestId('held-note')).toBeNull();
  });
});
