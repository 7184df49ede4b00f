import { describe, expect, it } from 'vitest';
import { askedAgainst, pillWords, saidOf } from '../../../../../renderer/src/lib/approval-words.js';
import type { Approval, Decided } from '../../../../../renderer/src/api/types.js';

const RECIPIENT = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
/** The owner's zone, where the end of 2026-12-31 is 23:00 UTC. */
const ZONE = 'Europe/Paris';
const before = { dailyBudget: '10.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [] };

const approval = (extra: Partial<Approval>): Approval =>
  ({
    approvalId: 'apr_1',
    status: 'pending',
    kind: 'payment',
    agentId: 'alpha',
    targetAgentId: 'alpha',
    request: { service: 'forecast-api', amount: '4.00', recipient: RECIPIENT },
    createdAt: '2026-11-23T11:30:00.000Z',
    expiresAt: '2026-11-24T11:30:00.000Z',
    decidedAt: null,
    ...extra,
  }) as Approval;
const decided = (extra: Partial<Decided>): Decided => ({ approvalId: 'apr_1', status: 'approved', ...extra }) as Decided;

const held = approval({});
const allocation = approval({ kind: 'allocate', request: { amount: '5.00' } });
const policyRequest = approval({ kind: 'policy', request: { dailyBudget: '20.00' } });

describe('a decided request, in words', () => {
  it('a policy request is read against the policy it was asked against, kept with it; any other against none', () => {
    expect(askedAgainst({ ...policyRequest, before } as Approval)).toEqual(before);
    expect(askedAgainst(policyRequest)).toBeNull();
    expect(askedAgainst({ ...allocation, before } as Approval)).toBeNull();
  });

  it('its pill: a payment says whether it was paid, a withdrawn request why, any other its status', () => {
    expect(pillWords({ ...held, status: 'approved', result: { paymentId: 'pay_1', status: 'confirmed' } } as Approval)).toBe('paid');
    expect(pillWords({ ...held, status: 'approved', result: { paymentId: 'pay_1', status: 'pending' } } as Approval)).toBe('sending');
    expect(pillWords({ ...held, status: 'failed' })).toBe('not paid');
    expect(pillWords({ ...held, status: 'withdrawn' })).toBe('withdrawn');
    expect(pillWords({ ...allocation, status: 'failed' })).toBe('failed');
    expect(pillWords({ ...allocation, status: 'denied' })).toBe('denied');
  });

  it('what the owner’s decision on a held payment came to: paid (which payment), denied, or approved but not paid', () => {
    expect(saidOf(held, decided({ result: { paymentId: 'pay_1', status: 'confirmed' } }), ZONE)).toEqual({
      tone: 'ok',
      text: 'Paid 4.00 USDC on Solana to forecast-api for alpha (payment pay_1).',
    });
    expect(saidOf(held, decided({ status: 'denied' }), ZONE)).toEqual({
      tone: 'ok',
      text: 'Denied: 4.00 USDC on Solana to forecast-api for alpha, nothing was paid.',
    });
    expect(saidOf(held, decided({ status: 'failed', error: 'the wallet is short' }), ZONE)).toEqual({
      tone: 'failed',
      text: 'Approved, but not paid (4.00 USDC on Solana to forecast-api for alpha): the wallet is short',
    });
  });

  it('what the decision on another request came to: carried out, denied, or failed with the server’s reason', () => {
    expect(saidOf(allocation, decided({}), ZONE)).toEqual({
      tone: 'ok',
      text: 'Approved: alpha, Allocate 5.00 USDC to its wallet on Solana',
    });
    expect(saidOf(allocation, decided({ status: 'denied' }), ZONE)).toEqual({
      tone: 'ok',
      text: 'Denied: alpha, Allocate 5.00 USDC to its wallet on Solana',
    });
    expect(saidOf({ ...policyRequest, before } as Approval, decided({}), ZONE)).toEqual({
      tone: 'ok',
      text: 'Approved: alpha, Change its policy: daily budget 10.00 → 20.00 USDC (2×)',
    });
    // An end the agent asked for reads as the day, in the owner's zone.
    const ending = { ...policyRequest, request: { expiresAt: '2026-12-31T23:00:00.000Z' }, before } as Approval;
    expect(saidOf(ending, decided({}), ZONE).text).toBe('Approved: alpha, Change its policy: end: never → the end of 2026-12-31');
    expect(saidOf(allocation, decided({ status: 'failed', error: 'the treasury is short' }), ZONE)).toEqual({
      tone: 'failed',
      text: 'Approved, but it failed: the treasury is short',
    });
  });
});
