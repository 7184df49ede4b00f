import { describe, expect, it } from 'vitest';
import { breakerStopsLine, stillLandingLine } from '../../../../../server/cli/commands/agent-commands.js';

/** The line `coffer kill` prints of x402 payments signed before the stop (server/cli/commands/agent-commands.ts). */
describe('what a stop cannot take back, in words', () => {
  it('says the payments were handed out for the agent, not that sellers hold them (helper 190)', () => {
    const line = stillLandingLine({ payments: 2, amount: '0.02', until: null, agents: ['b1'] }, 'it');
    expect(line).toBe(
      'Signed before the stop: 2 x402 payments (0.02 USDC) handed out, which a seller holding them may still settle, within about a minute (on Solana); unsettled, each lapses and its budget comes back.\n',
    );
    expect(line).not.toContain('handed to sellers');
  });

  it('a stop of all names whose they are, five at most', () => {
    expect(stillLandingLine({ payments: 18, amount: '0.18', until: null, agents: ['b1'] }, 'they')).toContain(
      'Signed before the stop, for b1: 18 x402 payments (0.18 USDC) handed out, which',
    );
    const many = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'];
    expect(stillLandingLine({ payments: 7, amount: '0.07', until: null, agents: many }, 'they')).toContain(
      'Signed before the stop, for a1, a2, a3, a4, a5 and 2 more: 7 x402 payments',
    );
    expect(stillLandingLine({ payments: 0, amount: '0.00', until: null, agents: [] }, 'they')).toBe('');
  });
});

describe('a resume of all, in words', () => {
  it('names the agents their breaker had stopped, and why (helper 190: "Resumed 4 agents" alone)', () => {
    expect(
      breakerStopsLine([
        { agentId: 'm1', reason: 'its breaker tripped: 3 refused payments within 10 minutes' },
        { agentId: 'b1', reason: 'its breaker tripped: 10 % of a budget spent within 15 minutes' },
      ]),
    ).toBe(
      'Among them, stopped by their breaker: m1 (3 refused payments within 10 minutes); b1 (10 % of a budget spent within 15 minutes).\n',
    );
    expect(breakerStopsLine([])).toBe('');
  });
});
