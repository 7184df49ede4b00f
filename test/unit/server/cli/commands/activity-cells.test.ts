import { describe, expect, it } from 'vitest';
import { spendCells } from '../../../../../server/cli/commands/activity.js';
import type { SpendRecord } from '../../../../../server/wire/answers/payments.js';

/** A held x402 purchase as the spend history answers it. */
const held: SpendRecord = {
  id: 'pay_1',
  service: 'forecast',
  serviceId: 'forecast',
  amount: '0.50',
  currency: 'USDC',
  status: 'held',
  timestamp: '2026-11-28T10:00:00.000Z',
  description: 'coffer fetch GET https://api.example.test/forecast',
  recipient: 'seller',
  txSignature: null,
  protocol: 'x402',
  resource: 'https://api.example.test/forecast',
  rail: 'sol',
};

describe("a line of an agent's history", () => {
  it('says a held payment waits (held); once the owner approved it, that it is approved and not bought yet', () => {
    expect(spendCells(held)).toContain('(held)');
    const approved = spendCells({ ...held, approvedAt: '2026-11-28T10:01:00.000Z' });
    expect(approved).toContain('(approved, not bought yet)');
    expect(approved).not.toContain('(held)');
  });
});
