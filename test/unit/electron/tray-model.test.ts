import { describe, expect, it } from 'vitest';
import {
  iconState,
  MAX_AGENT_ITEMS,
  MAX_REQUEST_LABEL,
  tooltip,
  trayMenu,
  type TrayItem,
  type TrayState,
} from '../../../electron/tray-model.js';

const base: TrayState = {
  network: 'sim',
  rails: ['sol', 'base'],
  treasury: { sol: '995.00', base: '1000.00' },
  agents: [
    {
      agentId: 'alpha',
      displayName: 'Alpha',
      status: 'active',
      statusReason: null,
      warning: null,
      balances: { sol: '4.00', base: '2.00' },
    },
    { agentId: 'beta', displayName: 'Beta', status: 'active', statusReason: null, warning: null, balances: { sol: '0.50', base: '0.00' } },
  ],
  pendingApprovals: [],
  startAtLogin: 'off',
};

const flatten = (items: TrayItem[]): TrayItem[] =>
  items.flatMap((item) => (item.type === 'submenu' ? [item, ...flatten(item.items)] : [item]));
const labels = (items: TrayItem[]) =>
  flatten(items)
    .filter((i) => i.type !== 'separator')
    .map((i) => ('label' in i ? i.label : ''));

describe('tray icon and menu, computed from engine state', () => {
  it('the icon asks for attention while an agent is stopped or an approval waits', () => {
    expect(iconState(base)).toBe('normal');
    expect(iconState({ ...base, agents: [{ ...base.agents[0]!, status: 'suspended' }] })).toBe('attention');
    expect(
      iconState({ ...base, pendingApprovals: [{ approvalId: 'apr_1', agentId: 'alpha', summary: 'Allocate 1.00 USDC to its wallet' }] }),
    ).toBe('attention');
    expect(tooltip({ ...base, agents: [{ ...base.agents[0]!, status: 'suspended' }] })).toBe(
      'Coffer: 995.00 USDC on Solana, 1,000.00 on Base (sim) · 1 agent stopped',
    );
  });

  it('an agent its breaker stopped says why, and one near a limit says which budget; both ask for attention', () => {
    const state: TrayState = {
      ...base,
      agents: [
        { ...base.agents[0]!, status: 'suspended', statusReason: 'its breaker tripped: 5 refused payments within 10 minutes' },
        { ...base.agents[1]!, warning: '85 % of 5.00 USDC in any 24 hours' },
      ],
    };
    expect(iconState({ ...base, agents: [state.agents[1]!] })).toBe('attention');
    expect(tooltip(state)).toBe('Coffer: 995.00 USDC on Solana, 1,000.00 on Base (sim) · 1 agent stopped · 1 near a limit');
    const menu = trayMenu(state);
    const alpha = menu.find((item) => item.type === 'submenu' && item.label.startsWith('■ Alpha'));
    expect(alpha).toMatchObject({ label: '■ Alpha · 4.00 USDC on Solana, 2.00 on Base · stopped by its breaker' });
    expect(alpha?.type === 'submenu' && alpha.items[0]).toEqual({
      type: 'label',
      label: 'Its breaker tripped: 5 refused payments within 10 minutes',
    });
    const beta = menu.find((item) => item.type === 'submenu' && item.label.startsWith('▲ Beta'));
    expect(beta).toMatchObject({ label: '▲ Beta · 0.50 USDC on Solana, 0.00 on Base · near a limit' });
    expect(beta?.type === 'submenu' && beta.items.map((item) => ('label' in item ? item.label : ''))).toEqual([
      '85 % of 5.00 USDC in any 24 hours',
      'Stop Beta',
      'Open its page',
    ]);
  });

  it('set ahead (Linux), nothing a payment changes is in it: balances, a budget near its limit, what waits', () => {
    const menu = trayMenu(base, 'set-ahead');
    const afterPayments = trayMenu(
      {
        ...base,
        treasury: { sol: '1.00', base: '0.10' },
        agents: base.agents.map((agent) => ({
          ...agent,
          balances: { sol: '0.01', base: null },
          warning: '85 % of 5.00 USDC in any 24 hours',
        })),
        pendingApprovals: [{ approvalId: 'apr_1', agentId: 'alpha', summary: 'Pay 0.01 USDC to demo-weather' }],
      },
      'set-ahead',
    );
    expect(JSON.stringify(afterPayments)).toBe(JSON.stringify(menu));
    expect(JSON.stringify(menu)).not.toMatch(/USDC|Solana|Base|%|Waiting/);
    expect(labels(menu)).toEqual(expect.arrayContaining(['Treasury · sim', 'Approvals…']));
    // An agent stopping is shown (and is the one change a payment may bring: its breaker).
    expect(labels(trayMenu({ ...base, agents: [{ ...base.agents[0]!, status: 'suspended' }] }, 'set-ahead'))).toContain(
      '■ Alpha · stopped',
    );
    expect(JSON.stringify(trayMenu(base))).toMatch(/USDC/);
  });

  it('shows the treasury, each agent with its status and a kill or resume item, stop all, open, quit', () => {
    const menu = trayMenu({ ...base, agents: [base.agents[0]!, { ...base.agents[1]!, status: 'suspended' }] });
    expect(labels(menu)).toEqual([
      'Stop all agents',
      'Treasury: 995.00 USDC on Solana, 1,000.00 on Base · sim',
      '● Alpha · 4.00 USDC on Solana, 2.00 on Base',
      'Stop Alpha',
      'Open its page',
      '■ Beta · 0.50 USDC on Solana, 0.00 on Base · stopped',
      'Resume Beta',
      'Open its page',
      'Open dashboard',
      'Start at login',
      'Quit Coffer',
    ]);
    const actions = flatten(menu).flatMap((i) => (i.type === 'action' ? [i.action] : []));
    expect(actions).toContainEqual({ kind: 'kill', agentId: 'alpha' });
    expect(actions).toContainEqual({ kind: 'resume', agentId: 'beta' });
    expect(actions).toContainEqual({ kind: 'stop-all' });
  });

  it('stop all is the first item, the same whatever runs; lists waiting approvals, and caps the agent lines', () => {
    const stopped = trayMenu({ ...base, agents: base.agents.map((a) => ({ ...a, status: 'suspended' as const })) });
    for (const menu of [stopped, trayMenu(base), trayMenu(base, 'set-ahead'), trayMenu({ ...base, agents: [] })])
      expect(menu[0]).toEqual({ type: 'action', label: 'Stop all agents', action: { kind: 'stop-all' } });
    const waiting = trayMenu({
      ...base,
      pendingApprovals: [{ approvalId: 'apr_1', agentId: 'alpha', summary: 'Allocate 1.00 USDC to its wallet' }],
    });
    expect(labels(waiting)).toContain('Waiting for you (1)');
    expect(flatten(waiting)).toContainEqual({
      type: 'action',
      label: 'alpha: Allocate 1.00 USDC to its wallet',
      action: { kind: 'open', route: '#/approvals' },
    });
    // A long request stays one line in the menu: cut, with an ellipsis; the dashboard has the rest.
    const long = 'Change its policy: daily budget 5.00 → 500.00 USDC (100×); max per payment 0.50 → 50.00 USDC (100×)';
    const cut = labels(trayMenu({ ...base, pendingApprovals: [{ approvalId: 'apr_2', agentId: 'alpha', summary: long }] })).find((l) =>
      l.startsWith('alpha: '),
    );
    expect(cut).toHaveLength(MAX_REQUEST_LABEL);
    expect(cut?.endsWith('…')).toBe(true);
    expect(`alpha: ${long}`.startsWith(cut!.slice(0, -1))).toBe(true);
    const many = trayMenu({
      ...base,
      agents: Array.from({ length: 40 }, (_, i) => ({
        agentId: `a${i}`,
        displayName: `A${i}`,
        status: 'active' as const,
        statusReason: null,
        warning: null,
        balances: { sol: '0.00', base: '0.00' },
      })),
    });
    expect(many.filter((i) => i.type === 'submenu')).toHaveLength(MAX_AGENT_ITEMS);
    expect(labels(many)).toContain('25 more in the dashboard…');
    expect(
      flatten(trayMenu({ ...base, startAtLogin: 'on' })).find((i) => i.type === 'action' && i.label === 'Start at login'),
    ).toMatchObject({ checked: true });
  });

  it('says "not backed up" until the recovery phrase was written down (or a file made, without a phrase), opening the backup page', () => {
    const item = (notBackedUp: 'phrase' | 'file') =>
      flatten(trayMenu({ ...base, notBackedUp })).find((i) => 'label' in i && i.label.startsWith('Not backed up'));
    expect(item('phrase')).toEqual({
      type: 'action',
      label: 'Not backed up: write down your recovery phrase…',
      action: { kind: 'open', route: '#/backup' },
    });
    expect(item('file')).toEqual({
      type: 'action',
      label: 'Not backed up: make an encrypted backup file…',
      action: { kind: 'open', route: '#/backup' },
    });
    for (const backedUp of [base, { ...base, notBackedUp: null }]) {
      expect(labels(trayMenu(backedUp)).some((label) => label.startsWith('Not backed up'))).toBe(false);
    }
  });

  it('never waits for the chain: unknown balances show as …, and the brake is there all the same', () => {
    const unknown = trayMenu({
      ...base,
      treasury: { sol: null, base: null },
      agents: base.agents.map((a) => ({ ...a, balances: { sol: null, base: null } })),
    });
    expect(labels(unknown)).toEqual(
      expect.arrayContaining([
        'Treasury: … USDC on Solana, … on Base · sim',
        '● Alpha · … USDC on Solana, … on Base',
        'Stop Alpha',
        'Stop all agents',
        'Quit Coffer',
      ]),
    );
    expect(tooltip({ ...base, treasury: { sol: null, base: null } })).toBe('Coffer: … USDC on Solana, … on Base (sim)');
  });

  it('shows each rail open: Base beside Solana, … on Base alone while its node has not answered', () => {
    const baseUnknown: TrayState = {
      ...base,
      treasury: { sol: '995.00', base: null },
      agents: [{ ...base.agents[0]!, balances: { sol: '4.00', base: null } }],
    };
    expect(labels(trayMenu(baseUnknown))).toEqual(
      expect.arrayContaining(['Treasury: 995.00 USDC on Solana, … on Base · sim', '● Alpha · 4.00 USDC on Solana, … on Base']),
    );
    expect(tooltip(baseUnknown)).toBe('Coffer: 995.00 USDC on Solana, … on Base (sim)');
  });

  it('with the Base rail off, names no Base balance anywhere (not even one it was handed)', () => {
    const solanaOnly: TrayState = { ...base, rails: ['sol'] };
    const menu = trayMenu(solanaOnly);
    expect(labels(menu)).toEqual(
      expect.arrayContaining(['Treasury: 995.00 USDC on Solana · sim', '● Alpha · 4.00 USDC on Solana', '● Beta · 0.50 USDC on Solana']),
    );
    expect(JSON.stringify(menu)).not.toMatch(/Base/);
    expect(tooltip(solanaOnly)).toBe('Coffer: 995.00 USDC on Solana (sim)');
    expect(labels(trayMenu({ ...solanaOnly, treasury: { sol: null, base: null } }))).toContain('Treasury: … USDC on Solana · sim');
  });

  it('offers "Start at login" only where it can work, and offers nothing while stopping', () => {
    expect(labels(trayMenu({ ...base, startAtLogin: null }))).not.toContain('Start at login');
    expect(trayMenu({ ...base, stopping: true })).toEqual([{ type: 'label', label: 'Stopping… (in-flight payments finish first)' }]);
    expect(tooltip({ ...base, stopping: true })).toBe('Coffer: stopping…');
  });
});
