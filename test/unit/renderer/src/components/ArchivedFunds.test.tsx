// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ArchivedFunds } from '../../../../../renderer/src/components/ArchivedFunds.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';

afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null });
});

describe("what an archived agent's wallet still holds", () => {
  it('on Base: said as its Base account, and returned on Base', async () => {
    const returnFunds = vi.fn(async () => ({ amount: '0.30' }));
    useDashboard.setState({ client: { returnFunds } as never, refresh: async () => {} });
    const { rerender } = render(<ArchivedFunds agentId="alpha" rail="base" balance="0.30" />);
    expect(screen.getByRole('alert').textContent).toContain('Its Base account still holds 0.30 USDC');
    fireEvent.click(screen.getByRole('button', { name: 'Return to the treasury on Base' }));
    await waitFor(() => expect(returnFunds).toHaveBeenCalledWith('alpha', { rail: 'base' }));
    // The refreshed dashboard says it holds nothing there now.
    rerender(<ArchivedFunds agentId="alpha" rail="base" balance="0.00" />);
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Returned 0.30 USDC to the treasury on chain, on Base'));
  });

  it('nothing where the rail holds nothing, or its balance is unknown', () => {
    const { container, rerender } = render(<ArchivedFunds agentId="alpha" rail="base" balance="0.00" />);
    expect(container.textContent).toBe('');
    rerender(<ArchivedFunds agentId="alpha" rail="base" balance={null} />);
    expect(container.textContent).toBe('');
  });
});
