import { shellCommand } from '../../../../../server/boot/cli-invocation.js';
import { describe, expect, it } from 'vitest';
import { lateReceiptWords, pickUpMismatch, pickedUpPayment } from '../../../../../server/cli/commands/pay-pick-up.js';
import { CofferApiError } from '../../../../../server/client/client-error.js';
import type { Approval } from '../../../../../server/wire/answers/approvals.js';

const RECIPIENT = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A held `/pay` request as GET /v1/approvals/:id answers it. */
const held = (request: Record<string, unknown>, more: Partial<Approval> = {}): Approval => ({
  approvalId: 'apr_1',
  status: 'pending',
  kind: 'payment',
  agentId: 'alpha',
  targetAgentId: 'alpha',
  request: { service: 'forecast', amount: '0.50', recipient: RECIPIENT, rail: 'base', ...request },
  paymentId: 'pay_1',
  createdAt: '2026-11-28T10:00:00.000Z',
  expiresAt: '2026-11-29T10:00:00.000Z',
  decidedAt: null,
  ...more,
});

describe('what a `coffer pay --approval` picks up', () => {
  it('a held /pay request, by its id alone or with the terms the command names: the sum in micro-USDC, an EVM address in any case', () => {
    expect(pickUpMismatch(held({}), {})).toBeNull();
    expect(pickUpMismatch(held({}), { service: 'forecast', amount: '0.5', recipient: RECIPIENT.toLowerCase(), rail: 'base' })).toBeNull();
    expect(pickUpMismatch(held({ nonce: 'n-1' }), { nonce: 'n-1' })).toBeNull();
  });

  it('refuses another payment, naming what the request pays', () => {
    const words = 'request apr_1 is not this payment: it pays 0.50 USDC for forecast to 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed on Base';
    expect(pickUpMismatch(held({}), { amount: '0.51' })).toBe(words);
    expect(pickUpMismatch(held({}), { service: 'weather' })).toBe(words);
    expect(pickUpMismatch(held({}), { rail: 'sol' })).toBe(words);
    expect(pickUpMismatch(held({}), { recipient: '0x0000000000000000000000000000000000000001' })).toBe(words);
    expect(pickUpMismatch(held({ nonce: 'n-1' }), { nonce: 'n-2' })).toBe(`${words} (nonce n-1)`);
    expect(pickUpMismatch(held({}), { nonce: 'n-2' })).toBe(words);
    // A Solana address's case is part of it.
    const sol = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
    expect(pickUpMismatch(held({ recipient: sol, rail: 'sol' }), { recipient: sol })).toBeNull();
    expect(pickUpMismatch(held({ recipient: sol, rail: 'sol' }), { recipient: sol.toLowerCase() })).toMatch(/is not this payment/);
  });

  it('refuses what is no coffer pay: an x402 purchase (said how to pick it up), an image, another kind of request', () => {
    expect(pickUpMismatch(held({ resource: 'https://api.example.test/forecast' }), {})).toBe(
      `request apr_1 is an x402 purchase of https://api.example.test/forecast: ${shellCommand([])} fetch https://api.example.test/forecast --approval apr_1 picks it up`,
    );
    // Said as a shell runs it: a query's & quoted, the agent's config named.
    expect(pickUpMismatch(held({ resource: 'https://api.example.test/forecast?city=Oslo&days=2' }), {}, '/tmp/bot.json')).toBe(
      `request apr_1 is an x402 purchase of https://api.example.test/forecast?city=Oslo&days=2: ${shellCommand([])} fetch 'https://api.example.test/forecast?city=Oslo&days=2' --approval apr_1 --config /tmp/bot.json picks it up`,
    );
    expect(pickUpMismatch(held({ purchase: { kind: 'image' } }), {})).toMatch(/image generation/);
    expect(pickUpMismatch(held({}, { kind: 'policy' }), {})).toBe('request apr_1 asks for a policy change, not a payment');
  });

  it('refuses a mismatch before any wait; answers the payment its yes made; a denied one with its code', async () => {
    const reads: string[] = [];
    /** The agent's latest payments as they stand now (the spend history). */
    let history: Record<string, unknown>[] = [];
    const api = (answer: Approval) => ({
      approval: async (id: string) => {
        reads.push(id);
        return answer;
      },
      spendHistory: async (agentId: string) => {
        expect(agentId).toBe('alpha');
        return { payments: history } as never;
      },
    });
    let told = 0;
    const onHeld = () => (told += 1);
    const mismatch = pickedUpPayment(api(held({})), 'apr_1', { amount: '1' }, onHeld);
    await expect(mismatch).rejects.toMatchObject({ code: 'approval_mismatch', status: 409 });
    expect(told).toBe(0);
    const result = { paymentId: 'pay_1', amount: '0.50', xPaymentHeader: 'receipt' };
    expect(await pickedUpPayment(api(held({}, { status: 'approved', result })), 'apr_1', {}, onHeld)).toEqual(result);
    expect(told).toBe(0);
    // A yes that answered no receipt (an x402 purchase held before requests said what they answer): refused, never "Paid".
    const x402Yes = { paymentId: 'pay_1', protocol: 'x402', status: 'approved', next: 'ask the seller again' };
    await expect(pickedUpPayment(api(held({}, { status: 'approved', result: x402Yes })), 'apr_1', {}, onHeld)).rejects.toMatchObject({
      code: 'approval_mismatch',
      message:
        'request apr_1 made no coffer pay payment: its yes answered no receipt (an x402 purchase is bought by coffer fetch URL --approval apr_1)',
    });
    const denied = pickedUpPayment(api(held({}, { status: 'denied' })), 'apr_1', {}, onHeld);
    await expect(denied).rejects.toBeInstanceOf(CofferApiError);
    await expect(denied).rejects.toMatchObject({ code: 'payment_denied' });
    expect(reads).toEqual(['apr_1', 'apr_1', 'apr_1', 'apr_1']);
    // The payment read again as it stands now: still on its way, said so; failed since (it never
    // landed), refused with why: nothing was paid, and its receipt would buy nothing.
    const paid = held({}, { status: 'approved', result: { ...result, status: 'confirmed', txSignature: null } });
    history = [{ id: 'pay_1', status: 'pending', txSignature: 'sig-1' }];
    expect(await pickedUpPayment(api(paid), 'apr_1', {}, onHeld)).toMatchObject({ status: 'pending', txSignature: 'sig-1' });
    history = [{ id: 'pay_1', status: 'failed', errorCode: 'dropped', txSignature: 'sig-1' }];
    await expect(pickedUpPayment(api(paid), 'apr_1', {}, onHeld)).rejects.toMatchObject({
      code: 'dropped',
      message: "request apr_1's payment pay_1 failed after the owner's yes (it never landed on chain): nothing was paid",
    });
  });
});

describe('a receipt picked up late', () => {
  const paidAt = '2026-11-28T10:00:00.000Z';
  it('is said to be past what a paywall takes once 300 s have passed since it was paid; nothing said before', () => {
    expect(lateReceiptWords(paidAt, Date.parse(paidAt) + 299_000)).toBeNull();
    expect(lateReceiptWords(paidAt, Date.parse(paidAt) + 300_000)).toBeNull();
    expect(lateReceiptWords(paidAt, Date.parse(paidAt) + 420_000)).toMatch(
      /^It was paid at .+, 7 min ago: a Coffer paywall takes a receipt for 300 s after it lands by default \(or until its nonce's terms end\), and may refuse this one \(receipt_expired\)\. Nothing more was paid\.$/,
    );
  });
});
