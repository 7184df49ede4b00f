// @vitest-environment jsdom
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { DeployDialog } from '../../../../../renderer/src/pages/DeployDialog.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';
import { withModalDialogs } from '../../../../fixtures/jsdom-page.js';
import { CofferApiError } from '../../../../../server/client/client-error.js';

beforeAll(withModalDialogs);
afterEach(() => {
  cleanup();
  useDashboard.setState({ client: null, dashboard: null });
});

/** The server deploys `agentId` with no funds asked, the Base rail off. */
const deploysUnfunded = (agentId: string) => {
  const deploy = vi.fn(async () => ({
    agent: { agentId, displayName: agentId, walletAddress: 'W', wallets: { sol: 'W', base: '0xB' } },
    apiKey: 'cof_agt_x',
    mcpConfig: { command: 'coffer', args: ['mcp'] },
  }));
  useDashboard.setState({ client: { deploy } as never, refresh: async () => {}, dashboard: { treasury: { baseNetwork: null } } as never });
};

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

describe('deploying an agent from the dashboard', () => {
  it('says every field that is wrong at once, each marked, and asks the server nothing', async () => {
    const deploy = vi.fn();
    useDashboard.setState({ client: { deploy } as never, refresh: async () => {} });
    render(<DeployDialog open onClose={() => {}} />);
    fireEvent.change(field('Agent id'), { target: { value: 'Bad Name!' } });
    fireEvent.change(field('Daily budget (USDC)'), { target: { value: '-1' } });
    fireEvent.change(field('Starting funds (USDC, optional)'), { target: { value: 'lots' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    const alert = await screen.findByRole('alert', { hidden: true });
    const lines = alert.textContent!.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^Agent id /);
    expect(lines[1]).toMatch(/^Daily budget /);
    expect(lines[2]).toMatch(/^Starting funds /);
    expect(
      [field('Agent id'), field('Daily budget (USDC)'), field('Starting funds (USDC, optional)')].map((input) =>
        input.getAttribute('aria-invalid'),
      ),
    ).toEqual(['true', 'true', 'true']);
    expect(field('Max per payment (USDC)').getAttribute('aria-invalid')).toBeNull();
    expect(deploy).not.toHaveBeenCalled();
    // Mended, a field is no longer marked once the form is sent again.
    fireEvent.change(field('Agent id'), { target: { value: 'good-name' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    expect((await screen.findByRole('alert', { hidden: true })).textContent!.split('\n')).toHaveLength(2);
    expect(field('Agent id').getAttribute('aria-invalid')).toBeNull();
  });

  it("an id already taken is said in the dashboard's words beside Agent id, marked, no CLI command in them (helper 181)", async () => {
    const deploy = vi.fn(async () => {
      throw new CofferApiError(
        409,
        'agent_exists',
        'an agent "taken" already exists for this owner: if its deploy was never answered, coffer key taken hands out a new key and coffer allocate taken AMOUNT funds it (a deploy sent with an Idempotency-Key is finished by sending it again within the day)',
      );
    });
    useDashboard.setState({ client: { deploy } as never, refresh: async () => {} });
    render(<DeployDialog open onClose={() => {}} />);
    fireEvent.change(field('Agent id'), { target: { value: 'taken' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    const alert = await screen.findByRole('alert', { hidden: true });
    expect(alert.textContent).toBe(
      'An agent "taken" already exists: choose another id. If its deploy was never answered, its page replaces its key and funds it.',
    );
    expect(alert.textContent).not.toContain('coffer ');
    expect(field('Agent id').getAttribute('aria-invalid')).toBe('true');
  });

  it('closed and opened again, it starts afresh: no field marked, nothing said', async () => {
    useDashboard.setState({ client: { deploy: vi.fn() } as never, refresh: async () => {} });
    const { rerender } = render(<DeployDialog open onClose={() => {}} />);
    fireEvent.change(field('Agent id'), { target: { value: 'Bad Name!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    await screen.findByRole('alert', { hidden: true });
    fireEvent.click(screen.getByRole('button', { name: 'Cancel', hidden: true }));
    rerender(<DeployDialog open={false} onClose={() => {}} />);
    rerender(<DeployDialog open onClose={() => {}} />);
    expect(field('Agent id').value).toBe('');
    expect(field('Agent id').getAttribute('aria-invalid')).toBeNull();
    expect(screen.queryByRole('alert', { hidden: true })).toBeNull();
  });

  it('funds the new agent on the rail picked where the Base rail is open, and says which', async () => {
    const deployed = (rail: 'sol' | 'base') => ({
      agent: { agentId: 'base-one', displayName: 'base-one', walletAddress: 'W', wallets: { sol: 'W', base: '0xB' } },
      apiKey: 'cof_agt_x',
      mcpConfig: { command: 'coffer', args: ['mcp'] },
      funding: { status: 'funded', allocation: { amount: '1.25', rail, txSignature: '0x1' } },
    });
    const deploy = vi.fn(async (body: { fundRail?: string }) => deployed(body.fundRail === 'base' ? 'base' : 'sol'));
    useDashboard.setState({
      client: { deploy } as never,
      refresh: async () => {},
      dashboard: { treasury: { baseNetwork: 'sim' } } as never,
    });
    render(<DeployDialog open onClose={() => {}} />);
    fireEvent.change(field('Agent id'), { target: { value: 'base-one' } });
    fireEvent.change(field('Starting funds (USDC, optional)'), { target: { value: '1.25' } });
    fireEvent.click(screen.getByLabelText('Base USDC'));
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    expect((await screen.findByRole('status', { hidden: true })).textContent).toMatch(
      /^Funded with 1\.25 USDC on Base from the treasury\.$/,
    );
    expect(deploy).toHaveBeenCalledWith(expect.objectContaining({ fund: '1.25', fundRail: 'base' }));
    // Both wallets named, the Base one holding what was just funded.
    // Funded already: more, not "funds", from its page.
    expect(screen.getByTestId('deployed-wallets').textContent).toBe('Wallets: on Solana W, on Base 0xB. Allocate more from its page.');
    cleanup();
    // The Base rail closing while Base is picked: the choice goes with its radios.
    deploy.mockClear();
    render(<DeployDialog open onClose={() => {}} />);
    fireEvent.change(field('Agent id'), { target: { value: 'was-base' } });
    fireEvent.change(field('Starting funds (USDC, optional)'), { target: { value: '1.25' } });
    fireEvent.click(screen.getByLabelText('Base USDC'));
    act(() => useDashboard.setState({ dashboard: { treasury: { baseNetwork: null } } as never }));
    expect(screen.queryByLabelText('Base USDC')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    await screen.findByRole('status', { hidden: true });
    expect(deploy.mock.calls[0]![0]).not.toHaveProperty('fundRail');
    cleanup();
    // The Base rail off: no rail to pick, and the funds move on Solana, as the API's default.
    deploy.mockClear();
    useDashboard.setState({ dashboard: { treasury: { baseNetwork: null } } as never });
    render(<DeployDialog open onClose={() => {}} />);
    expect(screen.queryByLabelText('Base USDC')).toBeNull();
    fireEvent.change(field('Agent id'), { target: { value: 'sol-one' } });
    fireEvent.change(field('Starting funds (USDC, optional)'), { target: { value: '1.25' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    expect((await screen.findByRole('status', { hidden: true })).textContent).toMatch(/on Solana from the treasury/);
    expect(deploy.mock.calls[0]![0]).not.toHaveProperty('fundRail');
    // Its Base account is not offered where the rail is off.
    expect(screen.getByTestId('deployed-wallets').textContent).toBe('Wallet W. Allocate more from its page.');
  });

  it('deployed without funds, says where to allocate them', async () => {
    deploysUnfunded('dry');
    render(<DeployDialog open onClose={() => {}} />);
    fireEvent.change(field('Agent id'), { target: { value: 'dry' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    expect((await screen.findByTestId('deployed-wallets')).textContent).toBe('Wallet W. Allocate funds to it from its page.');
  });

  it("Open its page, the key not copied, asks first; closed without the key, it opens the agent's page", async () => {
    deploysUnfunded('solo');
    window.location.hash = '';
    const onClose = vi.fn();
    render(<DeployDialog open onClose={onClose} />);
    fireEvent.change(field('Agent id'), { target: { value: 'solo' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    fireEvent.click(await screen.findByRole('link', { name: 'Open its page', hidden: true }));
    // Not followed yet: the key would be gone.
    expect(window.location.hash).toBe('');
    expect(onClose).not.toHaveBeenCalled();
    // Back to the key, then Done: the page asked for earlier is not opened by another way out.
    fireEvent.click(screen.getByRole('button', { name: 'Back to the key', hidden: true }));
    fireEvent.click(screen.getByRole('button', { name: 'Done', hidden: true }));
    fireEvent.click(screen.getByRole('button', { name: 'Close without the key', hidden: true }));
    expect(window.location.hash).toBe('');
    expect(onClose).toHaveBeenCalledTimes(1);
    // Asked from Open its page: closing without the key opens it.
    cleanup();
    render(<DeployDialog open onClose={onClose} />);
    fireEvent.change(field('Agent id'), { target: { value: 'solo' } });
    fireEvent.click(screen.getByRole('button', { name: 'Deploy', hidden: true }));
    fireEvent.click(await screen.findByRole('link', { name: 'Open its page', hidden: true }));
    fireEvent.click(screen.getByRole('button', { name: 'Close without the key', hidden: true }));
    expect(onClose).toHaveBeenCalledTimes(2);
    expect(window.location.hash).toBe('#/agents/solo');
  });
});
