import { describe, expect, it } from 'vitest';
import { NEXT_TOOL_CODES, nextTool } from '../../../../server/mcp/refusal-next.js';
import { NEXT_STEP_CODES, nextStep } from '../../../../server/cli/next-step.js';
import { POLICY_RULES } from '../../../../server/core/policy/rules.js';
import { payableElsewhere } from '../../../../server/core/payments/refusals.js';

describe("the tool named after an agent's refused payment", () => {
  it('names the tool that asks the owner, with its argument', () => {
    expect(nextTool('max_per_payment_exceeded')).toBe('set_policy with a higher maxPerPayment asks the owner for it');
    // Within the cooldown: its words say when; a shorter one is the owner's to give.
    expect(nextTool('cooldown_active')).toBe('call again once it passes; set_policy with a shorter cooldownSeconds asks the owner for it');
    expect(nextTool('policy_expired')).toBe('set_policy with a later expiresAt (or null: no end) asks the owner for it');
  });

  it("short of funds, names the call to make for each way the refusal says the other rail is open, in the refusal's own words", () => {
    const next = nextTool('insufficient_funds')!;
    // Asked on one rail: "the offer is payable on Solana too, with no rail asked".
    const asked = payableElsewhere('sol', 'base', false);
    expect(asked).toContain('with no rail asked');
    expect(next).toContain('where it says "with no rail asked", the same call without rail');
    // Held to the rail of the owner's yes: "the owner's yes is for Base: … a purchase asked anew, without the approvalId".
    const byYes = payableElsewhere('sol', 'base', true);
    expect(byYes).toContain("the owner's yes is for Base");
    expect(byYes).toContain('without the approvalId');
    expect(next).toContain(`where it says "the owner's yes is for" a rail, the same call without approvalId asks anew`);
    // Both short (the refusal names both figures): no call on the other rail is offered as a way.
    expect(next).not.toMatch(/may pay|pays from it/);
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
