import { describe, expect, it } from 'vitest';
import {
  archivedRecipientRefusal,
  balanceRefusal,
  belowNoncesPriceRefusal,
  buysNoCallRefusal,
  noncePaidRefusal,
  priceCapRefusal,
  sameX402Refusal,
} from '../../../../../server/core/payments/refusals.js';
import { archivedRefusal, stoppedRefusal } from '../../../../../server/core/agent-lookup.js';
import { refuse } from '../../../../../server/wire/errors.js';
import type { AgentRecord, PaymentRecord, ServiceRecord } from '../../../../../server/core/ports/store.js';
import { paymentRow } from '../../../../fixtures/transfer-rows.js';

const agent: AgentRecord = {
  owner: 'o',
  agentId: 'alpha',
  walletAddress: 'w',
  displayName: 'alpha',
  status: 'active',
  createdAt: 0,
  statusReason: null,
  statusChangedAt: null,
  archivedAt: null,
};
const service = (pricePerCall: string | null) => ({ id: 'svc', pricePerCall }) as ServiceRecord;
const capped = (listed: bigint | null, amount: bigint) => ({ service: service('0.01'), recipient: 'w', listed, amount });
const earlier: PaymentRecord = paymentRow({ id: 'pay_1', owner: 'o', agentId: 'alpha', amount: 1n, createdAt: 0 });

/** A Coffer paywall's nonce naming 0.01 USDC (10000 micro), as its issuer writes it (server/x402/paywall/nonces.ts). */
const COFFER_NONCE = 'mi0fkj1c.mi0fqhnc.10000.AbCdEfGh.AbCdEfGhIjKl.AbCdEfGhIjKlMnOpQrStUv';

describe('the decisions on a payment answer a refusal as a value', () => {
  it('each allows what it should, with null', () => {
    expect(priceCapRefusal(capped(null, 10n))).toBeNull();
    expect(priceCapRefusal(capped(10n, 10n))).toBeNull();
    expect(buysNoCallRefusal(service(null), 1n)).toBeNull();
    expect(buysNoCallRefusal(service('0.01'), 10_000n)).toBeNull();
    expect(belowNoncesPriceRefusal(undefined, 1n)).toBeNull();
    expect(belowNoncesPriceRefusal(COFFER_NONCE, 10_000n)).toBeNull();
    expect(belowNoncesPriceRefusal(COFFER_NONCE, 10_001n)).toBeNull();
    // Another seller's nonce names no price Coffer can read.
    expect(belowNoncesPriceRefusal('seller-terms', 1n)).toBeNull();
    expect(archivedRecipientRefusal('w', null)).toBeNull();
    expect(balanceRefusal(10n, 10n, 'sol')).toBeNull();
    expect(noncePaidRefusal(null)).toBeNull();
    expect(sameX402Refusal(null)).toBeNull();
    expect(stoppedRefusal(agent)).toBeNull();
    expect(archivedRefusal(agent)).toBeNull();
  });

  it('each refuses with its stable code and says why', () => {
    expect(priceCapRefusal(capped(10n, 11n))).toMatchObject({ code: 'price_above_registry', message: expect.stringContaining('"svc"') });
    // Several services paid to one address, none of them this one: the cap is theirs, said so.
    expect(priceCapRefusal({ ...capped(10n, 11n), service: null })?.message).toMatch(/lists for the services paid to w$/);
    expect(buysNoCallRefusal(service('0.01'), 9_999n)).toMatchObject({ code: 'price_below_registry' });
    expect(belowNoncesPriceRefusal(COFFER_NONCE, 5_000n)).toMatchObject({
      code: 'amount_below_terms',
      message: expect.stringMatching(/^0\.005 USDC is less than the 0\.01 USDC .*nothing was paid$/),
    });
    expect(archivedRecipientRefusal('w', { ...agent, archivedAt: 1 })).toMatchObject({ code: 'recipient_archived' });
    // Which wallet: the one on the rail paid (a Base payment is judged by the Base account alone).
    expect(balanceRefusal(-5n, 10n, 'base')).toMatchObject({
      code: 'insufficient_funds',
      message: "the agent's wallet holds 0.00 USDC available on Base, less than 0.00001",
    });
    expect(balanceRefusal(3n, 10n, 'sol')?.message).toContain('0.000003 USDC available on Solana');
    expect(noncePaidRefusal(earlier)).toMatchObject({ code: 'nonce_already_paid', message: expect.stringContaining('pay_1') });
    // One held for the owner's yes is not called paid: nothing moved, and it is the request they are asked.
    const held = noncePaidRefusal({ ...earlier, status: 'held' })!.message;
    expect(held).toMatch(/^this nonce's payment \(pay_1\) waits for the owner's yes: nothing is paid yet/);
    expect(noncePaidRefusal({ ...earlier, status: 'held', resource: 'https://api.example/quote' })!.message).toMatch(
      /^this nonce's payment \(pay_1, for https:\/\/api\.example\/quote\) waits for the owner's yes: .*ask with the approvalId its request was answered with/,
    );
    expect(held).not.toMatch(/already paid/);
    // An x402 payment's URL is said: another service paid at the same address may have used the memo.
    expect(noncePaidRefusal({ ...earlier, resource: 'https://api.example/weather' })!.message).toBe(
      'this nonce was already paid (pay_1, for https://api.example/weather); a paid API accepts it once',
    );
    expect(sameX402Refusal(earlier)).toMatchObject({ code: 'chain_unavailable', retryAfterSeconds: 1 });
    expect(stoppedRefusal({ ...agent, status: 'suspended' })).toMatchObject({
      code: 'agent_suspended',
      message: 'agent "alpha" is stopped: its payments are refused until the owner resumes it',
    });
    // Archived, stopped for good: no resume is promised (helper 175: it said "until the owner resumes it").
    expect(stoppedRefusal({ ...agent, status: 'suspended', archivedAt: 1 })).toMatchObject({
      code: 'agent_suspended',
      message: 'agent "alpha" is archived: it was stopped for good, and pays nothing',
    });
    expect(archivedRefusal({ ...agent, archivedAt: 1 })).toMatchObject({ code: 'agent_archived' });
  });

  it('refuse throws the first refusal of a chain and nothing when all allow', () => {
    expect(() => refuse(stoppedRefusal(agent) ?? balanceRefusal(1n, 2n, 'sol') ?? priceCapRefusal(capped(1n, 2n)))).toThrow(
      expect.objectContaining({ code: 'insufficient_funds' }),
    );
    expect(() => refuse(stoppedRefusal(agent) ?? balanceRefusal(2n, 2n, 'sol'))).not.toThrow();
  });
});
