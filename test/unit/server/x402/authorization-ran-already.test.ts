import { afterEach, describe, expect, it } from 'vitest';
import type { PaymentPayload } from '@x402/core/types';
import { getAddress, type Hash } from 'viem';
import { carriedAuthorization, paidBefore } from '../../../../server/x402/authorization-ran-already.js';
import { openPaywallStore, type PaywallStore } from '../../../../server/x402/paywall-store.js';
import type { CarriedAuthorization } from '../../../../server/chain/evm/transfer-lookup.js';

const SELLER = getAddress('0x00000000000000000000000000000000000000aa');
const PAYER = getAddress('0x00000000000000000000000000000000000000bb');
const NONCE = `0x${'ab'.repeat(32)}` as Hash;
const LANDED = `0x${'cd'.repeat(32)}`;

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

/** The chain as the paywall's lookup answers it: the transaction that paid, and what it was asked. */
function chain(paidIn: string) {
  const asked: { txHash: string; authorization: CarriedAuthorization }[] = [];
  return {
    asked,
    paidInTransaction: async (txHash: string, authorization: CarriedAuthorization) => (
      asked.push({ txHash, authorization }),
      txHash === paidIn
    ),
  };
}

/** A payment of the route's price under the paywall's nonce `memo`. */
const payment = (payload: PaymentPayload, memo = 'memo-1') => ({
  payload,
  memo,
  recipient: SELLER,
  amount: 10_000n,
  nonceExpiresAt: 1_800_000,
});

describe('a Base payment whose settlement the facilitator left pending', () => {
  let store: PaywallStore;
  afterEach(() => store.close());

  it('is settled by a restarted paywall in the transaction the facilitator sent for it, where that one paid it', async () => {
    store = openPaywallStore(':memory:');
    const node = chain(LANDED);
    const paid = paidBefore(store, node, payment(paying()))!;
    expect(await paid.ranIn()).toBeNull();
    expect(node.asked).toEqual([]);
    paid.leftPending(LANDED);
    // The paywall restarted: what is remembered is in the store.
    expect(await paidBefore(store, node, payment(paying()))!.ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
    expect(node.asked).toEqual([
      { txHash: LANDED, authorization: { from: PAYER, to: SELLER, value: 10_000n, validAfter: 0n, validBefore: 2000n, nonce: NONCE } },
    ]);
    // Where the transaction sent did not pay it (dropped, reverted, another authorization): nothing.
    const elsewhere = paidBefore(store, chain(`0x${'00'.repeat(32)}`), payment(paying(), 'memo-2'))!;
    elsewhere.leftPending(LANDED);
    expect(await elsewhere.ranIn()).toBeNull();
  });

  it('is not looked for under another nonce, nor another authorization under its nonce (a landed one is public)', async () => {
    store = openPaywallStore(':memory:');
    const node = chain(LANDED);
    paidBefore(store, node, payment(paying()))!.leftPending(LANDED);
    const otherPayer = getAddress('0x00000000000000000000000000000000000000cc');
    for (const [payload, memo] of [
      [paying(), 'memo-2'],
      [paying({ nonce: `0x${'ef'.repeat(32)}` }), 'memo-1'],
      [paying({ from: otherPayer }), 'memo-1'],
      // The same nonce in another window, or under another signature.
      [paying({ validBefore: '1' }), 'memo-1'],
      [paying({}, { signature: '0x5678' }), 'memo-1'],
    ] as const) {
      expect(await paidBefore(store, node, payment(payload, memo))!.ranIn()).toBeNull();
    }
    expect(node.asked).toEqual([]);
    // A later pending settlement under the nonce takes its place (signed again, sent again).
    const again = `0x${'ef'.repeat(32)}`;
    paidBefore(store, node, payment(paying({ nonce: again })))!.leftPending(LANDED);
    expect(await paidBefore(store, node, payment(paying({ nonce: again })))!.ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
    expect(await paidBefore(store, node, payment(paying()))!.ranIn()).toBeNull();
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
    paidBefore(store, chain(LANDED), payment(paying()))!.leftPending(LANDED);
    store.prune(1_800_000 + 86_400_000);
    expect(store.pendingSettlement('memo-1')).not.toBeNull();
    store.prune(1_800_001 + 86_400_000);
    expect(store.pendingSettlement('memo-1')).toBeNull();
  });

  it('reads a payload’s authorization in one spelling: checksummed addresses, a lower-case nonce', () => {
    store = openPaywallStore(':memory:');
    expect(carriedAuthorization(paying({ from: PAYER.toLowerCase(), nonce: NONCE.toUpperCase().replace('0X', '0x') }))).toMatchObject({
      from: PAYER,
      nonce: NONCE,
    });
  });
});
