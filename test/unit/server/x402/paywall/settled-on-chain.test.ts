import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PaymentPayload } from '@x402/core/types';
import { createHash, randomBytes } from 'node:crypto';
import { getAddress, serializeErc6492Signature } from 'viem';
import {
  baseSettling,
  carriedAuthorization,
  NODE_CATCH_UP_MS,
  paidBefore,
  solanaSettling,
} from '../../../../../server/x402/paywall/settled-on-chain.js';
import { adoptFormerDigest, claimOf, presentedUnderAnotherNonce } from '../../../../../server/x402/paywall/payment-claims.js';
import { ChainSearches, SEARCHES_IN_A_SECOND } from '../../../../../server/x402/paywall/chain-searches.js';
import { openPaywallStore, type PaywallStore } from '../../../../../server/x402/paywall/paywall-store.js';
import type { CarriedAuthorization } from '../../../../../server/chain/evm/transfer-lookup.js';
import type { PayerSignedFate, PayerSignedTransfer, TransferFound } from '../../../../../server/core/ports/chain.js';
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  createNoopSigner,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { usdcTokenAccount } from '../../../../../server/chain/solana/usdc-transfer.js';

const SELLER = getAddress('0x00000000000000000000000000000000000000aa');
const PAYER = getAddress('0x00000000000000000000000000000000000000bb');
const NONCE = `0x${'ab'.repeat(32)}`;
const LANDED = `0x${'cd'.repeat(32)}`;
const ROUTE = { recipient: SELLER, amount: 10_000n };
const SELLER_SOL = '9R8uAUDFpj62ec2C8ms9xE6DWXKikr8PUNdUDrMEwtEa';

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

const FACILITATOR = getAddress('0x00000000000000000000000000000000000000fa');

/**
 * Base as the paywall's lookup answers it: the transaction that paid, who sent the one the token's
 * log shows ran the authorization (LANDED; null: none ran it), and what it was asked.
 */
function base(paidIn: string, sender: string | null = FACILITATOR) {
  const asked: { txHash: string; authorization: CarriedAuthorization }[] = [];
  const searched: bigint[] = [];
  return {
    asked,
    searched,
    paidInTransaction: async (txHash: string, authorization: CarriedAuthorization) => (
      asked.push({ txHash, authorization }),
      txHash === paidIn
    ),
    whereAuthorizationRan: async (_authorization: CarriedAuthorization, since: bigint) => (
      searched.push(since),
      sender === null ? null : { transaction: LANDED as `0x${string}`, sender: getAddress(sender) }
    ),
  };
}
const SENDERS = [FACILITATOR.toLowerCase()];

/** A payment under the paywall's nonce `memo`; each read by a paywall that has searched for nothing yet. */
/** A Solana route's terms, and the transfer that pays them (its price to the seller's USDC account, the nonce as memo) as the cluster reads it. */
async function solanaTransferHere() {
  const [mint, seller] = ['4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', '9R8uAUDFpj62ec2C8ms9xE6DWXKikr8PUNdUDrMEwtEa'];
  const sent: TransferFound = {
    txSignature: 'sig-1',
    succeeded: true,
    error: null,
    from: 'buyer',
    toTokenAccount: await usdcTokenAccount(address(mint), address(seller)),
    to: null,
    mint,
    amount: 10_000n,
    memo: 'memo-1',
    blockTime: 1,
    slot: 1n,
  };
  return { mint, terms: { recipient: seller, amount: 10_000n, usdcMint: mint, memo: 'memo-1' }, sent };
}

const pendingUnder = (memo = 'memo-1') => ({ memo, nonceExpiresAt: 1_800_000, searches: new ChainSearches() });

describe('a payment whose settlement the facilitator left pending', () => {
  let store: PaywallStore;
  afterEach(() => store.close());

  it('is settled by a restarted paywall in the transaction the facilitator sent for it, where that one paid it', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    const paid = paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!;
    expect(await paid.ranIn()).toBeNull();
    expect(node.asked).toEqual([]);
    // The payer is the authorization's, whatever the facilitator said.
    paid.named(LANDED, 'someone');
    // The paywall restarted: what is remembered is in the store.
    expect(await paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!.ranIn()).toEqual({
      transaction: LANDED,
      payer: PAYER,
    });
    expect(node.asked).toEqual([
      { txHash: LANDED, authorization: { from: PAYER, to: SELLER, value: 10_000n, validAfter: 0n, validBefore: 2000n, nonce: NONCE } },
    ]);
    // Where the transaction sent did not pay it (dropped, reverted, another authorization): nothing.
    const elsewhere = paidBefore(store, pendingUnder('memo-2'), baseSettling(paying(), ROUTE, base(`0x${'00'.repeat(32)}`), SENDERS))!;
    elsewhere.named(LANDED, PAYER);
    expect(await elsewhere.ranIn()).toBeNull();
  });

  it('is remembered as its settlement begins: never answered, settled by a transaction its facilitator’s accounts sent since', async () => {
    store = openPaywallStore(':memory:');
    const since = Date.now();
    const node = base(LANDED);
    paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!.settling('someone');
    expect(store.pendingSettlement('memo-1')).toMatchObject({ transactions: [], payer: PAYER });
    const began = store.pendingSettlement('memo-1')!.unansweredSince!;
    expect(began).toBeGreaterThanOrEqual(since);
    // The paywall stopped before the facilitator answered: the chain is asked from then on.
    expect(await paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!.ranIn()).toEqual({
      transaction: LANDED,
      payer: PAYER,
    });
    expect(node.searched).toEqual([BigInt(Math.floor(began / 1000))]);
    expect(node.asked.map((asked) => asked.txHash)).toEqual([LANDED]);
    // Sent by another account (another paywall's facilitator, the payer itself), not used, or run
    // in a transaction that did not pay it: nothing.
    for (const lookup of [
      base(LANDED, getAddress('0x00000000000000000000000000000000000000cc')),
      base(LANDED, null),
      base(`0x${'00'.repeat(32)}`),
    ]) {
      expect(await paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, lookup, SENDERS))!.ranIn()).toBeNull();
    }
    // Settled again later (the paywall restarted), the same payment keeps its earliest beginning.
    paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!.settling(PAYER);
    expect(store.pendingSettlement('memo-1')!.unansweredSince).toBe(began);
  });

  it('once its facilitator answered, is settled only by the transactions it named: never by a search', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    const settlingOf = () => paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!;
    // It said the authorization ran before it sent anything (another paywall's settlement, through
    // a facilitator sharing this one's account, ran it first).
    settlingOf().settling(PAYER);
    settlingOf().ranElsewhere();
    expect(await settlingOf().ranIn()).toBeNull();
    expect(node.searched).toEqual([]);
    // It named one that did not pay it (reverted): that one is asked about, and no search.
    const reverted = `0x${'00'.repeat(32)}`;
    settlingOf().settling(PAYER);
    settlingOf().named(reverted, PAYER);
    expect(await settlingOf().ranIn()).toBeNull();
    expect(node.asked.map((asked) => asked.txHash)).toEqual([reverted]);
    expect(node.searched).toEqual([]);
    // Named again later (a facilitator that lost what it sent sends again): each is asked about, the
    // latest first, and the first that paid it settles it.
    settlingOf().named(LANDED, PAYER);
    settlingOf().named(`0x${'11'.repeat(32)}`, PAYER);
    expect(store.pendingSettlement('memo-1')!.transactions).toEqual([reverted, LANDED, `0x${'11'.repeat(32)}`]);
    expect(await settlingOf().ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
    expect(node.searched).toEqual([]);
  });

  it('said settled in a transaction this node does not know: not known here yet while the node may catch up, then judged as any', async () => {
    store = openPaywallStore(':memory:');
    const unknown = `0x${'ee'.repeat(32)}`;
    const node = base(LANDED);
    // The node knows no transaction but LANDED; asked of one said settled, it cannot say "no".
    const asked: { txHash: string; settled: boolean }[] = [];
    const lookup = {
      ...node,
      paidInTransaction: async (txHash: string, authorization: CarriedAuthorization, settled = false) => {
        asked.push({ txHash, settled });
        if (settled && txHash !== LANDED) throw new Error('the transaction the facilitator settled is not known to this node yet');
        return node.paidInTransaction(txHash, authorization);
      },
    };
    const settlingOf = () => paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, lookup, SENDERS))!;
    settlingOf().settling(PAYER);
    settlingOf().named(`0x${'01'.repeat(32)}`, PAYER);
    settlingOf().settledIn(unknown, PAYER);
    // Tried again and again after (a facilitator whose answers were lost): the one said settled stays
    // among the transactions kept, and is asked about, as settled.
    for (let i = 2; i <= 10; i += 1) settlingOf().named(`0x${i.toString(16).padStart(2, '0').repeat(32)}`, PAYER);
    expect(store.pendingSettlement('memo-1')!.transactions).toHaveLength(9);
    expect(store.pendingSettlement('memo-1')!.transactions).toContain(unknown);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await expect(settlingOf().ranIn()).rejects.toThrow(/not known to this node yet/);
      expect(asked.filter((each) => each.settled).map((each) => each.txHash)).toEqual([unknown]);
      // Long after (replaced by another transaction, or reorganized away): it did not pay it, and
      // no search runs (the facilitator answered each settlement).
      vi.setSystemTime(Date.now() + NODE_CATCH_UP_MS + 1);
      asked.length = 0;
      expect(await settlingOf().ranIn()).toBeNull();
      expect(asked.map((each) => each.settled)).not.toContain(true);
      expect(asked.map((each) => each.txHash)).toContain(unknown);
      expect(node.searched).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('said settled on Solana in a transaction the lookup does not show: unknown only where the lookup cannot tell its end', async () => {
    store = openPaywallStore(':memory:');
    const { terms } = await solanaTransferHere();
    const payload = { x402Version: 2, payload: { transaction: 'AAAA' } } as unknown as PaymentPayload;
    const cluster = (blockhashUsable: ((wire: string) => Promise<boolean>) | null) => ({
      findTransfer: async () => null,
      fateOfPayerSigned: null,
      blockhashUsable,
    });
    const settlingOn = (lookup: ReturnType<typeof cluster>) => paidBefore(store, pendingUnder(), solanaSettling(payload, terms, lookup))!;
    settlingOn(cluster(null)).settledIn('sig-settled', 'buyer');
    // A Coffer server's lookup, which cannot say whether it may still land: not known here yet.
    await expect(settlingOn(cluster(null)).ranIn()).rejects.toThrow(/not known here yet/);
    // A cluster's RPC: its blockhash is the transaction's end, as before. Gone, and not landed: no.
    expect(await settlingOn(cluster(async () => false)).ranIn()).toBeNull();
    await expect(settlingOn(cluster(async () => true)).ranIn()).rejects.toThrow(/has not landed yet/);
  });

  it('named in several, is settled by any that paid it, one not mined yet answering only where none did', async () => {
    store = openPaywallStore(':memory:');
    const waiting = `0x${'22'.repeat(32)}`;
    const node = base(LANDED);
    const notMined = Object.assign(new Error('the transaction that settles the payment is not mined yet'), { code: 'chain_unavailable' });
    const lookup = {
      ...node,
      paidInTransaction: async (txHash: string, authorization: CarriedAuthorization) => {
        if (txHash === waiting) throw notMined;
        return node.paidInTransaction(txHash, authorization);
      },
    };
    const settlingOf = () => paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, lookup, SENDERS))!;
    settlingOf().named(LANDED, PAYER);
    settlingOf().named(waiting, PAYER);
    expect(await settlingOf().ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
    // Where none other paid it (the first was dropped), the one still waiting answers: not mined yet.
    const other = () => paidBefore(store, pendingUnder('memo-2'), baseSettling(paying(), ROUTE, lookup, SENDERS))!;
    expect(other().settling(PAYER)).toBe(true);
    other().named(`0x${'00'.repeat(32)}`, PAYER);
    other().named(waiting, PAYER);
    await expect(other().ranIn()).rejects.toBe(notMined);
  });

  it('stopped in a settlement, is searched for though a later settlement of it was answered', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    const settlingOf = () => paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!;
    // The paywall stops while it settles; restarted, the payment's settlement is refused as run
    // before anything was sent: by the first settlement, whose transaction the chain shows.
    settlingOf().settling(PAYER);
    const began = store.pendingSettlement('memo-1')!.unansweredSince!;
    settlingOf().settling(PAYER);
    settlingOf().ranElsewhere();
    expect(await settlingOf().ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
    expect(node.searched).toEqual([BigInt(Math.floor(began / 1000))]);
  });

  it('is searched for once in a while at most: presented again and again, the chain is not read for each', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED, null);
    const searches = new ChainSearches();
    const under = (memo: string) =>
      paidBefore(store, { memo, nonceExpiresAt: 1_800_000, searches }, baseSettling(paying(), ROUTE, node, SENDERS))!;
    under('memo-1').settling(PAYER);
    under('memo-2').settling(PAYER);
    expect(await under('memo-1').ranIn()).toBeNull();
    // Asked again at once: not searched, and not refused either (503: the outcome is unknown).
    await expect(under('memo-1').ranIn()).rejects.toThrow(/searched a moment ago/);
    // Another payment's search is its own.
    expect(await under('memo-2').ranIn()).toBeNull();
    expect(node.searched).toHaveLength(2);
    // Again a second after the last.
    const paced = new ChainSearches();
    expect([1_000, 1_999, 2_000, 2_001].map((now) => paced.mayRun('memo-1', now))).toEqual([true, false, true, false]);
  });

  it('is searched for with a few others at most in a second: many payments presented at once do not read the chain each', () => {
    // A buyer can leave many settlements unanswered at little cost (payments verified together,
    // spending one balance: all but one fail at their send), and a search on Solana reads up to a
    // thousand transactions of a history the buyer may fill.
    const searches = new ChainSearches();
    const inOneSecond = Array.from({ length: 10 }, (_, index) => searches.mayRun(`memo-${index}`, 1_000 + index));
    expect(inOneSecond.filter(Boolean)).toHaveLength(SEARCHES_IN_A_SECOND);
    expect(searches.mayRun('memo-9', 2_010)).toBe(true);
  });

  it('is remembered as its settlement begins, but not searched for, where the chain cannot say without the facilitator’s word', async () => {
    store = openPaywallStore(':memory:');
    // A facilitator that names no account it sends from: remembered (another nonce cannot take it
    // meanwhile), never searched for.
    const node = base(LANDED);
    const unnamed = () => paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, []))!;
    unnamed().settling(PAYER);
    expect(store.pendingSettlement('memo-1')).toMatchObject({ transactions: [], unansweredSince: expect.any(Number) });
    expect(await unnamed().ranIn()).toBeNull();
    expect(node.searched).toEqual([]);
    expect(presentedUnderAnotherNonce(store, 'memo-2', baseSettling(paying(), ROUTE, node, []))).toBe(true);
    // A v1 payment names no nonce of the paywall's: under any other.
    expect(presentedUnderAnotherNonce(store, '', baseSettling(paying(), ROUTE, node, []))).toBe(true);
    expect(presentedUnderAnotherNonce(store, 'memo-1', baseSettling(paying(), ROUTE, node, []))).toBe(false);
    // Solana, where the lookup cannot find a payer's transaction (a Coffer server's, on sim): the
    // transaction is named by the fee payer's signature.
    const solPayment = { x402Version: 2, payload: { transaction: 'tx-bytes' } } as unknown as PaymentPayload;
    const terms = { recipient: SELLER, amount: 10_000n, usdcMint: 'mint', memo: 'memo-3' };
    const onSolana = () =>
      paidBefore(
        store,
        pendingUnder('memo-3'),
        solanaSettling(solPayment, terms, { findTransfer: async () => null, fateOfPayerSigned: null, blockhashUsable: null }),
      )!;
    onSolana().settling('buyer');
    expect(store.pendingSettlement('memo-3')).toMatchObject({ transactions: [], unansweredSince: expect.any(Number) });
    expect(await onSolana().ranIn()).toBeNull();
  });

  it('is not looked for under another nonce, nor another payment under its nonce (a landed one is public)', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!.named(LANDED, PAYER);
    const otherPayer = getAddress('0x00000000000000000000000000000000000000cc');
    for (const [payload, memo] of [
      [paying(), 'memo-2'],
      [paying({ nonce: `0x${'ef'.repeat(32)}` }), 'memo-1'],
      [paying({ from: otherPayer }), 'memo-1'],
      // The same nonce in another window.
      [paying({ validBefore: '1' }), 'memo-1'],
    ] as const) {
      expect(await paidBefore(store, pendingUnder(memo), baseSettling(payload, ROUTE, node, SENDERS))!.ranIn()).toBeNull();
    }
    expect(node.asked).toEqual([]);
    // Another payment under the nonce (signed again) takes nothing of its place: its settlement does
    // not begin, and what is named for it is not remembered; the first is still the one looked for.
    const again = paidBefore(store, pendingUnder(), baseSettling(paying({ nonce: `0x${'ef'.repeat(32)}` }), ROUTE, node, SENDERS))!;
    expect(again.settling(PAYER)).toBe(false);
    again.named(LANDED, PAYER);
    expect(await again.ranIn()).toBeNull();
    expect(await paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, node, SENDERS))!.ranIn()).toEqual({
      transaction: LANDED,
      payer: PAYER,
    });
  });

  it('is its authorization however its signature is spelled: a contract wallet’s, wrapped anew by whoever read it, is the same payment', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    // A deployed contract wallet's signature verifies wrapped as ERC-6492 with any factory (the
    // official facilitator checks factories only for a wallet not deployed yet): anyone who read the
    // payment in flight may spell it anew. USDC runs one authorization of a payer's nonce once.
    const SIGNATURE = `0x${'12'.repeat(65)}` as const;
    const plain = paying({}, { signature: SIGNATURE });
    const wrapped = paying({}, { signature: serializeErc6492Signature({ address: FACILITATOR, data: '0x01', signature: SIGNATURE }) });
    const upper = paying({}, { signature: SIGNATURE.toUpperCase().replace('0X', '0x') });
    paidBefore(store, pendingUnder(), baseSettling(plain, ROUTE, node, SENDERS))!.named(LANDED, PAYER);
    for (const payload of [wrapped, upper]) {
      expect(presentedUnderAnotherNonce(store, 'memo-2', baseSettling(payload, ROUTE, node, SENDERS))).toBe(true);
      expect(presentedUnderAnotherNonce(store, '', baseSettling(payload, ROUTE, node, SENDERS))).toBe(true);
      expect(claimOf('', baseSettling(payload, ROUTE, node, SENDERS))).toBe(claimOf('', baseSettling(plain, ROUTE, node, SENDERS)));
      // Under its own nonce, re-spelled by its buyer, it is the payment the chain shows paid.
      expect(await paidBefore(store, pendingUnder(), baseSettling(payload, ROUTE, node, SENDERS))!.ranIn()).toEqual({
        transaction: LANDED,
        payer: PAYER,
      });
    }
  });

  it('remembered by a paywall before its digest left the signature out, is the same payment (v2 and v1)', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    const payload = paying({}, { signature: '0xABCD' });
    // The digest such a paywall wrote: the authorization's fields and the signature, lower-cased.
    const { from, to, value, validAfter, validBefore, nonce } = carriedAuthorization(payload)!;
    const fields = [from, to, value, validAfter, validBefore].map(String);
    const former = createHash('sha256')
      .update(JSON.stringify([...fields, nonce, '0xabcd']))
      .digest('hex');
    // Each in a paywall of its own (one payment under a nonce and as v1 is presented under another).
    for (const [memo, formerClaim] of [
      ['memo-1', 'memo-1'],
      ['', `v1:${former}`],
    ]) {
      store.close();
      store = openPaywallStore(':memory:');
      store.settlementBegins({ nonce: formerClaim!, digest: former, payer: PAYER, nonceExpiresAt: 1_800_000, since: 1 });
      store.settlementNamed({ nonce: formerClaim!, digest: former, payer: PAYER, nonceExpiresAt: 1_800_000, transaction: LANDED });
      const settling = baseSettling(payload, ROUTE, node, SENDERS);
      const claim = claimOf(memo!, settling);
      adoptFormerDigest(store, claim, settling);
      expect(presentedUnderAnotherNonce(store, claim, settling)).toBe(false);
      expect(await paidBefore(store, pendingUnder(memo), settling)!.ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
      if (memo === '') expect(store.pendingSettlement(formerClaim!)).toBeNull();
    }
  });

  it('names no nonce of the paywall’s (v1): remembered under its digest, settled as a v2 payment is', async () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    const v1 = () => paidBefore(store, pendingUnder(''), baseSettling(paying(), ROUTE, node, SENDERS))!;
    const claim = claimOf('', baseSettling(paying(), ROUTE, node, SENDERS));
    expect(claim).toMatch(/^v1:[0-9a-f]{64}$/);
    v1().settling(PAYER);
    expect(store.pendingSettlement(claim)).toMatchObject({ transactions: [], unansweredSince: expect.any(Number) });
    v1().named(LANDED, PAYER);
    expect(await v1().ranIn()).toEqual({ transaction: LANDED, payer: PAYER });
    // Under a nonce of the paywall's it is refused; as v1 again, it is its own.
    expect(presentedUnderAnotherNonce(store, 'memo-1', baseSettling(paying(), ROUTE, node, SENDERS))).toBe(true);
    expect(presentedUnderAnotherNonce(store, claim, baseSettling(paying(), ROUTE, node, SENDERS))).toBe(false);
  });

  it('is none where the payment names another recipient or sum, or is no EIP-3009 one', () => {
    store = openPaywallStore(':memory:');
    const node = base(LANDED);
    for (const payload of [
      paying({ to: PAYER }),
      paying({ value: '9999' }),
      paying({ value: '1e4' }),
      paying({ nonce: '0x12' }),
      paying({}, { permit2Authorization: {} }),
      paying({}, { signature: undefined }),
      { x402Version: 2, payload: { transaction: 'base64' } } as unknown as PaymentPayload,
    ]) {
      expect(baseSettling(payload, ROUTE, node, SENDERS)).toBeNull();
    }
    // Paying more than the price (a facilitator that settles it: the official one takes the exact
    // sum) is a payment of the route: its money moves, and it must be found again where it ran.
    expect(baseSettling(paying({ value: '10001' }), ROUTE, node, SENDERS)).not.toBeNull();
  });

  it('on Solana, is its message: re-spelled signature slots are one payment; one remembered under the whole wire is adopted', () => {
    const lookup = { findTransfer: async () => null, fateOfPayerSigned: null, blockhashUsable: null };
    const terms = { recipient: SELLER, amount: 10_000n, usdcMint: 'mint', memo: '' };
    // One signer, one account key, a blockhash, no instruction: read as a transaction.
    const message = Buffer.concat([Buffer.from([1, 0, 0, 1]), randomBytes(32), randomBytes(32), Buffer.from([0])]);
    const spelled = (slot: Buffer) => ({
      x402Version: 1,
      payload: { transaction: Buffer.concat([Buffer.from([1]), slot, message]).toString('base64') },
    });
    const first = solanaSettling(spelled(Buffer.alloc(64)) as unknown as PaymentPayload, terms, lookup)!;
    const respelled = solanaSettling(spelled(randomBytes(64)) as unknown as PaymentPayload, terms, lookup)!;
    expect(respelled.digest).toBe(first.digest);
    expect(claimOf('', respelled)).toBe(claimOf('', first));
    expect(respelled.formerDigest).not.toBe(first.formerDigest);
    // Not a transaction at all: its bytes are the payment, as before.
    expect(
      solanaSettling({ x402Version: 1, payload: { transaction: 'junk' } } as unknown as PaymentPayload, terms, lookup)!.formerDigest,
    ).toBeNull();

    store = openPaywallStore(':memory:');
    const formerClaim = `v1:${first.formerDigest!}`;
    store.settlementBegins({ nonce: formerClaim, digest: first.formerDigest!, payer: PAYER, nonceExpiresAt: 1_800_000, since: 1 });
    const claim = claimOf('', first);
    adoptFormerDigest(store, claim, first);
    expect(store.pendingSettlement(formerClaim)).toBeNull();
    expect(store.pendingSettlement(claim)).toMatchObject({ digest: first.digest });

    // A v2 payment (its claim the nonce it names) left pending under the former digest: taken over
    // under its nonce; presented under another nonce, it is the payment begun there.
    store.close();
    store = openPaywallStore(':memory:');
    store.settlementBegins({ nonce: 'memo-1', digest: first.formerDigest!, payer: PAYER, nonceExpiresAt: 1_800_000, since: 1 });
    expect(presentedUnderAnotherNonce(store, 'memo-2', first)).toBe(true);
    expect(presentedUnderAnotherNonce(store, 'memo-1', first)).toBe(false);
    adoptFormerDigest(store, 'memo-1', first);
    expect(store.pendingSettlement('memo-1')).toMatchObject({ digest: first.digest });
    expect(presentedUnderAnotherNonce(store, 'memo-2', respelled)).toBe(true);
  });

  it('on Solana, is its transaction: settled where the one the facilitator sent moved the price here with the nonce as memo', async () => {
    store = openPaywallStore(':memory:');
    const solPaying = (transaction: string) => ({ x402Version: 2, payload: { transaction } }) as unknown as PaymentPayload;
    const { mint, terms, sent } = await solanaTransferHere();
    const cluster = (found: Partial<TransferFound> | null) => ({
      findTransfer: async () => (found === null ? null : { ...sent, ...found }),
      fateOfPayerSigned: null,
      blockhashUsable: null,
    });
    paidBefore(store, pendingUnder(), solanaSettling(solPaying('tx-bytes'), terms, cluster({})))!.named('sig-1', 'buyer');
    expect(await paidBefore(store, pendingUnder(), solanaSettling(solPaying('tx-bytes'), terms, cluster({})))!.ranIn()).toEqual({
      transaction: 'sig-1',
      payer: 'buyer',
    });
    const othersAccount = await usdcTokenAccount(address(mint), address('AqfDsjrELCq1TiHMdBNwZNt5W2V8E5ZwpF8DLXuju2GS'));
    for (const found of [
      null,
      { succeeded: false },
      { mint: 'other' },
      { toTokenAccount: othersAccount },
      { amount: 9_999n },
      { memo: 'memo-2' },
    ]) {
      expect(await paidBefore(store, pendingUnder(), solanaSettling(solPaying('tx-bytes'), terms, cluster(found)))!.ranIn()).toBeNull();
    }
    expect(await paidBefore(store, pendingUnder(), solanaSettling(solPaying('other-bytes'), terms, cluster({})))!.ranIn()).toBeNull();
    expect(solanaSettling(paying(), terms, cluster({}))).toBeNull();
  });

  it('on Solana, named but not landed: unknown while the cluster takes its blockhash, then refused; landed meanwhile, settled', async () => {
    store = openPaywallStore(':memory:');
    const solPaying = { x402Version: 2, payload: { transaction: 'tx-bytes' } } as unknown as PaymentPayload;
    const { terms, sent } = await solanaTransferHere();
    /** A cluster where the transaction lands when `landsAt` says, and its blockhash is usable while `usable`. */
    const cluster = (usable: boolean, landsAt: 'never' | 'as its blockhash is asked about') => {
      let landed = false;
      const asked: string[] = [];
      return {
        asked,
        findTransfer: async () => (landed ? sent : null),
        fateOfPayerSigned: null,
        blockhashUsable: async (wire: string) => {
          asked.push(wire);
          landed = landsAt !== 'never';
          return usable;
        },
      };
    };
    paidBefore(store, pendingUnder(), solanaSettling(solPaying, terms, cluster(true, 'never')))!.named('sig-1', 'buyer');
    const waiting = cluster(true, 'never');
    await expect(paidBefore(store, pendingUnder(), solanaSettling(solPaying, terms, waiting))!.ranIn()).rejects.toThrow(/not landed yet/);
    // The presented transaction's blockhash is the one asked about (the facilitator's signature leaves it as it is).
    expect(waiting.asked).toEqual(['tx-bytes']);
    expect(await paidBefore(store, pendingUnder(), solanaSettling(solPaying, terms, cluster(false, 'never')))!.ranIn()).toBeNull();
    // Landed between the first read and the blockhash's end: read again once the blockhash is gone.
    expect(
      await paidBefore(store, pendingUnder(), solanaSettling(solPaying, terms, cluster(false, 'as its blockhash is asked about')))!.ranIn(),
    ).toEqual({ transaction: 'sig-1', payer: 'buyer' });
  });

  it('on Solana, never answered: the transaction carrying the payer’s signature, found in its history', async () => {
    store = openPaywallStore(':memory:');
    const [payer, feePayer] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    const wire = getBase64EncodedWireTransaction(
      await partiallySignTransactionMessageWithSigners(
        pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(createNoopSigner(feePayer.address), m),
          (m) =>
            setTransactionMessageLifetimeUsingBlockhash(
              { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 1n },
              m,
            ),
          (m) => appendTransactionMessageInstructions([getAddMemoInstruction({ memo: 'memo-1', signers: [payer] })], m),
        ),
      ),
    );
    const payerSignature = getBase58Decoder().decode(
      getTransactionDecoder().decode(getBase64Encoder().encode(wire)).signatures[payer.address]!,
    );
    const asked: unknown[] = [];
    const mint = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
    const terms = { recipient: SELLER_SOL, amount: 10_000n, usdcMint: mint, memo: 'memo-1' };
    const found = {
      succeeded: true,
      mint,
      toTokenAccount: await usdcTokenAccount(address(mint), address(SELLER_SOL)),
      amount: 10_000n,
      memo: 'memo-1',
    };
    const cluster = (fate: PayerSignedFate) => ({
      findTransfer: async (tx: string) => (tx === 'landed-sig' ? (found as unknown as TransferFound) : null),
      fateOfPayerSigned: async (sent: PayerSignedTransfer) => (asked.push(sent), fate),
      blockhashUsable: null,
    });
    const payment = { x402Version: 2, payload: { transaction: wire } } as unknown as PaymentPayload;
    const landed = cluster({ state: 'succeeded', landedAs: 'landed-sig' });
    paidBefore(store, pendingUnder(), solanaSettling(payment, terms, landed))!.settling(payer.address);
    const began = store.pendingSettlement('memo-1')!.unansweredSince!;
    expect(await paidBefore(store, pendingUnder(), solanaSettling(payment, terms, landed))!.ranIn()).toEqual({
      transaction: 'landed-sig',
      payer: payer.address,
    });
    expect(asked).toEqual([
      { payer: payer.address, payerSignature, txWire: wire, lifetimeEnd: expect.any(BigInt), since: began, hint: null },
    ]);
    // Not found (unknown, dropped), or failed: nothing.
    for (const fate of [
      { state: 'unknown' },
      { state: 'dropped' },
      { state: 'failed', landedAs: 'landed-sig', error: 'x' },
    ] as PayerSignedFate[]) {
      expect(await paidBefore(store, pendingUnder(), solanaSettling(payment, terms, cluster(fate)))!.ranIn()).toBeNull();
    }
    // Answered (it sent nothing): the history is not read.
    paidBefore(store, pendingUnder(), solanaSettling(payment, terms, landed))!.ranElsewhere();
    expect(await paidBefore(store, pendingUnder(), solanaSettling(payment, terms, landed))!.ranIn()).toBeNull();
    expect(asked).toHaveLength(4);
  });

  it('is forgotten a day past its nonce’s end, with the accepted payments', () => {
    store = openPaywallStore(':memory:');
    paidBefore(store, pendingUnder(), baseSettling(paying(), ROUTE, base(LANDED), SENDERS))!.named(LANDED, PAYER);
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
