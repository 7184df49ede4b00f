// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { Money } from '../../../../../renderer/src/components/Money.js';
import { BudgetBar, TightestBudgetBar } from '../../../../../renderer/src/components/BudgetBar.js';
import { usedShare } from '../../../../../renderer/src/lib/money.js';

afterEach(cleanup);

describe('money on screen', () => {
  it.each([
    ['5', '5.00 USDC'],
    ['5.00', '5.00 USDC'],
    ['0.125', '0.125 USDC'],
    ['0.000001', '0.000001 USDC'],
    ['1000000000.000001', '1,000,000,000.000001 USDC'],
    ['12.5', '12.50 USDC'],
    ['999.99', '999.99 USDC'],
    ['1000', '1,000.00 USDC'],
    ['123456.7', '123,456.70 USDC'],
  ])('shows %j as %j: never rounded, at least 2 and up to 6 decimals, thousands grouped', (value, shown) => {
    const { container } = render(<Money value={value} />);
    expect(container.textContent).toBe(shown);
  });

  it('shows the treasury integer micro-USDC amount exactly, far past float precision', () => {
    const { container } = render(<Money micro="9007199254740993" />);
    expect(container.textContent).toBe('9,007,199,254.740993 USDC');
  });

  it('can leave the unit out', () => {
    const { container } = render(<Money value="0.5" unit={false} />);
    expect(container.textContent).toBe('0.50');
  });

  it('the budget bar is a labelled meter with both numbers', () => {
    const { getByRole, container } = render(<BudgetBar spent="0.25" budget="2.00" label="spent today" />);
    const meter = getByRole('meter', { name: 'spent today' });
    expect(meter.getAttribute('value')).toBe('0.125');
    expect(container.textContent).toContain('0.25 / 2.00 USDC');
    expect(usedShare('3', '2')).toBe(1.5);
    expect(usedShare('0.000001', '0')).toBe(0);
  });
});

describe("an agent's tightest budget on its row", () => {
  const tightest = (percent: number, used: string) => ({ budget: '5.00 USDC in any 24 hours', used, percent, warned: false });

  it('says under one percent of something used as "<1 %", as the CLI does, not "0 %" (nothing used)', () => {
    const some = render(<TightestBudgetBar tightest={tightest(0, '0.03 USDC')} name="sol1" />);
    expect(some.container.textContent).toContain('<1 %');
    cleanup();
    const none = render(<TightestBudgetBar tightest={tightest(0, '0.00 USDC')} name="sol1" />);
    expect(none.container.textContent).toContain('0 %');
    expect(none.container.textContent).not.toContain('<1');
  });
});
