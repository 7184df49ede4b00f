import { describe, expect, it } from 'vitest';
import { onePaymentRequired, paymentRequiredBody, readOffer } from '../../../../server/x402/payment-required.js';

const SOLANA_RECIPIENT = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const BASE_RECIPIENT = '0x558d9e5a2b8e4b7f1f9c7d0b0e6c4b0a3e2f1d9c';

const terms = {
  amount: 10_000n,
  recipient: SOLANA_RECIPIENT,
  network: 'sim',
  usdcMint: 'mint',
  nonce: 'n-1',
  resource: '/weather',
  description: 'weather',
  maxTimeoutSeconds: 60,
  service: 'demo-weather',
};

/** Coffer's terms as a paying client reads them from a 402's body. */
const instructionsOf = (body: unknown) => {
  const offer = readOffer(new Headers(), body);
  if (offer?.kind !== 'coffer') throw new Error(`not Coffer's terms: ${JSON.stringify(offer)}`);
  return offer.instructions;
};

describe("Coffer's 402, as a paying client reads it", () => {
  it('reads where the same terms are paid on Base, by its recipient and chain id', () => {
    const body = paymentRequiredBody({ ...terms, base: { recipient: BASE_RECIPIENT, network: 'sim', chainId: 790526 } });
    expect(instructionsOf(body)).toEqual({
      amount: '0.01',
      recipient: SOLANA_RECIPIENT,
      nonce: 'n-1',
      network: 'sim',
      service: 'demo-weather',
      base: { recipient: BASE_RECIPIENT, chainId: 790526 },
    });
  });

  it('an offer on Solana alone has no Base; one on Base Coffer cannot read leaves the Solana terms standing', () => {
    expect(instructionsOf(paymentRequiredBody(terms)).base).toBeNull();
    const body = paymentRequiredBody(terms);
    for (const base of [
      { recipient: SOLANA_RECIPIENT, chainId: 1 },
      { recipient: BASE_RECIPIENT, chainId: -1 },
      { recipient: '0x558D9E5A2B8E4B7F1f9C7D0b0E6c4B0a3E2f1D9c', chainId: 1 },
      'base',
    ]) {
      const read = instructionsOf({ ...body, base });
      expect(read.base).toBeNull();
      expect(read.recipient).toBe(SOLANA_RECIPIENT);
    }
  });
});

describe('a PAYMENT-REQUIRED header sent more than once', () => {
  const terms = Buffer.from(JSON.stringify({ x402Version: 2, accepts: [], extensions: { 'sign-in-with-x': {} } })).toString('base64');
  it('is its terms where the copies are the same (joined by commas, as fetch joins them), none where they differ', () => {
    expect(onePaymentRequired(terms)).toBe(terms);
    expect(onePaymentRequired(`${terms}, ${terms}, `)).toBe(terms);
    expect(onePaymentRequired(`${terms}, ${Buffer.from('{}').toString('base64')}`)).toBeNull();
    expect(onePaymentRequired(' , ')).toBeNull();
    // Its sign-in is read from the one copy (it was missed: the joined text is no base64 JSON).
    expect(readOffer(new Headers({ 'payment-required': `${terms}, ${terms}` }), {})).toMatchObject({ kind: 'x402', signIn: true });
  });
});
