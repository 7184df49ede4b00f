import { describe, expect, it } from 'vitest';
import { nextStep } from '../../../../server/cli/next-step.js';
import { shellCommand } from '../../../../server/boot/cli-invocation.js';

/** `coffer` as this shell runs it: the word where the one on PATH is this package, else node and the script. */
const COFFER = shellCommand([]);

describe("the line after an agent's refused payment", () => {
  it('after the refusal that tripped its breaker, names the resume: a higher max alone would not let it pay', () => {
    expect(nextStep('pay', 'max_per_payment_exceeded', { stopped: true })).toBe(nextStep('pay', 'agent_suspended'));
    expect(nextStep('fetch', 'daily_budget_exceeded', { stopped: true })).toBe(nextStep('fetch', 'agent_suspended'));
    expect(nextStep('pay', 'max_per_payment_exceeded', { stopped: false })).toBe(nextStep('pay', 'max_per_payment_exceeded'));
  });

  it('names the command that asks the owner, for the commands an agent pays with', () => {
    expect(nextStep('pay', 'agent_suspended')).toBe(
      `${COFFER} resume asks the owner to resume this agent (where its breaker stopped it, ${COFFER} status says why)`,
    );
    expect(nextStep('fetch', 'daily_budget_exceeded')).toBe(
      `it frees as payments pass 24 hours old; ${COFFER} policy --daily AMOUNT asks the owner for a larger daily budget`,
    );
    expect(nextStep('pay', 'budget_exceeded')).toBe(
      `${COFFER} policy shows each budget, what is spent and left, and when a calendar one starts afresh; ${COFFER} policy --budget 'AMOUNT/WINDOW[:SCOPE]' (--count N/WINDOW[:SCOPE] for a count of payments; SCOPE as the budget refused names it), naming every budget to keep, asks the owner for more`,
    );
    expect(nextStep('pay', 'service_not_allowed')).toBe(
      `${COFFER} policy --allow SERVICE asks the owner to allow it (a registry service's id, else the address it was paid to; with an --allow for every service to keep)`,
    );
    // Short of funds: the owner's command that funds the wallet.
    expect(nextStep('fetch', 'insufficient_funds')).toBe(
      `the owner funds this agent's wallet: ${COFFER} allocate AGENT AMOUNT (with --rail base for its wallet on Base)`,
    );
    // Named where the terminal knows which agent it is.
    expect(nextStep('pay', 'insufficient_funds', { agentId: 'researcher' })).toBe(
      `the owner funds this agent's wallet: ${COFFER} allocate researcher AMOUNT (with --rail base for its wallet on Base)`,
    );
    // The rail the refused payment was on known: the one command, on that rail.
    expect(nextStep('pay', 'insufficient_funds', { agentId: 'researcher', rail: 'sol' })).toBe(
      `the owner funds this agent's wallet: ${COFFER} allocate researcher AMOUNT`,
    );
    expect(nextStep('pay', 'insufficient_funds', { agentId: 'researcher', rail: 'base' })).toBe(
      `the owner funds this agent's wallet on Base: ${COFFER} allocate researcher AMOUNT --rail base`,
    );
    // A held request withdrawn while the command waited: a kill, most likely; the status says.
    expect(nextStep('fetch', 'approval_withdrawn')).toBe(
      `${COFFER} status says whether this agent was stopped (then ${COFFER} resume asks the owner to resume it); else ask for the payment anew, without --approval`,
    );
    // A held request that ended with the seller's terms: ask again.
    expect(nextStep('fetch', 'approval_expired')).toMatch(/^ask again: the seller's terms are fresh, and the owner is asked again/);
    expect(nextStep('pay', 'nonce_expired')).toMatch(/^ask again/);
    // Within the cooldown: its words say when; a shorter one is the owner's to give.
    expect(nextStep('fetch', 'cooldown_active')).toBe(
      `ask again once it passes; ${COFFER} policy --cooldown SECONDS asks the owner for a shorter cooldown`,
    );
    // Ended: a later end, or none, is the owner's to give.
    expect(nextStep('pay', 'policy_expired')).toBe(`${COFFER} policy --expires DAY (or --expires never) asks the owner for a later end`);
    // Paid other than a registry service's price: where the price is read.
    expect(nextStep('pay', 'price_above_registry')).toBe(
      `${COFFER} services SERVICE shows the price the registry lists; a registry service is paid that, no more`,
    );
  });

  it("names the agent's config in the agent's commands as the failed call named it, never in the owner's", () => {
    const configPath = '/tmp/agents/solo one.json';
    // Without it, `coffer policy --max` acts as the linked agent, another one, or none (a usage error).
    expect(nextStep('fetch', 'max_per_payment_exceeded', { configPath })).toBe(
      `${COFFER} policy --max AMOUNT --config '/tmp/agents/solo one.json' asks the owner for a higher max per payment`,
    );
    expect(nextStep('pay', 'agent_suspended', { configPath })).toBe(
      `${COFFER} resume --config '/tmp/agents/solo one.json' asks the owner to resume this agent (where its breaker stopped it, ${COFFER} status --config '/tmp/agents/solo one.json' says why)`,
    );
    // The owner's command acts on the agent it names, from the owner's connection.
    expect(nextStep('pay', 'insufficient_funds', { agentId: 'solo', rail: 'base', configPath })).toBe(
      `the owner funds this agent's wallet on Base: ${COFFER} allocate solo AMOUNT --rail base`,
    );
  });

  it("adds nothing to the owner's commands, to another refusal, or where no code came back", () => {
    expect(nextStep('allocate', 'agent_suspended')).toBeNull();
    expect(nextStep('pay', 'chain_unavailable')).toBeNull();
    expect(nextStep('pay', null)).toBeNull();
    expect(nextStep(undefined, 'agent_suspended')).toBeNull();
  });
});
