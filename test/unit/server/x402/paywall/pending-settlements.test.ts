import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../../../../server/store/sqlite-driver.js';
import { openPaywallStore } from '../../../../../server/x402/paywall/paywall-store.js';

const payment = { nonce: 'n1', digest: 'digest-1', payer: 'p', nonceExpiresAt: 300_000 };
const remembered = (fields: Record<string, unknown>) => ({
  ...payment,
  transactions: [],
  settled: null,
  unansweredSince: null,
  ...fields,
});

/**
 * What a paywall remembers of a payment whose settlement began and was not seen through: the
 * transactions its facilitator named, and from when a settlement it never answered began (where a
 * restarted paywall searches the chain from).
 */
describe('pending settlements', () => {
  it('keeps each transaction named, and a settlement unanswered until one answers it', () => {
    const store = openPaywallStore(':memory:');
    store.settlementBegins({ ...payment, since: 1_000 });
    expect(store.pendingSettlement('n1')).toEqual(remembered({ unansweredSince: 1_000 }));
    // Left pending: the transaction the facilitator sent; the settlement answered.
    store.settlementNamed({ ...payment, transaction: '0xsent-1' });
    expect(store.pendingSettlement('n1')).toEqual(remembered({ transactions: ['0xsent-1'] }));
    // Settled again by a facilitator that lost what it sent: it sends again; both are kept, once each.
    store.settlementBegins({ ...payment, since: 2_000 });
    store.settlementNamed({ ...payment, transaction: '0xsent-2' });
    store.settlementNamed({ ...payment, transaction: '0xsent-2' });
    expect(store.pendingSettlement('n1')).toEqual(remembered({ transactions: ['0xsent-1', '0xsent-2'] }));
    // A few at most: the first (from one account, it runs first) and the latest.
    for (let i = 3; i <= 10; i += 1) store.settlementNamed({ ...payment, transaction: `0xsent-${i}` });
    expect(store.pendingSettlement('n1')!.transactions).toEqual([1, 4, 5, 6, 7, 8, 9, 10].map((i) => `0xsent-${i}`));
    // Resumed without a verify (no payer known), it keeps the payer remembered.
    store.settlementBegins({ ...payment, payer: '', since: 5_000 });
    expect(store.pendingSettlement('n1')).toMatchObject({ payer: 'p', unansweredSince: 5_000 });
    store.close();
  });

  it('keeps the transaction the facilitator said the payment settled in, whatever a later try answers', () => {
    const store = openPaywallStore(':memory:');
    store.settlementBegins({ ...payment, since: 1_000 });
    store.settlementNamed({ ...payment, transaction: '0xsettled', settledAt: 1_500 });
    expect(store.pendingSettlement('n1')).toEqual(
      remembered({ transactions: ['0xsettled'], settled: { transaction: '0xsettled', at: 1_500 } }),
    );
    // Presented again, settled again (a facilitator whose node lost it), left pending in another.
    store.settlementBegins({ ...payment, since: 2_000 });
    store.settlementNamed({ ...payment, transaction: '0xagain' });
    store.settlementRanElsewhere({ nonce: 'n1', digest: 'digest-1' });
    expect(store.pendingSettlement('n1')).toEqual(
      remembered({ transactions: ['0xsettled', '0xagain'], settled: { transaction: '0xsettled', at: 1_500 } }),
    );
    // Nothing is said of another payment's row.
    store.settlementNamed({ ...payment, digest: 'digest-2', transaction: '0xother', settledAt: 3_000 });
    expect(store.pendingSettlement('n1')!.settled).toEqual({ transaction: '0xsettled', at: 1_500 });
    store.close();
  });

  it('keeps the transaction said settled among the few it keeps, beside the first and the latest', () => {
    const store = openPaywallStore(':memory:');
    store.settlementBegins({ ...payment, since: 1_000 });
    store.settlementNamed({ ...payment, transaction: '0xfirst' });
    store.settlementNamed({ ...payment, transaction: '0xsettled', settledAt: 1_500 });
    // Tried again and again (a facilitator whose answers were lost): whatever asks the transactions
    // kept asks the one said settled too.
    for (let i = 1; i <= 10; i += 1) store.settlementNamed({ ...payment, transaction: `0xlater-${i}` });
    const later = (from: number, to: number) => Array.from({ length: to + 1 - from }, (_, i) => `0xlater-${from + i}`);
    expect(store.pendingSettlement('n1')!.transactions).toEqual(['0xfirst', '0xsettled', ...later(4, 10)]);
    // Said settled in one of the latest since, the earlier one said is kept no longer than any.
    store.settlementNamed({ ...payment, transaction: '0xlater-10', settledAt: 2_000 });
    store.settlementNamed({ ...payment, transaction: '0xlater-11' });
    expect(store.pendingSettlement('n1')!.transactions).toEqual(['0xfirst', ...later(5, 11)]);
    store.close();
  });

  it('says where a payment is remembered under another nonce: never under its own, nor for another payment', () => {
    const store = openPaywallStore(':memory:');
    expect(store.settlingUnderAnotherNonce('n2', 'digest-1')).toBe(false);
    store.settlementNamed({ ...payment, transaction: '0xsent' });
    expect(store.settlingUnderAnotherNonce('n2', 'digest-1')).toBe(true);
    expect(store.settlingUnderAnotherNonce('n1', 'digest-1')).toBe(false);
    expect(store.settlingUnderAnotherNonce('n2', 'digest-other')).toBe(false);
    // Forgotten once it is accepted (its answer given), or with its nonce, a day after it ended.
    store.settlementAccepted('n1');
    expect([store.pendingSettlement('n1'), store.settlingUnderAnotherNonce('n2', 'digest-1')]).toEqual([null, false]);
    store.settlementNamed({ ...payment, transaction: '0xsent' });
    store.prune(payment.nonceExpiresAt + 24 * 60 * 60 * 1000 + 1);
    expect(store.settlingUnderAnotherNonce('n2', 'digest-1')).toBe(false);
    store.close();
  });

  it('takes a payment remembered under a former digest (and claim) over, unless one is remembered under the new claim', () => {
    const store = openPaywallStore(':memory:');
    store.settlementNamed({ ...payment, transaction: '0xsent' });
    // Another payment's row under its claim: the digest does not match, nothing changes.
    store.settlementDigestChanged({ nonce: 'n1', digest: 'digest-other' }, { nonce: 'n1', digest: 'digest-2' });
    expect(store.pendingSettlement('n1')).toMatchObject({ digest: 'digest-1' });
    store.settlementDigestChanged({ nonce: 'n1', digest: 'digest-1' }, { nonce: 'n1', digest: 'digest-2' });
    expect(store.pendingSettlement('n1')).toMatchObject({ digest: 'digest-2', transactions: ['0xsent'], payer: 'p' });
    // Under a claim of its own (a v1 payment's), unless that claim is taken already.
    store.settlementNamed({ ...payment, nonce: 'v1:new', digest: 'digest-3', transaction: '0xother' });
    store.settlementDigestChanged({ nonce: 'n1', digest: 'digest-2' }, { nonce: 'v1:new', digest: 'digest-3' });
    expect([store.pendingSettlement('n1')?.digest, store.pendingSettlement('v1:new')?.transactions]).toEqual(['digest-2', ['0xother']]);
    store.settlementDigestChanged({ nonce: 'n1', digest: 'digest-2' }, { nonce: 'v1:moved', digest: 'digest-2' });
    expect([store.pendingSettlement('n1'), store.pendingSettlement('v1:moved')?.transactions]).toEqual([null, ['0xsent']]);
    store.close();
  });

  it('keeps a settlement the paywall stopped in unanswered, whatever is answered of a later one', () => {
    const store = openPaywallStore(':memory:');
    // The paywall stops while it settles (never answered); restarted, it settles the payment again.
    store.settlementBegins({ ...payment, since: 1_000 });
    store.settlementBegins({ ...payment, since: 3_000 });
    expect(store.pendingSettlement('n1')!.unansweredSince).toBe(1_000);
    // The later one is refused: the authorization ran before it sent anything (the first one's doing, maybe).
    store.settlementRanElsewhere({ nonce: 'n1', digest: 'digest-1' });
    expect(store.pendingSettlement('n1')).toEqual(remembered({ unansweredSince: 1_000 }));
    store.settlementNamed({ ...payment, transaction: '0xsent' });
    expect(store.pendingSettlement('n1')).toEqual(remembered({ transactions: ['0xsent'], unansweredSince: 1_000 }));
    store.close();
  });

  it('forgets a settlement answered as run elsewhere, and changes nothing for another payment: none of its begins or names is kept', () => {
    const store = openPaywallStore(':memory:');
    store.settlementBegins({ ...payment, since: 1_000 });
    store.settlementRanElsewhere({ nonce: 'n1', digest: 'digest-other' });
    store.settlementRanElsewhere({ nonce: 'n2', digest: 'digest-1' });
    expect(store.pendingSettlement('n1')!.unansweredSince).toBe(1_000);
    expect(store.pendingSettlement('n2')).toBeNull();
    store.settlementRanElsewhere({ nonce: 'n1', digest: 'digest-1' });
    expect(store.pendingSettlement('n1')).toEqual(remembered({}));
    store.settlementNamed({ ...payment, transaction: '0xsent' });
    // Another payment under the nonce (signed again, or another buyer's, perhaps in another process
    // sharing the file) does not begin: the first's money may move, and it keeps the nonce.
    expect(store.settlementBegins({ ...payment, digest: 'digest-2', since: 4_000 })).toBe(false);
    store.settlementNamed({ ...payment, digest: 'digest-2', transaction: '0xother' });
    expect(store.pendingSettlement('n1')).toEqual(remembered({ transactions: ['0xsent'] }));
    expect(store.settlementBegins({ ...payment, since: 5_000 })).toBe(true);
    store.close();
  });

  it('reads and upgrades a file whose pending settlements each named one transaction, opened by two at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coffer-paywall-'));
    try {
      const file = join(dir, 'paywall.db');
      const old = openConnection(file);
      old.exec(`CREATE TABLE pending_settlements (nonce TEXT PRIMARY KEY, authorization_digest TEXT NOT NULL, tx_signature TEXT NOT NULL,
          payer TEXT NOT NULL, nonce_expires_at INTEGER NOT NULL) STRICT;
        INSERT INTO pending_settlements VALUES ('n1', 'digest-1', '0xsent', 'p', 300000);`);
      old.close();
      const [first, beside] = [openPaywallStore(file), openPaywallStore(file)];
      expect(first.pendingSettlement('n1')).toEqual(remembered({ transactions: ['0xsent'] }));
      beside.settlementNamed({ ...payment, transaction: '0xsent-2' });
      expect(first.pendingSettlement('n1')).toEqual(remembered({ transactions: ['0xsent', '0xsent-2'] }));
      // What an older paywall reads and writes: the latest transaction named, alone.
      first.close();
      beside.close();
      const raw = openConnection(file);
      expect(raw.prepare("SELECT tx_signature FROM pending_settlements WHERE nonce = 'n1'").pluck().get()).toBe('0xsent-2');
      raw.prepare("UPDATE pending_settlements SET tx_signature = '0xsent-3' WHERE nonce = 'n1'").run();
      raw.close();
      const again = openPaywallStore(file);
      expect(again.pendingSettlement('n1')!.transactions).toEqual(['0xsent', '0xsent-2', '0xsent-3']);
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is forgotten a day past its nonce’s end, with the accepted payments', () => {
    const store = openPaywallStore(':memory:');
    store.settlementBegins({ ...payment, since: 1_000 });
    store.prune(300_000 + 86_400_000);
    expect(store.pendingSettlement('n1')).not.toBeNull();
    store.prune(300_001 + 86_400_000);
    expect(store.pendingSettlement('n1')).toBeNull();
    store.close();
  });
});
