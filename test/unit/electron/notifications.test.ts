import { describe, expect, it } from 'vitest';
import { notificationFor } from '../../../electron/notifications.js';

describe('desktop notifications, computed from engine events', () => {
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
      body: 'alpha asks: Allocate 1.50 USDC to its wallet',
      route: '#/approvals',
    });
    expect(
      notificationFor({ type: 'approval', owner: 'o', agentId: 'alpha', approvalId: 'apr_1', kind: 'allocate', status: 'approved', at }),
    ).toBeNull();
    expect(
      notificationFor({
        type: 'payment_refused',
        owner: 'o',
        agentId: 'beta',
        code: 'daily_budget_exceeded',
        message: 'over budget',
        amount: '1.00',
        service: 'demo-weather',
        at,
      }),
    ).toMatchObject({
      route: '#/agents/beta',
      body: '1.00 USDC to demo-weather: over budget',
    });
    expect(notificationFor({ type: 'agent', owner: 'o', agentId: 'beta', status: 'suspended', at })?.route).toBe('#/agents/beta');
    expect(notificationFor({ type: 'agent', owner: 'o', agentId: 'beta', status: 'active', at })).toBeNull();
    expect(notificationFor({ type: 'deposit', owner: 'o', amount: '25.00', txSignature: 'x', at })?.body).toBe(
      '25.00 USDC reached the treasury.',
    );
    expect(notificationFor({ type: 'backup', owner: 'o', file: 'failed', error: 'the folder is gone', at })).toEqual({
      title: 'Scheduled backup failed',
      body: 'the folder is gone. It is tried again within the hour.',
      route: '#/backup',
    });
    expect(notificationFor({ type: 'backup', owner: 'o', file: 'written', at })).toBeNull();
    expect(notificationFor({ type: 'backup', owner: 'o', recoveryPhrase: 'confirmed', at })).toBeNull();
    expect(
      notificationFor({ type: 'payment', owner: 'o', agentId: 'a', paymentId: 'p', status: 'confirmed', amount: '1', service: 's', at }),
    ).toBeNull();
  });
});
