import { describe, expect, it } from 'vitest';
import { heldPaymentWords, heldReason } from '../../../../server/wire/held-words.js';
import { heldApproval } from '../../../fixtures/held-approval.js';

/** A payment request as the engine files it (payments/held.ts), with `request` as given. */
const held = (request: Record<string, unknown>) => heldApproval(request);

describe('what a held payment is, as the agent waiting on it is told', () => {
  const reason = { code: 'ask_above', message: "0.01 USDC is above 0.005 USDC: above that, the policy waits for the owner's yes" };

  it('says the amount with its rail, and the service, on either rail', () => {
    expect(heldPaymentWords(held({ service: 'demo-weather', amount: '0.01', rail: 'base', reason }))).toBe(
      '0.01 USDC on Base for demo-weather',
    );
    expect(heldPaymentWords(held({ service: 'api.example.com', amount: '2.50', rail: 'sol', reason }))).toBe(
      '2.50 USDC on Solana for api.example.com',
    );
    expect(heldPaymentWords(held({ amount: '0.01', rail: 'sol' }))).toBe('0.01 USDC on Solana');
  });

  it('says nothing rather than a wrong or missing rail (an older request, another kind)', () => {
    expect(heldPaymentWords(held({ service: 'x', amount: '0.01' }))).toBeNull();
    expect(heldPaymentWords(held({ service: 'x', amount: '0.01', rail: 'eth' }))).toBeNull();
    expect(heldPaymentWords(held({ service: 'x', amount: 1, rail: 'base' }))).toBeNull();
  });

  it("gives the policy's reason, or says the policy asks where none is kept", () => {
    expect(heldReason(held({ reason }))).toBe(reason.message);
    expect(heldReason(held({}))).toBe("the agent's policy asks the owner");
  });
});
