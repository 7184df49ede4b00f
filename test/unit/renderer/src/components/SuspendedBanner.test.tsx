// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { SuspendedBanner } from '../../../../../renderer/src/components/SuspendedBanner.js';
import { useDashboard } from '../../../../../renderer/src/state/store.js';

const agent = (agentId: string, status: 'active' | 'suspended') => ({ agentId, displayName: agentId, status, statusReason: null });
const withAgents = (...agents: ReturnType<typeof agent>[]) =>
  useDashboard.setState({ client: null, dashboard: { agents } as never, pendingApprovals: [] });

afterEach(() => {
  cleanup();
  useDashboard.setState({ dashboard: null });
});

describe('the stopped banner speaks of an agent as “it”', () => {
  it('one agent, stopped: its payments', () => {
    withAgents(agent('alpha', 'suspended'));
    render(<SuspendedBanner />);
    expect(screen.getByTestId('stopped-banner').textContent).toMatch(/^The agent is stopped: its payments are refused\. alpha/);
  });

  it('one of several: its payments; several: their payments', () => {
    withAgents(agent('alpha', 'suspended'), agent('beta', 'active'));
    render(<SuspendedBanner />);
    expect(screen.getByTestId('stopped-banner').textContent).toMatch(/^1 of 2 agents is stopped: its payments are refused\./);
    cleanup();
    withAgents(agent('alpha', 'suspended'), agent('beta', 'suspended'));
    render(<SuspendedBanner />);
    expect(screen.getByTestId('stopped-banner').textContent).toMatch(/^Both agents are stopped: their payments are refused\./);
  });
});
