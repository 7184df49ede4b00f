// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { vi } from 'vitest';
import { TreasuryTransferForms } from '../../../../../renderer/src/components/TreasuryTransferForms.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import type { DashboardAgent } from '../../../../../renderer/src/api/types.js';

afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null });
});

/** An agent with an account on both rails, holding this on each (null: its Base node unread). */
const agent = (sol: string, base: string | null) =>
  ({ agentId: 'alpha', wallets: { sol: 'So1ana', base: '0xBase' }, balances: { sol, base }, balance: sol }) as unknown as DashboardAgent;
const radio = (name: RegExp) => screen.getByRole('radio', { name }) as HTMLInputElement;
/** The dashboard as the card reads it, its Base rail open, signed in with `client`. */
const withBaseOpen = (client: object) =>
  useDashboard.setState({
    client: client as never,
    refresh: async () => {},
    dashboard: { treasury: { baseNetwork: 'base-sepolia' } } as never,
    pendingApprovals: [],
  });

describe('the rail the Funds card moves USDC on', () => {
  it("follows where the agent's money is until the owner picks one, then keeps the owner's pick", () => {
    withBaseOpen({});
    // Drawn before its Base balance is read: Solana, the API's default.
    const { rerender } = render(<TreasuryTransferForms agent={agent('0.00', null)} />);
    expect(radio(/Solana USDC/).checked).toBe(true);
    // Read since: its money is on Base alone, so Base, and its Return field offers what Base holds.
    rerender(<TreasuryTransferForms agent={agent('0.00', '3.00')} />);
    expect(radio(/Base USDC/).checked).toBe(true);
    expect((screen.getByLabelText('Return to the treasury') as HTMLInputElement).value).toBe('3.00');
    // The owner's pick is theirs: a later balance does not move it.
    fireEvent.click(radio(/Solana USDC/));
    rerender(<TreasuryTransferForms agent={agent('0.00', '4.00')} />);
    expect(radio(/Solana USDC/).checked).toBe(true);
  });

  it('keeps the rail it showed with both balances read when they change: a return emptying Base left the next allocation on Solana (helper 181)', () => {
    withBaseOpen({});
    const { rerender } = render(<TreasuryTransferForms agent={agent('0.00', '4.00')} />);
    expect(radio(/Base USDC/).checked).toBe(true);
    // All of it returned on Base: the owner never clicked (Base was already chosen), and still sees Base.
    rerender(<TreasuryTransferForms agent={agent('0.00', '0.00')} />);
    expect(radio(/Base USDC/).checked).toBe(true);
    expect(radio(/Solana USDC/).checked).toBe(false);
    // Money arriving on Solana meanwhile moves nothing either.
    rerender(<TreasuryTransferForms agent={agent('2.00', '0.00')} />);
    expect(radio(/Base USDC/).checked).toBe(true);
  });

  it('names the rail it moved on, Solana too, where both are offered (helper 181: only Base was named)', async () => {
    const allocate = vi.fn(async () => ({ amount: '2.00', balance: '2.00' }));
    withBaseOpen({ allocate });
    render(<TreasuryTransferForms agent={agent('0.00', '0.00')} />);
    fireEvent.change(screen.getByLabelText('Allocate from the treasury'), { target: { value: '2' } });
    fireEvent.click(screen.getByRole('button', { name: 'Allocate' }));
    await screen.findByText('Moved 2.00 USDC on chain, on Solana; its Solana wallet now 2.00 USDC');
    expect(allocate).toHaveBeenCalledWith('alpha', { amount: '2' });
  });
});
