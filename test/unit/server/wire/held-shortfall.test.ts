import { describe, expect, it } from 'vitest';
import { heldShortfall } from '../../../../server/wire/held-shortfall.js';

const held = (agentId: string, amount: string, rail?: string) => ({
  approvalId: `apr_${agentId}_${amount}`,
  agentId,
  kind: 'payment',
  request: { amount, ...(rail === undefined ? {} : { rail }) },
});

describe('what a wallet lacks for the payments waiting for the yes', () => {
  it("counts the agent's payments on that rail only (a request without a rail is Solana's), and says what the wallet lacks", () => {
    const waiting = [
      held('a', '0.40', 'base'),
      held('a', '0.10', 'base'),
      held('a', '5.00'),
      held('b', '9.00', 'base'),
      { ...held('a', '1'), kind: 'policy' },
    ];
    expect(heldShortfall(waiting, 'a', 'base', 200_000n)).toMatchObject({ needed: 500_000n, short: 300_000n });
    expect(heldShortfall(waiting, 'a', 'base', 200_000n)?.payments.map((p) => p.approvalId)).toEqual(['apr_a_0.40', 'apr_a_0.10']);
    expect(heldShortfall(waiting, 'a', 'sol', 0n)).toMatchObject({ needed: 5_000_000n, short: 5_000_000n });
  });

  it('is nothing where the wallet holds what waits, or nothing waits there', () => {
    expect(heldShortfall([held('a', '0.40', 'base')], 'a', 'base', 400_000n)).toBeNull();
    expect(heldShortfall([held('a', '0.40', 'base')], 'a', 'sol', 0n)).toBeNull();
    expect(heldShortfall([], 'a', 'base', 0n)).toBeNull();
  });
});
