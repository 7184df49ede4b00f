/**
 * What a paywall remembers of an x402 payment whose settlement began and was not seen through,
 * under the paywall's nonce it spends, or a v1 payment's digest (`v1:<digest>`, payment-claims.ts
 * claimOf): the transactions the facilitator named for it, and when a settlement of it began that the facilitator never answered.
 * In the paywall's own SQLite file (paywall-store.ts), so a restarted paywall can settle it.
 */
import type { SqliteDatabase } from '../../store/sqlite-driver.js';

export interface PendingSettlement {
  /** The paywall's nonce (extra.memo), or `v1:<digest>` for a v1 payment. */
  nonce: string;
  /** A digest of the payment (its authorization's fields, or its transaction's message: settled-on-chain.ts). */
  digest: string;
  /**
   * The transactions the facilitator named for it (settled, left pending, or failed after it sent),
   * oldest first: a facilitator that lost what it sent may send it again, and the first may be the
   * one that runs.
   */
  transactions: string[];
  /**
   * The transaction the facilitator answered the payment settled in, and when (ms, this host's
   * clock), where it did: one the seller's node does not know is not known here yet for a while (its
   * node behind the facilitator's), not "not paid" (settled-on-chain.ts NODE_CATCH_UP_MS).
   */
  settled: { transaction: string; at: number } | null;
  payer: string;
  /**
   * The earliest beginning (ms) of a settlement of it the facilitator did not answer: the paywall
   * stopped, or the facilitator answered no more or failed without saying whether it sent. The chain
   * is searched from there. Null where each one was answered.
   */
  unansweredSince: number | null;
  nonceExpiresAt: number;
}

/** A payment's settlement under a nonce, as the paywall remembers what the facilitator did with it. */
type SettlingPayment = Pick<PendingSettlement, 'nonce' | 'digest' | 'payer' | 'nonceExpiresAt'>;

export interface PendingSettlements {
  /**
   * A settlement of the payment begins at `since`: true. Of the same payment, what was named is kept,
   * and a settlement begun before and never answered stays unanswered. False, with nothing written,
   * where another payment is remembered under the nonce (signed again, or by another buyer, in this
   * process or another sharing the file): its settlement may have moved money or may yet, and it
   * keeps the nonce until it is accepted or pruned; and where a payment under the nonce was accepted
   * (by another process sharing the file, since this one found the nonce unused).
   */
  settlementBegins(payment: SettlingPayment & { since: number }): boolean;
  /**
   * The facilitator named the transaction it sent (left pending, or failed after sending; or, with
   * `settledAt`, answered then that the payment settled in it): the settlement in flight is
   * answered. Nothing is written over another payment's row.
   */
  settlementNamed(payment: SettlingPayment & { transaction: string; settledAt?: number }): void;
  /**
   * The facilitator said the payment's authorization ran before it sent anything: the settlement in
   * flight is answered, and ran nowhere of its doing (one begun before, never answered, may have).
   */
  settlementRanElsewhere(payment: Pick<SettlingPayment, 'nonce' | 'digest'>): void;
  pendingSettlement(nonce: string): PendingSettlement | null;
  /** The payment under `nonce` was accepted (its one answer given): nothing of its settlement is kept. */
  settlementAccepted(nonce: string): void;
  /**
   * The payment remembered as `former` (its claim and digest) is remembered as `now` from here on;
   * nothing changes where none is, or one is already remembered under `now`'s claim.
   */
  settlementDigestChanged(former: Pick<SettlingPayment, 'nonce' | 'digest'>, now: Pick<SettlingPayment, 'nonce' | 'digest'>): void;
  /** Whether this very payment (its digest) is remembered under another of the paywall's nonces than `nonce`. */
  settlingUnderAnotherNonce(nonce: string, digest: string): boolean;
  /** Forgets the payments whose nonce ended before `before`. */
  prune(before: number): void;
}

/** The transactions kept for a payment: each facilitator's try, bounded (the first and the latest 7), and the one said settled. */
const MOST_NAMED = 8;

/**
 * The table in a paywall's file, created or brought up to date. Columns: the latest transaction
 * named (`tx_signature`, '' for none: what an older paywall reads), all of them space-separated,
 * the settlement in flight (`settling_since`, 0 for none), the earliest one before it never
 * answered (`unanswered_since`, 0 for none), and the transaction the facilitator said it settled in
 * and when (`settled_transaction`, `settled_at`: '' and 0 for none).
 */
export function pendingSettlementsIn(
  db: SqliteDatabase,
  /** Whether a payment under the nonce was accepted (paywall-store.ts), read inside the same write. */
  accepted: (nonce: string) => boolean,
): PendingSettlements {
  db.exec(`CREATE TABLE IF NOT EXISTS pending_settlements (
      nonce TEXT PRIMARY KEY,
      authorization_digest TEXT NOT NULL,
      tx_signature TEXT NOT NULL,
      payer TEXT NOT NULL,
      nonce_expires_at INTEGER NOT NULL
    ) STRICT;`);
  db.exec('CREATE INDEX IF NOT EXISTS pending_settlements_by_digest ON pending_settlements (authorization_digest)');
  // An older file's rows each name the one transaction sent: looked at and altered in one write (two
  // processes opening it alter it once).
  db.transaction(() => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('pending_settlements') as string[];
    for (const [column, type] of [
      ['tx_signatures', "TEXT NOT NULL DEFAULT ''"],
      ['settling_since', 'INTEGER NOT NULL DEFAULT 0'],
      ['unanswered_since', 'INTEGER NOT NULL DEFAULT 0'],
      ['settled_transaction', "TEXT NOT NULL DEFAULT ''"],
      ['settled_at', 'INTEGER NOT NULL DEFAULT 0'],
    ]) {
      if (!columns.includes(column!)) db.exec(`ALTER TABLE pending_settlements ADD COLUMN ${column} ${type}`);
    }
  }).immediate();

  type Row = {
    digest: string;
    latest: string;
    named: string;
    payer: string;
    settlingSince: number;
    unansweredSince: number;
    settledIn: string;
    settledAt: number;
    nonceExpiresAt: number;
  };
  const select = db.prepare(
    `SELECT authorization_digest AS digest, tx_signature AS latest, tx_signatures AS named, payer, settling_since AS settlingSince,
       unanswered_since AS unansweredSince, settled_transaction AS settledIn, settled_at AS settledAt,
       nonce_expires_at AS nonceExpiresAt
     FROM pending_settlements WHERE nonce = ?`,
  );
  const upsert = db.prepare(
    `INSERT INTO pending_settlements (nonce, authorization_digest, tx_signature, tx_signatures, payer, nonce_expires_at, settling_since,
       unanswered_since, settled_transaction, settled_at)
     VALUES (@nonce, @digest, @latest, @named, @payer, @nonceExpiresAt, @settlingSince, @unansweredSince, @settledIn, @settledAt)
     ON CONFLICT (nonce) DO UPDATE SET authorization_digest = excluded.authorization_digest, tx_signature = excluded.tx_signature,
       tx_signatures = excluded.tx_signatures, payer = excluded.payer, settling_since = excluded.settling_since,
       unanswered_since = excluded.unanswered_since, settled_transaction = excluded.settled_transaction,
       settled_at = excluded.settled_at`,
  );
  const prune = db.prepare('DELETE FROM pending_settlements WHERE nonce_expires_at < ?');
  const forget = db.prepare('DELETE FROM pending_settlements WHERE nonce = ?');
  const renamed = db.prepare(
    `UPDATE OR IGNORE pending_settlements SET nonce = @toNonce, authorization_digest = @toDigest
     WHERE nonce = @fromNonce AND authorization_digest = @fromDigest`,
  );
  const underAnother = db.prepare('SELECT 1 FROM pending_settlements WHERE authorization_digest = ? AND nonce <> ? LIMIT 1').pluck();
  /**
   * The transactions a row names: an older paywall's, in `tx_signature` alone (a file it wrote, or a
   * transaction it named since: the latest is not the list's last).
   */
  const namedIn = (row: Row) => {
    const named = row.named === '' ? [] : row.named.split(' ');
    return row.latest === '' || named.at(-1) === row.latest ? named : [...named.filter((sent) => sent !== row.latest), row.latest];
  };
  /** The payment's row as it stands, where it is this payment's (same digest); null otherwise. */
  const ofPayment = (nonce: string, digest: string) => {
    const row = select.get(nonce) as Row | undefined;
    return row !== undefined && row.digest === digest ? row : null;
  };
  /** Whether another payment than this one is remembered under its nonce. */
  const anotherPayment = ({ nonce, digest }: Pick<SettlingPayment, 'nonce' | 'digest'>) => {
    const row = select.get(nonce) as Row | undefined;
    return row !== undefined && row.digest !== digest;
  };
  const earliest = (a: number, b: number) => (a === 0 ? b : b === 0 ? a : Math.min(a, b));
  type Said = Pick<Row, 'settledIn' | 'settledAt'>;
  const NOTHING_SAID: Said = { settledIn: '', settledAt: 0 };
  const saidOf = (row: Row | null): Said => (row === null ? NOTHING_SAID : { settledIn: row.settledIn, settledAt: row.settledAt });
  const write = (payment: SettlingPayment, named: string[], settlingSince: number, unansweredSince: number, said: Said) =>
    upsert.run({ ...payment, latest: named.at(-1) ?? '', named: named.join(' '), settlingSince, unansweredSince, ...said });

  // Each is read and written in one immediate write: processes sharing the file take turns.
  const begins = db.transaction((payment: SettlingPayment & { since: number }): boolean => {
    if (accepted(payment.nonce) || anotherPayment(payment)) return false;
    const row = ofPayment(payment.nonce, payment.digest);
    // One begun before and never answered (the paywall stopped) stays in the search.
    const unanswered = row === null ? 0 : earliest(row.unansweredSince, row.settlingSince);
    // A settlement resumed without a verify knows no payer: the one remembered stays.
    const payer = payment.payer || (row?.payer ?? '');
    write({ ...payment, payer }, row === null ? [] : namedIn(row), payment.since, unanswered, saidOf(row));
    return true;
  });
  const named = db.transaction(({ settledAt, ...payment }: SettlingPayment & { transaction: string; settledAt?: number }) => {
    if (anotherPayment(payment)) return;
    const row = ofPayment(payment.nonce, payment.digest);
    const sent = [...(row === null ? [] : namedIn(row)).filter((earlier) => earlier !== payment.transaction), payment.transaction];
    // What it said settled stays said: a later try's answer does not unsay it.
    const said = settledAt === undefined ? saidOf(row) : { settledIn: payment.transaction, settledAt };
    // The first is kept (sent first from one account, it runs first) and the latest, and beside them
    // the one said settled (asked about as settled: settled-on-chain.ts ranIn).
    const first = sent[0]!;
    const latest = sent.slice(1 - MOST_NAMED);
    const settled = said.settledIn !== '' && said.settledIn !== first && !latest.includes(said.settledIn) ? [said.settledIn] : [];
    const kept = sent.length > MOST_NAMED ? [first, ...settled, ...latest] : sent;
    write({ ...payment, payer: payment.payer || (row?.payer ?? '') }, kept, 0, row?.unansweredSince ?? 0, said);
  });
  const ranElsewhere = db.transaction(({ nonce, digest }: Pick<SettlingPayment, 'nonce' | 'digest'>) => {
    const row = ofPayment(nonce, digest);
    if (row !== null) write({ ...row, nonce }, namedIn(row), 0, row.unansweredSince, saidOf(row));
  });
  return {
    settlementBegins: (payment) => begins.immediate(payment),
    settlementNamed: (payment) => named.immediate(payment),
    settlementRanElsewhere: (payment) => ranElsewhere.immediate(payment),
    pendingSettlement(nonce) {
      const row = select.get(nonce) as Row | undefined;
      if (row === undefined) return null;
      const since = earliest(row.settlingSince, row.unansweredSince);
      const { digest, payer, nonceExpiresAt } = row;
      const settled = row.settledIn === '' ? null : { transaction: row.settledIn, at: row.settledAt };
      return { nonce, digest, transactions: namedIn(row), settled, payer, unansweredSince: since === 0 ? null : since, nonceExpiresAt };
    },
    settlementAccepted: (nonce) => void forget.run(nonce),
    settlementDigestChanged: (former, now) =>
      void renamed.run({ fromNonce: former.nonce, fromDigest: former.digest, toNonce: now.nonce, toDigest: now.digest }),
    settlingUnderAnotherNonce: (nonce, digest) => underAnother.get(digest, nonce) !== undefined,
    prune: (before) => void prune.run(before),
  };
}
