import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createNotifier, notificationFor } from '../../../electron/notifications.js';
import type { ElectronApi } from '../../../electron/electron-api.js';

describe('desktop notifications, computed from engine events', () => {
  it('names an agent as the owner named it, as the tray does; its page still by its id', () => {
    const at = '2026-11-22T00:00:00.000Z';
    const nameOf = (agentId: string) => (agentId === 'alpha' ? 'Research assistant' : agentId);
    const held = { type: 'approval', owner: 'o', agentId: 'alpha', approvalId: 'apr_2', kind: 'payment', status: 'pending', at } as const;
    expect(notificationFor({ ...held, request: { service: 'demo-weather', amount: '4.00' } }, null, nameOf)?.title).toBe(
      'Research assistant asks to pay',
    );
    expect(notificationFor({ type: 'agent', owner: 'o', agentId: 'alpha', status: 'suspended', at }, null, nameOf)).toEqual({
      title: 'Research assistant stopped',
      body: 'Its payments are refused until you resume it.',
      route: '#/agents/alpha',
    });
  });

  it('notifies for approvals waiting, refused payments, stopped agents, deposits and failed scheduled backups, and opens the right page', () => {
    const at = '2026-11-22T00:00:00.000Z';
    expect(
      notificationFor({
        type: 'approval',
        owner: 'o',
        agentId: 'alpha',
        approvalId: 'apr_1',
        kind: 'allocate',
        status: 'pending',
        request: { amount: '1.5' },
        at,
      }),
    ).toEqual({
      title: 'Approval waiting',
      body: 'alpha asks: Allocate 1.50 USDC to its wallet on Solana',
      route: '#/approvals',
    });
    expect(
      notificationFor({ type: 'approval', owner: 'o', agentId: 'alpha', approvalId: 'apr_1', kind: 'allocate', status: 'approved', at }),
    ).toBeNull();
    // An end asked for reads as the day the owner would type, in their zone (kept as the instant it resolved to).
    const ending = { type: 'approval', owner: 'o', agentId: 'alpha', approvalId: 'apr_3', kind: 'policy', status: 'pending', at } as const;
    expect(notificationFor({ ...ending, request: { expiresAt: '2026-12-31T15:00:00.000Z' } }, 'Asia/Tokyo')?.body).toBe(
      'alpha asks: Change its policy: end → the end of 2026-12-31',
    );
    // A payment held for the owner: who asks to pay what, and that nothing is paid yet.
    expect(
      notificationFor({
        type: 'approval',
        owner: 'o',
        agentId: 'alpha',
        approvalId: 'apr_2',
        kind: 'payment',
        status: 'pending',
        request: { service: 'demo-weather', amount: '4.00', recipient: 'demo-weather' },
        at,
      }),
    ).toEqual({
      title: 'alpha asks to pay',
      body: 'Pay 4.00 USDC on Solana to demo-weather. Nothing is paid until you approve.',
      route: '#/approvals',
    });
    const refusedOn = (rail: 'sol' | 'base') =>
      notificationFor({
        type: 'payment_refused',
        owner: 'o',
        agentId: 'beta',
        code: 'daily_budget_exceeded',
        message: 'over budget',
        amount: '1.00',
        service: 'demo-weather',
        rail,
        at,
      });
    expect(refusedOn('sol')).toMatchObject({ route: '#/agents/beta', body: '1.00 USDC to demo-weather: over budget' });
    expect(refusedOn('base')?.body).toBe('1.00 USDC on Base to demo-weather: over budget');
    expect(notificationFor({ type: 'agent', owner: 'o', agentId: 'beta', status: 'suspended', at })?.route).toBe('#/agents/beta');
    expect(notificationFor({ type: 'agent', owner: 'o', agentId: 'beta', status: 'active', at })).toBeNull();
    expect(
      notificationFor({
        type: 'agent',
        owner: 'o',
        agentId: 'beta',
        status: 'suspended',
        reason: 'its breaker tripped: 3 refused payments within 5 minutes',
        at,
      }),
    ).toEqual({
      title: 'beta stopped by its breaker',
      body: 'Its breaker tripped: 3 refused payments within 5 minutes. Only you can resume it.',
      route: '#/agents/beta',
    });
    expect(
      notificationFor({
        type: 'warning',
        owner: 'o',
        agentId: 'beta',
        about: 'budget',
        message: 'beta has used 80 % of its daily budget',
        at,
      }),
    ).toEqual({ title: 'beta is near a limit', body: 'beta has used 80 % of its daily budget', route: '#/agents/beta' });
    expect(notificationFor({ type: 'warning', owner: 'o', agentId: 'beta', about: 'expiry', message: 'ends', at })?.title).toBe(
      "beta's policy ends soon",
    );
    expect(notificationFor({ type: 'deposit', owner: 'o', amount: '25.00', txSignature: 'x', rail: 'sol', at })?.body).toBe(
      '25.00 USDC reached the treasury on Solana.',
    );
    expect(notificationFor({ type: 'deposit', owner: 'o', amount: '1250.00', txSignature: '0x1', rail: 'base', at })?.body).toBe(
      '1,250.00 USDC reached the treasury on Base.',
    );
    expect(notificationFor({ type: 'backup', owner: 'o', file: 'failed', error: 'the folder is gone', at })).toEqual({
      title: 'Scheduled backup failed',
      body: 'the folder is gone. It is tried again within the hour.',
      route: '#/backup',
    });
    expect(notificationFor({ type: 'backup', owner: 'o', file: 'written', at })).toBeNull();
    expect(notificationFor({ type: 'backup', owner: 'o', recoveryPhrase: 'confirmed', at })).toBeNull();
    expect(
      notificationFor({
        type: 'payment',
        owner: 'o',
        agentId: 'a',
        paymentId: 'p',
        status: 'confirmed',
        amount: '1',
        service: 's',
        rail: 'sol',
        at,
      }),
    ).toBeNull();
  });
});

describe('the notifier', () => {
  it('shows every request that waits for the owner, each its own decision, while repeats of the rest are coalesced', () => {
    const shown: { title: string; body: string }[] = [];
    class Note extends EventEmitter {
      static isSupported = () => true;
      constructor(readonly options: { title: string; body: string }) {
        super();
      }
      show() {
        shown.push(this.options);
      }
    }
    const notifier = createNotifier(
      Note as unknown as ElectronApi['Notification'],
      () => undefined,
      () => 1_000,
    );
    const at = '2026-11-22T00:00:00.000Z';
    const held = (approvalId: string, amount: string) =>
      notifier.notify({
        type: 'approval',
        owner: 'o',
        agentId: 'alpha',
        approvalId,
        kind: 'payment',
        status: 'pending',
        request: { service: 'demo-weather', amount, recipient: 'demo-weather' },
        at,
      });
    held('apr_1', '0.50');
    held('apr_2', '0.70');
    expect(shown.map((note) => note.body)).toEqual([
      'Pay 0.50 USDC on Solana to demo-weather. Nothing is paid until you approve.',
      'Pay 0.70 USDC on Solana to demo-weather. Nothing is paid until you approve.',
    ]);
    const refused = () =>
      notifier.notify({
        type: 'payment_refused',
        owner: 'o',
        agentId: 'alpha',
        code: 'cooldown_active',
        message: 'wait',
        amount: '1',
        service: 's',
        rail: 'sol',
        at,
      });
    refused();
    refused();
    expect(shown).toHaveLength(3);
  });
});
