import { describe, expect, it, vi } from 'vitest';
import { fundedAgent } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { createBalanceCache, runTrayAction, trayState } from '../../electron/tray-actions.js';
import { iconState, tooltip, trayMenu, type TrayAction, type TrayItem } from '../../electron/tray-model.js';

/** The rails a sim data dir opens: Solana and the embedded EVM chain. */
const BOTH = ['sol', 'base'] as const;

const flatten = (items: TrayItem[]): TrayItem[] =>
  items.flatMap((item) => (item.type === 'submenu' ? [item, ...flatten(item.items)] : [item]));

describe('the tray drives the real engine', () => {
  const t = useCoffer();
  const effects = { open: () => undefined, toggleStartAtLogin: () => undefined, quit: () => undefined };

  const click = async (label: string) => {
    const menu = trayMenu(trayState(t.coffer.engine, t.owner, { balances: null, rails: BOTH, startAtLogin: 'off' }));
    const item = flatten(menu).find((i): i is Extract<TrayItem, { type: 'action' }> => i.type === 'action' && i.label === label);
    expect(item, `menu item "${label}"`).toBeDefined();
    return runTrayAction(t.coffer.engine, t.owner, item!.action as TrayAction, effects);
  };
  const pay = (agentId: string, key: string) => payUsdc(t, agentId, key, { service: 'demo-weather', amount: '0.01' });

  it('kill from the menu suspends the agent, and its next payment is refused', async () => {
    const agent = await fundedAgent(t, 'tray-one', '1.00');
    expect((await pay('tray-one', agent.apiKey)).status).toBe(200);
    await click('Stop tray-one');
    const refused = await pay('tray-one', agent.apiKey);
    expectError(refused, 403, 'agent_suspended');
    const state = trayState(t.coffer.engine, t.owner, { balances: null, rails: BOTH, startAtLogin: 'off' });
    expect(iconState(state)).toBe('attention');
    expect(t.coffer.engine.ctx.store.listAudit(t.owner, 5).find((e) => e.action === 'agent.kill')?.actor).toBe('tray');
    await click('Resume tray-one');
    expect((await pay('tray-one', agent.apiKey)).status).toBe(200);
  });

  it('"Stop all agents" suspends every agent', async () => {
    const a = await fundedAgent(t, 'tray-a', '1.00');
    const b = await fundedAgent(t, 'tray-b', '1.00');
    expect((await click('Stop all agents')).stopped).toEqual(expect.arrayContaining(['tray-a', 'tray-b']));
    const state = trayState(t.coffer.engine, t.owner, { balances: null, rails: BOTH, startAtLogin: 'off' });
    expect(state.agents.every((agent) => agent.status === 'suspended')).toBe(true);
    expect((await pay('tray-a', a.apiKey)).body.code).toBe('agent_suspended');
    expect((await pay('tray-b', b.apiKey)).body.code).toBe('agent_suspended');
    // The brake stays where it was, the same item: a second click stops nothing more.
    expect(trayMenu(state)[0]).toEqual({ type: 'action', label: 'Stop all agents', action: { kind: 'stop-all' } });
    expect((await click('Stop all agents')).stopped).toEqual([]);
  });

  it('shows pending approvals from the engine', async () => {
    const agent = await fundedAgent(t, 'tray-asker', '1.00');
    await t.api('POST', t.withOwner('/v1/agents/tray-asker/allocate'), { key: agent.apiKey, body: { amount: '2.00' } });
    const state = trayState(t.coffer.engine, t.owner, { balances: null, rails: BOTH, startAtLogin: 'off' });
    expect(state.pendingApprovals).toContainEqual(
      expect.objectContaining({ agentId: 'tray-asker', summary: 'Allocate 2.00 USDC to its wallet on Solana' }),
    );
  });

  it("a request's end reads as the day typed, in the owner's time zone", async () => {
    const agent = await fundedAgent(t, 'tray-ending', '1.00', { dailyBudget: '5.00' });
    const zone = await t.api('POST', t.withOwner('/v1/settings'), { body: { timeZone: 'Asia/Tokyo' } });
    expect(zone.status, JSON.stringify(zone.body)).toBe(200);
    try {
      const asked = await t.api('POST', t.withOwner('/v1/agents/tray-ending/policy'), {
        key: agent.apiKey,
        body: { dailyBudget: '50.00', expiresAt: '2099-12-31' },
      });
      expect(asked.status).toBe(202);
      const state = trayState(t.coffer.engine, t.owner, { balances: null, rails: BOTH, startAtLogin: 'off' });
      expect(state.pendingApprovals.find((a) => a.agentId === 'tray-ending')?.summary).toBe(
        'Change its policy: daily budget → 50.00 USDC; end → the end of 2099-12-31',
      );
    } finally {
      await t.api('POST', t.withOwner('/v1/settings'), { body: { timeZone: null } });
    }
  });

  it('balances come from the chain, cached: a chain that fails keeps the last ones, and the menu never waits for it', async () => {
    await fundedAgent(t, 'tray-cached', '3.00');
    const cache = createBalanceCache(t.coffer.engine, t.owner);
    expect(
      trayState(t.coffer.engine, t.owner, { balances: cache.last(), rails: BOTH, startAtLogin: null }).agents.find(
        (a) => a.agentId === 'tray-cached',
      )?.balances,
    ).toEqual({
      sol: null,
      base: null,
    });
    expect(await cache.refresh()).toBe(true);
    expect(
      trayState(t.coffer.engine, t.owner, { balances: cache.last(), rails: BOTH, startAtLogin: null }).agents.find(
        (a) => a.agentId === 'tray-cached',
      )?.balances,
    ).toEqual({
      sol: '3.00',
      base: '0.00',
    });
    const chain = t.coffer.engine.ctx.chain;
    const original = chain.usdcBalances.bind(chain);
    chain.usdcBalances = () => Promise.reject(new Error('RPC down'));
    try {
      expect(await cache.refresh()).toBe(false);
      const state = trayState(t.coffer.engine, t.owner, { balances: cache.last(), rails: BOTH, startAtLogin: null });
      expect(state.agents.find((a) => a.agentId === 'tray-cached')).toMatchObject({
        status: 'active',
        balances: { sol: '3.00', base: '0.00' },
      });
      expect(flatten(trayMenu(state)).some((i) => i.type === 'action' && i.action.kind === 'stop-all')).toBe(true);
    } finally {
      chain.usdcBalances = original;
    }
  });

  it("shows the treasury and each agent on each rail, read from the engine's answers", async () => {
    await fundedAgent(t, 'tray-rails', '3.00');
    const allocated = await t.api('POST', t.withOwner('/v1/agents/tray-rails/allocate'), { body: { amount: '1.25', rail: 'base' } });
    expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
    const cache = createBalanceCache(t.coffer.engine, t.owner);
    // Every balance, on each rail, is the dashboard's answer: no agent's own balance is read besides.
    const ownReads = vi.spyOn(t.coffer.engine, 'balance');
    try {
      expect(await cache.refresh()).toBe(true);
      expect(ownReads).not.toHaveBeenCalled();
    } finally {
      ownReads.mockRestore();
    }
    const state = trayState(t.coffer.engine, t.owner, { balances: cache.last(), rails: BOTH, startAtLogin: null });
    const { treasury } = (await t.api('GET', t.withOwner('/v1/dashboard'))).body as {
      treasury: { balances: { sol: string; base: string } };
    };
    expect(state.treasury).toEqual(treasury.balances);
    expect(state.agents.find((a) => a.agentId === 'tray-rails')?.balances).toEqual({ sol: '3.00', base: '1.25' });
    const labels = flatten(trayMenu(state)).map((item) => ('label' in item ? item.label : ''));
    expect(labels).toContain('● tray-rails · 3.00 USDC on Solana, 1.25 on Base');
    expect(labels.find((label) => label.startsWith('Treasury: '))).toMatch(/^Treasury: [\d,.]+ USDC on Solana, [\d,.]+ on Base · sim$/);
    // With the Base rail off nothing of Base is shown, whatever was read.
    expect(JSON.stringify(trayMenu({ ...state, rails: ['sol'] }))).not.toMatch(/Base/);
  });

  it('a Base node that does not answer leaves its balances unknown, the Solana ones shown; one that hangs holds up no brake', async () => {
    const cache = createBalanceCache(t.coffer.engine, t.owner);
    const base = t.coffer.base!.chain;
    const original = { one: base.usdcBalance.bind(base), many: base.usdcBalances.bind(base) };
    // The node, for one wallet's balance and for many in one call.
    const node = (answer: () => Promise<bigint>) => {
      base.usdcBalance = answer;
      base.usdcBalances = async (wallets) => new Map(await Promise.all(wallets.map(async (wallet) => [wallet, await answer()] as const)));
    };
    const answering = () => {
      base.usdcBalance = original.one;
      base.usdcBalances = original.many;
    };
    node(() => Promise.reject(new Error('Base node down')));
    try {
      expect(await cache.refresh()).toBe(true);
      const state = trayState(t.coffer.engine, t.owner, { balances: cache.last(), rails: BOTH, startAtLogin: null });
      expect(state.treasury.base).toBeNull();
      expect(state.agents.find((a) => a.agentId === 'tray-rails')?.balances).toEqual({ sol: '3.00', base: null });
      expect(tooltip(state)).toMatch(/^Coffer: [\d,.]+ USDC on Solana, … on Base \(sim\)/);
      expect(flatten(trayMenu(state)).map((item) => ('label' in item ? item.label : ''))).toContain(
        '● tray-rails · 3.00 USDC on Solana, … on Base',
      );
      // A node that never answers: the read waits, the menu and its brake do not.
      const waiting: (() => void)[] = [];
      node(() => new Promise<bigint>((resolve) => waiting.push(() => resolve(0n))));
      const reading = cache.refresh();
      await vi.waitFor(() => expect(waiting.length).toBeGreaterThan(0));
      await click('Stop tray-rails');
      expect(trayState(t.coffer.engine, t.owner, { balances: cache.last(), rails: BOTH, startAtLogin: null }).agents).toContainEqual(
        expect.objectContaining({ agentId: 'tray-rails', status: 'suspended', balances: { sol: '3.00', base: null } }),
      );
      answering();
      for (const answer of waiting) answer();
      await reading;
    } finally {
      answering();
    }
  });
});
