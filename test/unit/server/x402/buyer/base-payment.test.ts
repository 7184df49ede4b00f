import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import {
  baseX402Payments,
  guardedSigner,
  MAX_X402_AUTHORIZATION_SECONDS,
  readBackAuthorization,
} from '../../../../../server/x402/buyer/base-payment.js';
import { toRequirement } from '../../../../../server/x402/buyer/offer-terms.js';
import {
  authorizationNonce,
  x402AuthorizationNonce,
  decodeAuthorization,
  isSignedByPayer,
  TRANSFER_AUTHORIZATION_TYPES,
  type TokenDomain,
} from '../../../../../server/chain/evm/authorization.js';
import type { EvmSigners } from '../../../../../server/chain/evm/signers.js';
import type { X402Offer } from '../../../../../server/core/ports/x402.js';
import { expectCofferError } from '../../../../helpers/expect-error.js';

/**
 * Issue 50, point 1: what Coffer signs for an x402 offer on Base, signed by the official `@x402/evm`
 * client scheme, and the read-back that refuses anything but the offer before it is handed out.
 */
const usdc = getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e');
const domain: TokenDomain = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: usdc };
const payer = privateKeyToAccount(generatePrivateKey());
const seller = getAddress(privateKeyToAccount(generatePrivateKey()).address);
const signers = { evmAccount: async () => payer } as unknown as EvmSigners;
const payments = baseX402Payments({ chain: { chainId: 84532, usdc, domain: async () => domain }, signers });

function offerOf(entry: Record<string, unknown> = {}, version: 1 | 2 = 2): X402Offer {
  const accept = {
    scheme: 'exact',
    network: version === 2 ? 'eip155:84532' : 'base-sepolia',
    ...(version === 2
      ? { amount: '10000' }
      : { maxAmountRequired: '10000', resource: 'https://seller.example/data', description: 'data', mimeType: 'application/json' }),
    asset: usdc,
    payTo: seller,
    maxTimeoutSeconds: 300,
    extra: { name: 'USDC', version: '2' },
    ...entry,
  };
  const source =
    version === 2
      ? { x402Version: 2, resource: { url: 'https://seller.example/data' }, accepts: [accept] }
      : { x402Version: 1, accepts: [accept] };
  return { x402Version: version, requirements: [toRequirement(accept)], source };
}

describe('Base x402 payments', () => {
  it.each([1, 2] as const)('signs v%i exactly the offer: the amount to payTo, in the offer’s time, the nonce kept', async (version) => {
    const offer = offerOf({}, version);
    const signed = await payments.sign(offer, offer.requirements[0]!, payer.address, 'pay_one');
    const authorization = decodeAuthorization(signed.txWire);
    expect(authorization).toMatchObject({ from: payer.address, to: seller, value: 10_000n, domain, relayer: null });
    expect(await isSignedByPayer(authorization)).toBe(true);
    expect(signed.payerSignature).toBe(authorization.nonce);
    expect(signed.lifetimeEnd).toBe(authorization.validBefore);
    const now = BigInt(Math.floor(Date.now() / 1000));
    expect(authorization.validBefore - now).toBeGreaterThanOrEqual(295n);
    expect(authorization.validBefore - now).toBeLessThanOrEqual(300n);
    // The header is the official client's: the seller's own terms, the payload signed.
    const header = JSON.parse(Buffer.from(signed.header.value, 'base64').toString('utf8'));
    expect(signed.header.name).toBe(version === 2 ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT');
    expect(header.payload.authorization.nonce).toBe(authorization.nonce);
    if (version === 2) expect(header.accepted.maxTimeoutSeconds).toBe(300);
  });

  it.each([1, 2] as const)(
    'signs v%i with the nonce of its payment, as /pay does: signed again for the same payment, it can run once at most',
    async (version) => {
      const offer = offerOf({}, version);
      const [first, again, other] = await Promise.all(
        ['pay_same', 'pay_same', 'pay_other'].map((memo) => payments.sign(offer, offer.requirements[0]!, payer.address, memo)),
      );
      // A payment signed again (a held purchase approved again in a Coffer restored from an older
      // file, helper 196) carries the nonce the token already ran: it cannot move money twice.
      const nonces = [first!, again!, other!].map((signed) => decodeAuthorization(signed.txWire).nonce);
      expect(nonces[0]).toBe(x402AuthorizationNonce(seller, 'pay_same'));
      // Never a /pay's nonce, whatever memo a /pay names (helper 199: a memo naming this payment's id).
      expect(nonces[0]).not.toBe(authorizationNonce(seller, 'pay_same'));
      expect(nonces[1]).toBe(nonces[0]);
      expect(nonces[2]).toBe(x402AuthorizationNonce(seller, 'pay_other'));
      for (const signed of [first!, again!, other!]) {
        const authorization = decodeAuthorization(signed.txWire);
        expect(await isSignedByPayer(authorization)).toBe(true);
        // The header carries the same nonce the key signed.
        const header = JSON.parse(Buffer.from(signed.header.value, 'base64').toString('utf8'));
        expect(header.payload.authorization.nonce).toBe(authorization.nonce);
      }
    },
  );

  it('signs for an hour at most, whatever time the seller asks for', async () => {
    const offer = offerOf({ maxTimeoutSeconds: 86_400 });
    const signed = await payments.sign(offer, offer.requirements[0]!, payer.address, 'pay_one');
    const now = BigInt(Math.floor(Date.now() / 1000));
    expect(signed.lifetimeEnd - now).toBeLessThanOrEqual(BigInt(MAX_X402_AUTHORIZATION_SECONDS));
    expect(signed.lifetimeEnd - now).toBeGreaterThan(BigInt(MAX_X402_AUTHORIZATION_SECONDS - 5));
  });

  it.each([
    ['Permit2', { extra: { name: 'USDC', version: '2', assetTransferMethod: 'permit2' } }, /Permit2|permit2/],
    ['another token name', { extra: { name: 'USD Coin', version: '2' } }, /"USD Coin" version 2; this chain's USDC is "USDC" version 2/],
    ['another version', { extra: { name: 'USDC', version: '1' } }, /version 1/],
    ['no token named (no extra)', { extra: {} }, /does not name its token's EIP-712 name and version/],
    [
      'a token named null',
      { extra: { name: null, version: null } },
      /^the x402 offer does not name its token's EIP-712 name and version \(extra\.name, extra\.version\), which an EIP-3009 authorization is signed for; this chain's USDC is "USDC" version 2$/,
    ],
    [
      'a time to pay of 60.5 s',
      { maxTimeoutSeconds: 60.5 },
      /^the x402 offer gives its time to pay \(maxTimeoutSeconds\) in no whole number of seconds$/,
    ],
  ])('refuses %s before anything is signed', async (_what, entry, message) => {
    const offer = offerOf(entry);
    let signed = 0;
    const counting = { evmAccount: async () => ((signed += 1), payer) } as unknown as EvmSigners;
    const paying = baseX402Payments({ chain: { chainId: 84532, usdc, domain: async () => domain }, signers: counting });
    await expectCofferError(paying.sign(offer, offer.requirements[0]!, payer.address, 'pay_one'), 'unsupported_offer', message);
    expect(signed).toBe(0);
  });

  describe('the read-back', () => {
    /** A payload the official client signed for the offer, to tamper with. */
    async function official() {
      const offer = offerOf();
      const required = offer.source as PaymentRequired;
      const { ExactEvmScheme } = await import('@x402/evm/exact/client');
      const client = new x402Client().register('eip155:84532', new ExactEvmScheme(payer)).setSpendControls(false);
      const payload = await new x402HTTPClient(client).createPaymentPayload(required);
      return {
        requirement: offer.requirements[0]!,
        payload: payload.payload as { authorization: Record<string, string>; signature: string },
      };
    }
    const tampered = (payload: { authorization: Record<string, string>; signature: string }, change: Record<string, string>) => ({
      ...payload,
      authorization: { ...payload.authorization, ...change },
    });

    it('passes what the official client signed', async () => {
      const { requirement, payload } = await official();
      expect(readBackAuthorization(payload, requirement, payer.address, domain, 300).nonce).toBe(payload.authorization.nonce);
    });

    it.each([
      ['the payer', { from: seller }, /the payer/],
      ['the recipient', { to: getAddress(privateKeyToAccount(generatePrivateKey()).address) }, /the recipient/],
      ['the amount', { value: '10001' }, /the amount/],
      ['a start in the future', { validAfter: String(Math.floor(Date.now() / 1000) + 600) }, /its start/],
      ['an end past the offer’s time', { validBefore: String(Math.floor(Date.now() / 1000) + 900) }, /its end/],
      ['an end already passed', { validBefore: String(Math.floor(Date.now() / 1000) - 1) }, /its end/],
      ['a short nonce', { nonce: '0x1234' }, /its nonce/],
    ])('refuses %s', async (_what, change, message) => {
      const { requirement, payload } = await official();
      expect(() => readBackAuthorization(tampered(payload, change), requirement, payer.address, domain, 300)).toThrow(message);
    });
  });

  describe('the signer the package is handed', () => {
    const message = {
      from: payer.address,
      to: seller,
      value: 10_000n,
      validAfter: 0n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 200),
      nonce: `0x${'11'.repeat(32)}`,
    };
    const typed = (edit: Record<string, unknown> = {}) => ({
      domain: { ...domain },
      types: TRANSFER_AUTHORIZATION_TYPES as unknown as Record<string, unknown>,
      primaryType: 'TransferWithAuthorization',
      message: { ...message },
      ...edit,
    });

    it('signs the token’s transfer authorization from the payer, with the payment’s nonce, once, and knows what it signed', async () => {
      const nonce = authorizationNonce(seller, 'pay_one');
      const guarded = guardedSigner(payer, domain, { to: seller, value: 10_000n, seconds: 300, nonce });
      const signature = await guarded.signer.signTypedData(typed());
      // Signed with the payment's nonce, not the one the package drew.
      const authorization = { domain, ...message, nonce, signature, relayer: null };
      expect(await isSignedByPayer(authorization)).toBe(true);
      expect(guarded.signedExactly(authorization)).toBe(true);
      expect(await isSignedByPayer({ ...authorization, nonce: message.nonce as `0x${string}` })).toBe(false);
      expect(guarded.signedExactly({ ...authorization, nonce: message.nonce as `0x${string}` })).toBe(false);
      expect(guarded.signedExactly({ ...authorization, value: 10_001n })).toBe(false);
      expect(guarded.signedExactly({ ...authorization, to: getAddress(privateKeyToAccount(generatePrivateKey()).address) })).toBe(false);
      await expect(guarded.signer.signTypedData(typed())).rejects.toThrow(/a second signature/);
    });

    it.each([
      ['another token', { domain: { ...domain, verifyingContract: seller } }, /another EIP-712 domain/],
      ['another chain', { domain: { ...domain, chainId: 8453 } }, /another EIP-712 domain/],
      ['another name', { domain: { ...domain, name: 'USD Coin' } }, /another EIP-712 domain/],
      ['a Permit2 transfer', { primaryType: 'PermitWitnessTransferFrom' }, /a PermitWitnessTransferFrom to sign/],
      ['another payer', { message: { ...message, from: seller } }, /another payer/],
      ['another recipient', { message: { ...message, to: payer.address } }, /another recipient/],
      ['another amount', { message: { ...message, value: 10_001n } }, /another amount/],
      ['an end past the offer’s time', { message: { ...message, validBefore: message.validBefore + 600n } }, /an end past/],
      ['a start in the future', { message: { ...message, validAfter: message.validBefore } }, /a start in the future/],
    ])('refuses to sign %s', async (_what, edit, why) => {
      const guarded = guardedSigner(payer, domain, {
        to: seller,
        value: 10_000n,
        seconds: 300,
        nonce: authorizationNonce(seller, 'pay_one'),
      });
      await expect(guarded.signer.signTypedData(typed(edit))).rejects.toThrow(why);
    });
  });
});
