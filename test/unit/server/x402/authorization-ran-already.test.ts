import { describe, expect, it } from 'vitest';
import type { PaymentPayload } from '@x402/core/types';
import { getAddress, type Hash } from 'viem';
import { carriedAuthorization, createRanAlready } from '../../../../server/x402/authorization-ran-already.js';
import type { CarriedAuthorization } from '../../../../server/chain/evm/transfer-lookup.js';

const SELLER = getAddress('0x00000000000000000000000000000000000000aa');
const PAYER = getAddress('0x00000000000000000000000000000000000000bb');
const NONCE = `0x${'ab'.repeat(32)}` as Hash;
const LANDED = `0x${'cd'.repeat(32)}` as Hash;

/** An x402 v2 payload on Base as the official EVM client writes it. */
const paying = (fields: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  ({
    x402Version: 2,
    payload: {
      signature: '0x1234',
      authorization: { from: PAYER, to: SELLER, value: '10000', validAfter: '0', validBefore: '2000', nonce: NONCE, ...fields },
      ...extra,
    },
  }) as unknown as PaymentPayload;

/** The chain as the paywall's lookup answers it: where each nonce paid, and what it was asked. */
function chain(paid: Hash | null) {
  const asked: { authorization: CarriedAuthorization; earliest: bigint }[] = [];
  return {
    asked,
    paidByAuthorization: async (authorization: CarriedAuthorization, earliest: bigint) => (asked.push({ authorization, earliest }), paid),
  };
}

const route = { recipient: SELLER, amount: 10_000n, maxTimeoutSeconds: 300, now: 1_000_000 };

describe('a Base payment whose authorization already ran', () => {
  it('is found where the chain shows it paid, looked for from its end less the offer’s timeout and 900 s', async () => {
    const node = chain(LANDED);
    expect(await createRanAlready(node).transactionOf(paying(), route)).toBe(LANDED);
    expect(node.asked).toEqual([
      {
        authorization: { from: PAYER, to: SELLER, value: 10_000n, validAfter: 0n, validBefore: 2000n, nonce: NONCE },
        earliest: 2000n - 300n - 900n,
      },
    ]);
  });

  it('is never looked for where its authorization names another recipient or sum, or is no EIP-3009 one', async () => {
    const node = chain(LANDED);
    const ranAlready = createRanAlready(node);
    for (const payload of [
      paying({ to: PAYER }),
      paying({ value: '9999' }),
      paying({ value: '1e4' }),
      paying({ nonce: '0x12' }),
      paying({}, { permit2Authorization: {} }),
      paying({}, { signature: undefined }),
      { x402Version: 2, payload: { transaction: 'base64' } } as unknown as PaymentPayload,
    ]) {
      expect(await ranAlready.transactionOf(payload, route)).toBeNull();
    }
    expect(node.asked).toEqual([]);
  });

  it('that the chain does not show paying so is looked for again a minute later, not before', async () => {
    const node = chain(null);
    const ranAlready = createRanAlready(node);
    expect(await ranAlready.transactionOf(paying(), route)).toBeNull();
    expect(await ranAlready.transactionOf(paying(), { ...route, now: route.now + 59_000 })).toBeNull();
    expect(node.asked).toHaveLength(1);
    expect(await ranAlready.transactionOf(paying(), { ...route, now: route.now + 61_000 })).toBeNull();
    expect(node.asked).toHaveLength(2);
    // Another authorization is its own question.
    expect(await ranAlready.transactionOf(paying({ nonce: `0x${'ef'.repeat(32)}` }), route)).toBeNull();
    expect(node.asked).toHaveLength(3);
  });

  it('reads a payload’s authorization in one spelling: checksummed addresses, a lower-case nonce', () => {
    expect(carriedAuthorization(paying({ from: PAYER.toLowerCase(), nonce: NONCE.toUpperCase().replace('0X', '0x') }))).toMatchObject({
      from: PAYER,
      nonce: NONCE,
    });
  });
});
