import { describe, expect, it } from 'vitest';
import { NEXT_TOOL_CODES, nextTool } from '../../../../server/mcp/refusal-next.js';
import { NEXT_STEP_CODES, nextStep } from '../../../../server/cli/next-step.js';
import { POLICY_RULES } from '../../../../server/core/policy/rules.js';

describe("the tool named after an agent's refused payment", () => {
  it('names the tool that asks the owner, with its argument', () => {
    expect(nextTool('max_per_payment_exceeded')).toBe('set_policy with a higher maxPerPayment asks the owner for it');
    // Within the cooldown: its words say when; a shorter one is the owner's to give.
    expect(nextTool('cooldown_active')).toBe('call again once it passes; set_policy with a shorter cooldownSeconds asks the owner for it');
    expect(nextTool('policy_expired')).toBe('set_policy with a later expiresAt (or null: no end) asks the owner for it');
  });

  it('short of funds, names the other rail only where the refusal says its wallet holds the amount', () => {
    // Neither wallet may hold it (the refusal then names both figures): a call on the other rail is no sure way.
    expect(nextTool('insufficient_funds')).toMatch(
      /; where this refusal names another rail whose wallet holds the amount, the same call with that rail pays from it$/,
    );
    expect(nextTool('insufficient_funds')).not.toMatch(/may pay/);
  });

  it('after the refusal that tripped its breaker, names resume_agent', () => {
    expect(nextTool('max_per_payment_exceeded', true)).toBe(nextTool('agent_suspended'));
  });

  it('answers the very refusals the CLI answers, every rule of the policy among them', () => {
    expect([...NEXT_TOOL_CODES].sort()).toEqual([...NEXT_STEP_CODES].sort());
    for (const code of [...POLICY_RULES, 'budget_exceeded', 'agent_suspended', 'insufficient_funds']) {
      expect(nextStep('pay', code), code).not.toBeNull();
      expect(nextTool(code), code).not.toBeNull();
    }
    expect(nextTool('chain_unavailable')).toBeNull();
  });
});
