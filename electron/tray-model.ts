/**
 * The tray, as plain data computed from the engine's state: what the icon shows and what the menu
 * holds. No Electron here, so every rule is unit-tested; tray-menu.ts turns it into a real menu.
 */
export interface TrayAgent {
  agentId: string;
  displayName: string;
  status: 'active' | 'suspended';
  balance: string;
}

export interface TrayState {
  network: string;
  treasuryBalance: string;
  agents: TrayAgent[];
  pendingApprovals: { approvalId: string; agentId: string; summary: string }[];
  startAtLogin: boolean;
}

export type IconState = 'normal' | 'attention';

export type TrayAction =
  | { kind: 'open'; route: string }
  | { kind: 'kill'; agentId: string }
  | { kind: 'resume'; agentId: string }
  | { kind: 'stop-all' }
  | { kind: 'toggle-start-at-login' }
  | { kind: 'quit' };

export type TrayItem =
  | { type: 'label'; label: string }
  | { type: 'separator' }
  | { type: 'action'; label: string; action: TrayAction; enabled?: boolean; checked?: boolean }
  | { type: 'submenu'; label: string; items: TrayItem[] };

/** The icon asks for attention while an agent is stopped or an approval waits. */
export function iconState(state: TrayState): IconState {
  return state.agents.some((a) => a.status === 'suspended') || state.pendingApprovals.length > 0 ? 'attention' : 'normal';
}

export function tooltip(state: TrayState): string {
  const stopped = state.agents.filter((a) => a.status === 'suspended').length;
  const parts = [`Coffer: ${state.treasuryBalance} USDC (${state.network})`];
  if (stopped > 0) parts.push(`${stopped} agent${stopped === 1 ? '' : 's'} stopped`);
  if (state.pendingApprovals.length > 0) parts.push(`${state.pendingApprovals.length} approval${state.pendingApprovals.length === 1 ? '' : 's'} waiting`);
  return parts.join(' · ');
}

/** At most this many agents get their own line; the rest are reached through the dashboard. */
export const MAX_AGENT_ITEMS = 15;

export function trayMenu(state: TrayState): TrayItem[] {
  const active = state.agents.filter((a) => a.status === 'active').length;
  const items: TrayItem[] = [
    { type: 'label', label: `Treasury: ${state.treasuryBalance} USDC · ${state.network}` },
    { type: 'separator' },
  ];
  if (state.agents.length === 0) items.push({ type: 'label', label: 'No agents yet' });
  for (const agent of state.agents.slice(0, MAX_AGENT_ITEMS)) {
    const stopped = agent.status === 'suspended';
    items.push({
      type: 'submenu',
      label: `${stopped ? '■ ' : '● '}${agent.displayName} · ${agent.balance} USDC${stopped ? ' · stopped' : ''}`,
      items: [
        stopped
          ? { type: 'action', label: `Resume ${agent.displayName}`, action: { kind: 'resume', agentId: agent.agentId } }
          : { type: 'action', label: `Stop ${agent.displayName}`, action: { kind: 'kill', agentId: agent.agentId } },
        { type: 'action', label: 'Open its page', action: { kind: 'open', route: `#/agents/${encodeURIComponent(agent.agentId)}` } },
      ],
    });
  }
  if (state.agents.length > MAX_AGENT_ITEMS) {
    items.push({ type: 'action', label: `${state.agents.length - MAX_AGENT_ITEMS} more in the dashboard…`, action: { kind: 'open', route: '#/' } });
  }
  items.push({ type: 'separator' });
  items.push({ type: 'action', label: 'Stop all agents', action: { kind: 'stop-all' }, enabled: active > 0 });
  if (state.pendingApprovals.length > 0) {
    items.push({ type: 'separator' });
    items.push({ type: 'label', label: `Waiting for you (${state.pendingApprovals.length})` });
    for (const approval of state.pendingApprovals.slice(0, 5)) {
      items.push({ type: 'action', label: `${approval.agentId}: ${approval.summary}`, action: { kind: 'open', route: '#/approvals' } });
    }
  }
  items.push(
    { type: 'separator' },
    { type: 'action', label: 'Open dashboard', action: { kind: 'open', route: '#/' } },
    { type: 'action', label: 'Start at login', action: { kind: 'toggle-start-at-login' }, checked: state.startAtLogin },
    { type: 'separator' },
    { type: 'action', label: 'Quit Coffer', action: { kind: 'quit' } },
  );
  return items;
}
