// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ArchiveDialog } from '../../../../../renderer/src/pages/ArchiveDialog.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { onRail, withModalDialogs } from '../../../../fixtures/jsdom-page.js';
import { CofferApiError } from '../../../../../server/client/client-error.js';

beforeAll(withModalDialogs);
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, dashboard: null });
});

/** A server that answers each call, in the order asked. */
function server() {
  const calls: string[] = [];
  const client = {
    returnFunds: vi.fn(async (_agentId: string, body: { rail?: string }) => {
      calls.push(`return ${body.rail ?? 'sol'}`);
      return { amount: '1.00' };
    }),
    archive: vi.fn(async () => {
      calls.push('archive');
      return { status: 'archived' };
    }),
  };
  useDashboard.setState({ client: client as never, refresh: async () => {} });
  return calls;
}

describe('archiving from the agent page', () => {
  it('returns the funds on each rail that holds some, then archives (the server refuses while either holds USDC)', async () => {
    const calls = server();
    const onClose = vi.fn();
    render(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '1.25', base: '0.50' }} open onClose={onClose} />);
    expect(screen.getByRole('dialog', { hidden: true }).textContent).toContain(
      'Its 1.25 USDC and 0.50 USDC on Base go back to the treasury on chain',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual(['return sol', 'return base', 'archive']);
  });

  it("a rail's USDC all promised to a pending payment is not returned: the archive is asked, and says what it waits for", async () => {
    const calls = server();
    const client = useDashboard.getState().client as unknown as {
      returnFunds: ReturnType<typeof vi.fn>;
      archive: ReturnType<typeof vi.fn>;
    };
    client.returnFunds.mockImplementation(async (_agentId: string, body: { rail?: string }) => {
      calls.push(`return ${body.rail ?? 'sol'}`);
      if (body.rail === 'base') {
        throw new CofferApiError(400, 'insufficient_funds', "the agent's wallet holds nothing to return on Base (0.00 USDC available)");
      }
      return { amount: '1.25' };
    });
    const waiting = 'agent "alpha" has 0.50 USDC on Base promised to payments still pending: archive it once they settle or fail';
    client.archive.mockImplementation(async () => {
      calls.push('archive');
      throw new CofferApiError(409, 'agent_has_funds', waiting);
    });
    const onClose = vi.fn();
    render(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '1.25', base: '0.50' }} open onClose={onClose} />);
    fireEvent.click(screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }));
    await waitFor(() => expect(screen.getByRole('dialog', { hidden: true }).textContent).toContain(waiting));
    expect(calls).toEqual(['return sol', 'return base', 'archive']);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('a return that fails midway archives nothing, and the dashboard is read again: what was returned shows', async () => {
    const calls = server();
    const refresh = vi.fn(async () => {});
    const client = useDashboard.getState().client as unknown as { returnFunds: ReturnType<typeof vi.fn> };
    client.returnFunds.mockImplementation(async (_agentId: string, body: { rail?: string }) => {
      calls.push(`return ${body.rail ?? 'sol'}`);
      if (body.rail === 'base') throw new Error('the Base rail is not answering');
      return { amount: '1.25' };
    });
    useDashboard.setState({ refresh });
    const onClose = vi.fn();
    render(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '1.25', base: '0.50' }} open onClose={onClose} />);
    fireEvent.click(screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }));
    await waitFor(() => expect(screen.getByRole('dialog', { hidden: true }).textContent).toContain('the Base rail is not answering'));
    expect(calls).toEqual(['return sol', 'return base']);
    expect(refresh).toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('returns only what is there: Base alone, or nothing at all', async () => {
    const calls = server();
    const { rerender } = render(
      <ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '0.00', base: '0.50' }} open onClose={() => {}} />,
    );
    expect(screen.getByRole('dialog', { hidden: true }).textContent).toContain('Its 0.50 USDC on Base go back to the treasury on chain');
    fireEvent.click(screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }));
    await waitFor(() => expect(calls).toEqual(['return base', 'archive']));
    calls.length = 0;
    // The Base rail off here: nothing there to return (the server judges what the ledger put there).
    onRail(null);
    rerender(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '0.00', base: null }} open onClose={() => {}} />);
    fireEvent.click(screen.getByRole('button', { name: 'Archive', hidden: true }));
    await waitFor(() => expect(calls).toEqual(['archive']));
  });

  it('with the Base rail open and its node away, nothing is returned or archived: what it holds there is unknown', async () => {
    const calls = server();
    onRail('base-sepolia');
    render(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '1.25', base: null }} open onClose={() => {}} />);
    const dialog = screen.getByRole('dialog', { hidden: true });
    expect(dialog.textContent).toContain("What Alpha holds on Base can't be read now (its node isn't answering)");
    const archive = screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }) as HTMLButtonElement;
    expect(archive.disabled).toBe(true);
    fireEvent.click(archive);
    expect(calls).toEqual([]);
  });

  it('with the Base rail off, the archive is asked first: refused for a Base account the ledger funded, nothing is returned', async () => {
    const calls = server();
    const client = useDashboard.getState().client as unknown as { archive: ReturnType<typeof vi.fn> };
    const refusal =
      'agent "alpha" took USDC on Base, and the Base rail is off here: open the Base rail, return what it holds, then archive';
    client.archive.mockImplementation(async () => {
      calls.push('archive');
      throw new CofferApiError(503, 'rail_unavailable', refusal);
    });
    onRail(null);
    const onClose = vi.fn();
    render(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '1.25', base: null }} open onClose={onClose} />);
    fireEvent.click(screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }));
    await waitFor(() => expect(screen.getByRole('dialog', { hidden: true }).textContent).toContain(refusal));
    expect(calls).toEqual(['archive']);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('with the Base rail off and nothing funded there, the archive first refused for the Solana funds returns them and archives', async () => {
    const calls = server();
    const client = useDashboard.getState().client as unknown as {
      archive: ReturnType<typeof vi.fn>;
      returnFunds: ReturnType<typeof vi.fn>;
    };
    let held = true;
    client.archive.mockImplementation(async () => {
      calls.push('archive');
      if (held) throw new CofferApiError(409, 'agent_has_funds', 'agent "alpha" still holds 1.25 USDC');
      return { status: 'archived' };
    });
    client.returnFunds.mockImplementation(async () => {
      calls.push('return sol');
      held = false;
      return { amount: '1.25' };
    });
    onRail(null);
    const onClose = vi.fn();
    render(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '1.25', base: null }} open onClose={onClose} />);
    fireEvent.click(screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual(['archive', 'return sol', 'archive']);
  });

  it('with the Base rail off, an archive asked first that goes through returns nothing: the funds shown had gone meanwhile', async () => {
    const calls = server();
    onRail(null);
    const onClose = vi.fn();
    render(<ArchiveDialog agentId="alpha" name="Alpha" balances={{ sol: '1.25', base: null }} open onClose={onClose} />);
    fireEvent.click(screen.getByRole('button', { name: 'Return the funds and archive', hidden: true }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual(['archive']);
  });
});
