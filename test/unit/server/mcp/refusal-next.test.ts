import { describe, expect, it } from 'vitest';
import { NEXT_TOOL_CODES, nextAfterEnded, nextTool } from '../../../../server/mcp/refusal-next.js';
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

  it('short of funds, names the one call the refusal says opens the other rail, then the allocation (helper 174)', () => {
    const allocate = nextTool('insufficient_funds')!;
    expect(allocate).toMatch(/^allocate_budget asks the owner for USDC into this wallet/);
    // Asked on one rail: "the offer is payable on Solana too, with no rail asked".
    const asked = payableElsewhere('sol', 'base', false);
    expect(asked).toContain('with no rail asked');
    expect(nextTool('insufficient_funds', false, `short; ${asked}`)).toBe(
      `fetch_paid again without rail pays it on the rail it names; or ${allocate}`,
    );
    // Held to the rail of the owner's yes: "the owner's yes is for Base: … a purchase asked anew, without the approvalId".
    const byYes = payableElsewhere('sol', 'base', true);
    expect(byYes).toContain("the owner's yes is for Base");
    expect(nextTool('insufficient_funds', false, `short; ${byYes}`)).toBe(
      `fetch_paid again without approvalId asks anew on the rail it names; or ${allocate}`,
    );
    // Coffer's own 402 on Solana, payable on Base too (payingFetch's words).
    expect(
      nextTool(
        'insufficient_funds',
        false,
        'short; the 402 can be paid on Base too: ask again with the rail "base" to pay it from the agent\'s Base wallet',
      ),
    ).toBe(`fetch_paid again with rail "base" pays it from this agent's wallet on Base; or ${allocate}`);
    // Nothing said of the other rail (both short): the allocation alone, no phrase that is not in the refusal.
    expect(allocate).not.toMatch(/with no rail asked|yes is for|may pay|pays from it/);
  });

  it('short of funds, the allocation names the rail the refusal was short on, as the call is typed (helper 189)', () => {
    const onBase = nextTool('insufficient_funds', false, "the agent's wallet holds 0.00 USDC available on Base, less than 0.01")!;
    expect(onBase).toBe('allocate_budget with rail "base" asks the owner for USDC into this wallet\'s account on Base');
    const onSolana = nextTool('insufficient_funds', false, "the agent's wallet holds 0.00 USDC available on Solana, less than 0.01")!;
    expect(onSolana).toBe('allocate_budget without rail asks the owner for USDC into this wallet on Solana');
    expect(onSolana).not.toContain('"base"');
  });

  it('names pay on Base where /pay says the service is paid there and the wallet holds it, and Solana where a 402 is payable there (helper 189)', () => {
    const short = "the agent's wallet holds 0.00 USDC available on Solana, less than 0.01";
    expect(
      nextTool(
        'insufficient_funds',
        false,
        `${short}; the service is paid on Base too, where this wallet holds 0.50 USDC free: asked with rail "base", it is paid there`,
      ),
    ).toBe(
      'pay again with rail "base" pays it from this agent\'s wallet on Base; or allocate_budget without rail asks the owner for USDC into this wallet on Solana',
    );
    const shortOnBase = "the agent's wallet holds 0.00 USDC available on Base, less than 0.01";
    expect(
      nextTool(
        'insufficient_funds',
        false,
        `${shortOnBase}; the 402 can be paid on Solana too: ask again with the rail "sol" to pay it from the agent's Solana wallet`,
      ),
    ).toBe(
      'fetch_paid again with rail "sol" pays it from this agent\'s wallet on Solana; or allocate_budget with rail "base" asks the owner for USDC into this wallet\'s account on Base',
    );
  });

  it('a request ended without a yes is followed with the tool that asked it, not fetch_paid (helper 191)', () => {
    expect(nextAfterEnded('allocate', 'withdrawn')).toBe(
      'check_balance says whether this agent was stopped (status suspended: resume_agent asks the owner to resume it); else allocate_budget asks the owner anew',
    );
    expect(nextAfterEnded('policy', 'expired')).toBe('the owner did not answer in time: set_policy asks anew');
    expect(nextAfterEnded('resume', 'withdrawn')).toMatch(/^check_balance says whether this agent is active again/);
    for (const kind of ['allocate', 'policy', 'resume', 'deploy']) {
      for (const status of ['withdrawn', 'expired']) expect(nextAfterEnded(kind, status)).not.toMatch(/fetch_paid|seller/);
    }
    // A held payment's, as the refusal of the call that waited says it.
    // An expired hold may be a `pay`'s, which has no seller's terms (helper 193).
    expect(nextAfterEnded('payment', 'expired')).toBe(
      'the owner did not answer in time: call the tool again (pay or fetch_paid, as it was asked, without its approvalId); the owner is asked again',
    );
    expect(nextAfterEnded('payment', 'withdrawn')).toContain('pay or fetch_paid, as it was asked, without its approvalId');
    expect(nextAfterEnded('allocate', 'approved')).toBeNull();
  });

  it('offers no resume to an archived agent, stopped for good (helper 178)', () => {
    expect(nextTool('agent_suspended', false, 'agent "a2" is archived: it was stopped for good, and pays nothing')).toBeNull();
    expect(nextTool('agent_suspended', false, 'agent "a2" is stopped: its payments are refused until the owner resumes it')).toBe(
      nextTool('agent_suspended'),
    );
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
