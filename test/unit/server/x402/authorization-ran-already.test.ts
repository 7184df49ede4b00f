import { afterEach, describe, expect, it } from 'vitest';
import type { PaymentPayload } from '@x402/core/types';
import { getAddress, type Hash } from 'viem';
import { carriedAuthorization, paidBefore } from '../../../../server/x402/authorization-ran-already.js';
import { openPaywallStore, type PaywallStore } from '../../../../server/x402/paywall-store.js';
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

/** A payment of the route's price, first found good at 1,500 s (the paywall's clock, ms). */
const payment = (payload: PaymentPayload, memo = 'memo-1') => ({
  payload,
  memo,
  recipient: SELLER,
  amount: 10_000n,
  maxTimeoutSeconds: 300,
  nonceExpiresAt: 1_800_000,
  now: 1_500_000,
});

describe('a Base payment whose authorization may run before the paywall sees it settled', () => {
  let store: PaywallStore;
  afterEach(() => store.close());

  it('is looked for on chain only once the facilitator found it good with that nonce, from then less 900 s', async () => {
    store = openPaywallStore(':memory:');
    const node = chain(LANDED);
    const paid = paidBefore(store, node, payment(paying()))!;
    expect(await paid.ranIn()).toBeNull();
    expect(node.asked).toEqual([]);
    paid.verified();
    // The paywall restarted: what is remembered is in the store.
    expect(await paidBefore(store, node, payment(paying()))!.ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
    expect(node.asked).toEqual([
      {
        authorization: { from: PAYER, to: SELLER, value: 10_000n, validAfter: 0n, validBefore: 2000n, nonce: NONCE },
        // Its window opens at 2,000 - 300 = 1,700 s, after it was found good (1,500 s).
        earliest: 1_500n - 900n,
      },
    ]);
  });

  it('is not looked for under another nonce, nor another authorization under its nonce (a landed one is public)', async () => {
    store = openPaywallStore(':memory:');
    const node = chain(LANDED);
    paidBefore(store, node, payment(paying()))!.verified();
    expect(await paidBefore(store, node, payment(paying(), 'memo-2'))!.ranIn()).toBeNull();
    expect(await paidBefore(store, node, payment(paying({ nonce: `0x${'ef'.repeat(32)}` })))!.ranIn()).toBeNull();
    const otherPayer = getAddress('0x00000000000000000000000000000000000000cc');
    expect(await paidBefore(store, node, payment(paying({ from: otherPayer })))!.ranIn()).toBeNull();
    // The first found good for a nonce stays.
    paidBefore(store, node, payment(paying({ nonce: `0x${'ef'.repeat(32)}` })))!.verified();
    expect(store.verifiedAuthorization('memo-1')).toMatchObject({ payer: PAYER, authorization: NONCE });
    expect(node.asked).toEqual([]);
  });

  it('is none where the payment names no nonce of the paywall’s (v1), another recipient or sum, or is no EIP-3009 one', () => {
    store = openPaywallStore(':memory:');
    const node = chain(LANDED);
    for (const [payload, memo] of [
      [paying(), ''],
      [paying({ to: PAYER }), 'memo-1'],
      [paying({ value: '9999' }), 'memo-1'],
      [paying({ value: '1e4' }), 'memo-1'],
      [paying({ nonce: '0x12' }), 'memo-1'],
      [paying({}, { permit2Authorization: {} }), 'memo-1'],
      [paying({}, { signature: undefined }), 'memo-1'],
      [{ x402Version: 2, payload: { transaction: 'base64' } } as unknown as PaymentPayload, 'memo-1'],
    ] as const) {
      expect(paidBefore(store, node, payment(payload, memo))).toBeNull();
    }
  });

  it('is forgotten a day past its nonce’s end, with the accepted payments', () => {
    store = openPaywallStore(':memory:');
    paidBefore(store, chain(null), payment(paying()))!.verified();
    store.prune(1_800_000 + 86_400_000);
    expect(store.verifiedAuthorization('memo-1')).not.toBeNull();
    store.prune(1_800_001 + 86_400_000);
    expect(store.verifiedAuthorization('memo-1')).toBeNull();
  });

  it('reads a payload’s authorization in one spelling: checksummed addresses, a lower-case nonce', () => {
    store = openPaywallStore(':memory:');
    expect(carriedAuthorization(paying({ from: PAYER.toLowerCase(), nonce: NONCE.toUpperCase().replace('0X', '0x') }))).toMatchObject({
      from: PAYER,
      nonce: NONCE,
    });
  });
});
