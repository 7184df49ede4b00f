import { describe, expect, it } from 'vitest';
import { nextTool } from '../../../../server/mcp/refusal-next.js';
import { nextStep } from '../../../../server/cli/next-step.js';

describe("the tool named after an agent's refused payment", () => {
  it('names the tool that asks the owner, with its argument', () => {
    expect(nextTool('max_per_payment_exceeded')).toBe('set_policy with a higher maxPerPayment asks the owner for it');
    // Within the cooldown: its words say when; a shorter one is the owner's to give.
    expect(nextTool('cooldown_active')).toBe('call again once it passes; set_policy with a shorter cooldownSeconds asks the owner for it');
  });

  it('answers every refusal the CLI answers, and nothing else', () => {
    const codes = [
      'agent_suspended',
      'daily_budget_exceeded',
      'budget_exceeded',
      'max_per_payment_exceeded',
      'cooldown_active',
      'service_not_allowed',
      'insufficient_funds',
      'price_above_registry',
      'approval_withdrawn',
      'approval_expired',
      'nonce_expired',
    ];
    for (const code of codes) {
      expect(nextStep('pay', code), code).not.toBeNull();
      expect(nextTool(code), code).not.toBeNull();
    }
    expect(nextTool('chain_unavailable')).toBeNull();
  });
});
