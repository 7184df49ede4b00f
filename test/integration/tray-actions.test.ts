import { describe, expect, it } from 'vitest';
import { fundedAgent } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { createBalanceCache, runTrayAction, trayState } from '../../electron/tray-actions.js';
import { iconState, trayMenu, type TrayAction, type TrayItem } from '../../electron/tray-model.js';

const flatten = (items: TrayItem[]): TrayItem[] =>
  items.flatMap((item) => (item.type === 'submenu' ? [item, ...flatten(item.items)] : [item]));

describe('the tray drives the real engine', () => {
  const t = useCoffer();
  const effects = { open: () => undefined, toggleStartAtLogin: () => undefined, quit: () => undefined };

  const click = async (label: string) => {
    const menu = trayMenu(trayState(t.coffer.engine, t.owner, null, 'off'));
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
    const state = trayState(t.coffer.engine, t.owner, null, 'off');
    expect(iconState(state)).toBe('attention');
    expect(t.coffer.engine.ctx.store.listAudit(t.owner, 5).find((e) => e.action === 'agent.kill')?.actor).toBe('tray');
    await click('Resume tray-one');
    expect((await pay('tray-one', agent.apiKey)).status).toBe(200);
  });

  it('"Stop all agents" suspends every agent', async () => {
    const a = await fundedAgent(t, 'tray-a', '1.00');
    const b = await fundedAgent(t, 'tray-b', '1.00');
    expect((await click('Stop all agents')).stopped).toEqual(expect.arrayContaining(['tray-a', 'tray-b']));
    const state = trayState(t.coffer.engine, t.owner, null, 'off');
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
    const state = trayState(t.coffer.engine, t.owner, null, 'off');
    expect(state.pendingApprovals).toContainEqual(
      expect.objectContaining({ agentId: 'tray-asker', summary: 'Allocate 2.00 USDC to its wallet' }),
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
      const state = trayState(t.coffer.engine, t.owner, null, 'off');
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
    expect(trayState(t.coffer.engine, t.owner, cache.last(), null).agents.find((a) => a.agentId === 'tray-cached')?.balance).toBeNull();
    expect(await cache.refresh()).toBe(true);
    expect(trayState(t.coffer.engine, t.owner, cache.last(), null).agents.find((a) => a.agentId === 'tray-cached')?.balance).toBe('3.00');
    const chain = t.coffer.engine.ctx.chain;
    const original = chain.usdcBalances.bind(chain);
    chain.usdcBalances = () => Promise.reject(new Error('RPC down'));
    try {
      expect(await cache.refresh()).toBe(false);
      const state = trayState(t.coffer.engine, t.owner, cache.last(), null);
      expect(state.agents.find((a) => a.agentId === 'tray-cached')).toMatchObject({ status: 'active', balance: '3.00' });
      expect(flatten(trayMenu(state)).some((i) => i.type === 'action' && i.action.kind === 'stop-all')).toBe(true);
    } finally {
      chain.usdcBalances = original;
    }
  });
});
