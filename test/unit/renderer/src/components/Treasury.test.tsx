// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { Treasury } from '../../../../../renderer/src/components/Treasury.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { TREASURY_BASE_ACCOUNT, TREASURY_WALLET, dashboardTreasury } from '../../../../fixtures/dashboard-treasury.js';
import { dateTime } from '../../../../../renderer/src/lib/time.js';
import { gasLine } from '../../../../../server/cli/commands/rail-lines.js';

/** The overview's treasury as GET /v1/dashboard answers it, with the Base rail on `baseNetwork`. */
const dashboard = (baseNetwork: string | null, held24h = '0.00') => ({
  treasury: dashboardTreasury(baseNetwork),
  spent24h: '3.00',
  held24h,
});

afterEach(() => {
  cleanup();
  useDashboard.setState({ dashboard: null, deposits: [] });
});

describe('the treasury card', () => {
  it("says apart what of the agents' 24 h waits for the owner's yes, not paid; nothing of it where none waits", () => {
    useDashboard.setState({ dashboard: dashboard(null, '2.50') as never, deposits: [] });
    const { rerender } = render(<Treasury />);
    expect(screen.getByTestId('held-note').textContent).toBe('(2.50 USDC of it held for your yes, not paid)');
    useDashboard.setState({ dashboard: dashboard(null) as never });
    rerender(<Treasury />);
    expect(screen.queryByTestId('held-note')).toBeNull();
  });

  it('says the rail of its big figure: Solana, the one Base is beside', () => {
    useDashboard.setState({ dashboard: dashboard('base-sepolia') as never, deposits: [] });
    render(<Treasury />);
    expect(screen.getByTestId('treasury-rail').textContent).toBe('on Solana, devnet');
  });

  it('lists each deposit with its rail, either rail, and its time in the owner’s zone', () => {
    const deposit = (id: string, rail: 'sol' | 'base', source: 'faucet' | 'chain', from: string) => ({
      id,
      rail,
      txSignature: `tx-${id}`,
      amount: '5.00',
      currency: 'USDC',
      from,
      timestamp: '2026-11-30T10:00:00.000Z',
      source,
    });
    useDashboard.setState({
      dashboard: dashboard('base-sepolia') as never,
      deposits: [deposit('d2', 'base', 'chain', '0xabc'), deposit('d1', 'sol', 'faucet', 'mint')] as never,
      settings: { timeZone: 'Pacific/Kiritimati', timeZoneFrom: 'owner', preferredRail: null },
    });
    render(<Treasury />);
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      `${dateTime('2026-11-30T10:00:00.000Z', 'Pacific/Kiritimati')}5.00 USDCBase USDC0xabc`,
      `${dateTime('2026-11-30T10:00:00.000Z', 'Pacific/Kiritimati')}5.00 USDCSolana USDCsim faucet`,
    ]);
    useDashboard.setState({ settings: null });
  });

  it('shows the Base deposit address where the Base rail is open, and none where it is off', async () => {
    useDashboard.setState({ dashboard: dashboard('base-sepolia') as never, deposits: [] });
    const { rerender } = render(<Treasury />);
    expect(screen.getByTestId('deposit-address-base').textContent).toBe(TREASURY_BASE_ACCOUNT);
    expect(await screen.findByAltText(`QR code of the Base deposit address ${TREASURY_BASE_ACCOUNT}`)).toBeTruthy();
    // Each code says its chain beside it: USDC sent to the other chain's address reaches no wallet here.
    const captions = () =>
      [...document.querySelectorAll('.qr-codes figure')].map((figure) => [
        figure.querySelector('img')?.alt,
        figure.querySelector('figcaption')?.textContent,
      ]);
    expect(captions()).toEqual([
      [`QR code of the Solana deposit address ${TREASURY_WALLET}`, 'Deposit on Solana'],
      [`QR code of the Base deposit address ${TREASURY_BASE_ACCOUNT}`, 'Deposit on Base'],
    ]);
    useDashboard.setState({ dashboard: dashboard(null) as never });
    rerender(<Treasury />);
    expect(screen.queryByTestId('treasury-base')).toBeNull();
    expect(screen.queryByAltText(`QR code of the Base deposit address ${TREASURY_BASE_ACCOUNT}`)).toBeNull();
    expect(await screen.findByAltText(`QR code of the Solana deposit address ${TREASURY_WALLET}`)).toBeTruthy();
    expect(screen.getByTestId('deposit-address').textContent).toBe(TREASURY_WALLET);
  });

  it("says the gas on Base as a count of moves at today's fee: the count grows as the fee falls", () => {
    const on = dashboard('base-sepolia');
    useDashboard.setState({
      dashboard: { ...on, treasury: { ...on.treasury, baseGas: { balance: '0.009999871', moves: 4950, low: false } } } as never,
      deposits: [],
    });
    render(<Treasury />);
    // Cut to 4 decimals, never rounded up past what the account holds: the figure `coffer status --owner` says too.
    expect(screen.getByTestId('treasury-base-gas').textContent).toBe("Gas for moves on Base: 0.0099 ETH, about 4,950 moves at today's fee");
    expect(gasLine({ ...on.treasury, baseGas: { balance: '0.009999871', moves: 4950, low: false } } as never)).toBe(
      "gas on Base: 0.0099 ETH, about 4,950 moves at today's fee",
    );
  });

  it('says where test money on a chain that is not Base is what it is, beside its balance and its deposit address', () => {
    const demo = dashboard('evm-790527');
    useDashboard.setState({ dashboard: { ...demo, treasury: { ...demo.treasury, network: 'demo-localnet' } } as never, deposits: [] });
    const { rerender } = render(<Treasury />);
    const card = screen.getByTestId('treasury-base').textContent!;
    expect(card).toContain('(test money, on the local EVM chain of coffer demo-x402, not Base)');
    expect(card).toContain('Deposit address (test USDC, on the local EVM chain of coffer demo-x402, not Base)');
    useDashboard.setState({ dashboard: dashboard('base-sepolia') as never });
    rerender(<Treasury />);
    expect(screen.getByTestId('treasury-base').textContent).toContain('Deposit address (USDC on Base)');
    expect(screen.getByTestId('treasury-base').textContent).not.toMatch(/test money/);
  });
});
