// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { SpendHistoryTable } from '../../../../../renderer/src/components/SpendHistoryTable.js';
import type { SpendRecord } from '../../../../../renderer/src/api/types.js';

afterEach(cleanup);

const payment = (id: string, rail: 'sol' | 'base'): SpendRecord => ({
  id,
  service: 'Coffer demo weather',
  serviceId: 'demo-weather',
  amount: '0.01',
  currency: 'USDC',
  status: 'confirmed',
  timestamp: '2026-11-29T12:00:00.000Z',
  description: 'coffer pay',
  recipient: rail === 'sol' ? '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx' : '0x558D0663A0BAAc54ed3780ebe12DFafBF0fE05f1',
  txSignature: null,
  protocol: 'coffer',
  resource: null,
  rail,
});

describe("an agent's payments on its page", () => {
  it('say the rail each was paid on, as the activity page does: two alike on either rail are told apart', () => {
    const { container } = render(<SpendHistoryTable history={[payment('pay_2', 'base'), payment('pay_1', 'sol')]} />);
    const headings = [...container.querySelectorAll('thead th')].map((th) => th.textContent);
    expect(headings).toEqual(['When', 'Venue', 'Description', 'Amount', 'Rail', 'Status']);
    const rails = [...container.querySelectorAll('tbody tr')].map((row) => row.querySelectorAll('td')[4]?.textContent);
    expect(rails).toEqual(['Base USDC', 'Solana USDC']);
  });
});
