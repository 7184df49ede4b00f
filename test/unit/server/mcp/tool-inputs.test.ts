import { describe, expect, it } from 'vitest';
import { allocateInput, setPolicyInput } from '../../../../server/mcp/tool-inputs.js';

/** The message a host sees for an input the tools refuse (the SDK says the issue's message). */
const refusal = (result: { success: boolean; error?: { issues: { message: string }[] } }) => {
  expect(result.success).toBe(false);
  return result.error!.issues.map((issue) => issue.message).join('; ');
};

describe("the MCP tools' amounts", () => {
  it('take a decimal string or a JSON number, judged by the amount rule', () => {
    expect(setPolicyInput.parse({ askAbove: 1, maxPerPayment: '0.50' })).toMatchObject({ askAbove: '1', maxPerPayment: '0.50' });
    expect(refusal(setPolicyInput.safeParse({ askAbove: 0.1 + 0.2 }))).toMatch(/amount of USDC/);
  });

  it('refuse any other kind of value with the amount rule, not "Invalid input"', () => {
    for (const input of [
      { askAbove: true },
      { maxPerPayment: false },
      { dailyBudget: {} },
      { budgets: [{ amount: [1], window: '24h' }] },
    ]) {
      const said = refusal(setPolicyInput.safeParse(input));
      expect(said, JSON.stringify(input)).not.toMatch(/Invalid input/);
      expect(said, JSON.stringify(input)).toMatch(/a decimal string such as "0\.01", or a JSON number/);
    }
    expect(refusal(allocateInput.safeParse({ amount: null }))).toMatch(/a decimal string such as "0\.01", or a JSON number/);
  });
});
