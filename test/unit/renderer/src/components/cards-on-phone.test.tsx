// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, within } from '@testing-library/react';
import { SpendHistoryTable } from '../../../../../renderer/src/components/SpendHistoryTable.js';
import { DecidedApprovals } from '../../../../../renderer/src/components/DecidedApprovals.js';
import type { Approval, SpendRecord } from '../../../../../renderer/src/api/types.js';

afterEach(cleanup);

/** On a phone a table is a card per row, each cell named by its column: the name is the head it stands under. */
function expectCellsNamedByTheirHeads(container: HTMLElement) {
  const table = container.querySelector('table')!;
  expect(table.classList.contains('cards-on-phone')).toBe(true);
  const heads = within(table)
    .getAllByRole('columnheader')
    .map((head) => head.textContent);
  const cells = [...table.querySelectorAll('tbody tr:first-child td')].map((cell) => cell.getAttribute('data-label'));
  expect(cells).toEqual(heads);
}

describe('the tables a phone shows as cards', () => {
  it("an agent's payments", () => {
    const payment = {
      id: 'pay_1',
      service: 'demo-weather',
      serviceId: 'demo-weather',
      amount: '0.01',
      currency: 'USDC',
      status: 'confirmed',
      timestamp: '2026-12-01T10:00:00.000Z',
      description: 'weather',
      recipient: 'EQLviLtSasRjyL96DdDZS1FjZxLhZ3KdeiJMUz2mMLtm',
      txSignature: 'x',
      protocol: 'coffer',
      resource: null,
      rail: 'sol',
    } as SpendRecord;
    expectCellsNamedByTheirHeads(render(<SpendHistoryTable history={[payment]} />).container);
  });

  it('the decided approvals', () => {
    const decided = {
      approvalId: 'apr_1',
      agentId: 'alpha',
      kind: 'allocate',
      targetAgentId: 'alpha',
      request: { amount: '5.00' },
      status: 'denied',
      createdAt: '2026-12-01T09:00:00.000Z',
      expiresAt: '2026-12-02T09:00:00.000Z',
      decidedAt: '2026-12-01T10:00:00.000Z',
    } as Approval;
    expectCellsNamedByTheirHeads(render(<DecidedApprovals recent={[decided]} timeZone="UTC" />).container);
  });
});
