import { describe, expect, it } from 'vitest';
import { nextStep } from '../../../../server/cli/next-step.js';

describe("the line after an agent's refused payment", () => {
  it('names the command that asks the owner, for the commands an agent pays with', () => {
    expect(nextStep('pay', 'agent_suspended')).toMatch(/^coffer resume asks the owner/);
    // Status shows a why only for a breaker's stop (a person's has none to show): no more is promised.
    expect(nextStep('pay', 'agent_suspended')).toMatch(/\(where its breaker stopped it, coffer status says why\)$/);
    expect(nextStep('fetch', 'daily_budget_exceeded')).toMatch(/coffer policy --daily AMOUNT asks the owner/);
    // Short of funds: the owner's command that funds the wallet.
    expect(nextStep('fetch', 'insufficient_funds')).toMatch(/^the owner funds this agent's wallet: coffer allocate AGENT AMOUNT/);
    // Named where the terminal knows which agent it is.
    expect(nextStep('pay', 'insufficient_funds', 'researcher')).toBe(
      "the owner funds this agent's wallet: coffer allocate researcher AMOUNT (with --rail base for its wallet on Base)",
    );
    // The rail the refused payment was on known: the one command, on that rail.
    expect(nextStep('pay', 'insufficient_funds', 'researcher', 'sol')).toBe(
      "the owner funds this agent's wallet: coffer allocate researcher AMOUNT",
    );
    expect(nextStep('pay', 'insufficient_funds', 'researcher', 'base')).toBe(
      "the owner funds this agent's wallet on Base: coffer allocate researcher AMOUNT --rail base",
    );
    // A held request that ended with the seller's terms: ask again.
    expect(nextStep('fetch', 'approval_expired')).toMatch(/^ask again: the seller's terms are fresh, and the owner is asked again/);
    expect(nextStep('pay', 'nonce_expired')).toMatch(/^ask again/);
    // Paid other than a registry service's price: where the price is read.
    expect(nextStep('pay', 'price_above_registry')).toBe(
      'coffer services SERVICE shows the price the registry lists; a registry service is paid that, no more',
    );
  });

  it("adds nothing to the owner's commands, to another refusal, or where no code came back", () => {
    expect(nextStep('allocate', 'agent_suspended')).toBeNull();
    expect(nextStep('pay', 'chain_unavailable')).toBeNull();
    expect(nextStep('pay', null)).toBeNull();
    expect(nextStep(undefined, 'agent_suspended')).toBeNull();
  });
});
