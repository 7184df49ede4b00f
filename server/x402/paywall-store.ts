import { openConnection } from '../store/sqlite-driver.js';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { NonceTerms } from './nonces.js';

export interface AcceptedPayment {
  txSignature: string;
  /**
   * An x402 payment on an EVM chain: its EIP-3009 authorization's nonce. A facilitator may run
   * several authorizations in one transaction, each a payment of its own; anything else is its
   * transaction alone (left out).
   */
  authorization?: string;
  nonce: string;
  payer: string;
  amount: bigint;
  acceptedAt: number;
  /** When the nonce it paid stopped being payable: the record is needed until then (and a day). */
  nonceExpiresAt: number;
}

/**
 * An x402 v2 payment whose settlement began and was not seen through, under the paywall's nonce it
 * spends (settled-on-chain.ts): what a restarted paywall may settle it by. Remembered as its
 * settlement begins (on Base, where the chain can say where it ran), and with the transaction the
 * facilitator said it sent.
 */
export interface PendingSettlement {
  /** The paywall's nonce (extra.memo). */
  nonce: string;
  /** A digest of the whole payment as presented (its authorization or transaction, and signature). */
  digest: string;
  /** The transaction the facilitator last said it sent for it; null while it said none. */
  transaction: string | null;
  payer: string;
  /**
   * When a settlement of it began that the facilitator never answered (ms): the paywall stopped, or
   * the facilitator answered no more, after anything it sent. Null once it answered.
   */
  unansweredSince: number | null;
  nonceExpiresAt: number;
}

/** A payment's settlement under a nonce, as the paywall remembers what the facilitator did with it. */
type Settling = Pick<PendingSettlement, 'nonce' | 'digest' | 'payer' | 'nonceExpiresAt'>;

/**
 * The paid API's memory: the payments it accepted and the key its nonces are authenticated with
 * (see nonces.ts: unpaid nonces are not stored). Durable (SQLite), so a restart does not reopen
 * replays (a signature is accepted once, a nonce is used once) and nonces handed out before a
 * restart can still be paid after it.
 */
export interface PaywallStore {
  /**
   * The nonces' MAC key, made on first open. It is not a wallet key: whoever holds it can only make
   * nonces this API accepts, and each still has to be paid on chain at the route's price.
   */
  readonly nonceKey: Uint8Array;
  /** Records the payment; false when it (its transaction and authorization) or its nonce was already accepted. */
  accept(payment: AcceptedPayment): boolean;
  /** Whether a payment was accepted in this transaction (whichever authorization): a receipt naming it buys nothing more. */
  isAccepted(txSignature: string): boolean;
  isNonceUsed(nonce: string): boolean;
  /**
   * A settlement of the payment begins (unanswered since `since`). Another payment under the nonce
   * (signed again) takes its place; the same one keeps the transaction said before, and the earliest
   * unanswered beginning.
   */
  settlementBegins(payment: Settling & { since: number }): void;
  /**
   * The facilitator answered the payment's settlement: with the transaction it sent (left pending, or
   * failed after it sent), which takes the place of any said before, or with none (it sent nothing).
   */
  settlementAnswered(payment: Settling & { transaction: string | null }): void;
  pendingSettlement(nonce: string): PendingSettlement | null;
  /**
   * A nonce handed out by an older paywall that stored them, until it expires: a buyer who paid one
   * just before an upgrade still gets what was paid for.
   */
  storedNonce(nonce: string): NonceTerms | null;
  /**
   * Forgets accepted payments (and pending ones) a day past their nonce's expiry: by then a receipt
   * is refused as expired anyway, so nothing can be replayed, and the table stays small.
   */
  prune(now: number): void;
  close(): void;
}

export function openPaywallStore(file: string): PaywallStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = openConnection(file);
  if (file !== ':memory:') chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS paywall_meta (key TEXT PRIMARY KEY, value BLOB NOT NULL) STRICT;
    ${acceptedPayments('IF NOT EXISTS accepted_payments')}
    CREATE TABLE IF NOT EXISTS pending_settlements (
      nonce TEXT PRIMARY KEY,
      authorization_digest TEXT NOT NULL,
      tx_signature TEXT NOT NULL,
      payer TEXT NOT NULL,
      nonce_expires_at INTEGER NOT NULL,
      settling_since INTEGER NOT NULL DEFAULT 0
    ) STRICT;
  `);
  keyedByAuthorization(db);
  // A file of the paywall before payments were remembered as their settlement began (each of its
  // rows names the transaction sent); looked at and altered in one write, as below.
  db.transaction(() => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('pending_settlements') as string[];
    if (!columns.includes('settling_since'))
      db.exec('ALTER TABLE pending_settlements ADD COLUMN settling_since INTEGER NOT NULL DEFAULT 0');
  }).immediate();
  // Stored nonces were replaced by authenticated ones (nonces.ts); an older file's table is read
  // until its nonces expire, then dropped.
  const hasStoredNonces = () => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'nonces'").get() !== undefined;

  db.prepare('INSERT OR IGNORE INTO paywall_meta (key, value) VALUES (?, ?)').run('nonce_key', randomBytes(32));
  const nonceKey = new Uint8Array(db.prepare('SELECT value FROM paywall_meta WHERE key = ?').pluck().get('nonce_key') as Buffer);

  const insertPayment = db.prepare(
    // A transaction shared by payments only as several x402 authorizations it ran: a receipt naming a
    // transaction (no authorization) is refused beside any payment accepted in it, and the other way round.
    `INSERT OR IGNORE INTO accepted_payments (tx_signature, authorization_nonce, nonce, payer, amount, accepted_at, nonce_expires_at)
     SELECT @txSignature, @authorization, @nonce, @payer, @amount, @acceptedAt, @nonceExpiresAt
     WHERE NOT EXISTS (SELECT 1 FROM accepted_payments WHERE tx_signature = @txSignature AND (@authorization = '' OR authorization_nonce = ''))`,
  );
  const isAccepted = db.prepare('SELECT 1 FROM accepted_payments WHERE tx_signature = ?').pluck();
  const isNonceUsed = db.prepare('SELECT 1 FROM accepted_payments WHERE nonce = ?').pluck();
  // A transaction not said is '' in the file, an answered settlement's beginning 0. In an upsert's
  // SET every expression reads the row as it was.
  const settlementBegins = db.prepare(
    `INSERT INTO pending_settlements (nonce, authorization_digest, tx_signature, payer, nonce_expires_at, settling_since)
     VALUES (@nonce, @digest, '', @payer, @nonceExpiresAt, @since)
     ON CONFLICT (nonce) DO UPDATE SET
       tx_signature = CASE WHEN authorization_digest = excluded.authorization_digest THEN tx_signature ELSE '' END,
       settling_since = CASE WHEN authorization_digest = excluded.authorization_digest AND settling_since > 0
         THEN MIN(settling_since, excluded.settling_since) ELSE excluded.settling_since END,
       authorization_digest = excluded.authorization_digest, payer = excluded.payer`,
  );
  const settlementSent = db.prepare(
    `INSERT INTO pending_settlements (nonce, authorization_digest, tx_signature, payer, nonce_expires_at, settling_since)
     VALUES (@nonce, @digest, @transaction, @payer, @nonceExpiresAt, 0)
     ON CONFLICT (nonce) DO UPDATE SET
       tx_signature = excluded.tx_signature, settling_since = 0, authorization_digest = excluded.authorization_digest,
       payer = excluded.payer`,
  );
  const settlementSentNothing = db.prepare(
    'UPDATE pending_settlements SET settling_since = 0 WHERE nonce = @nonce AND authorization_digest = @digest',
  );
  const pendingSettlement = db.prepare(
    `SELECT nonce, authorization_digest AS digest, NULLIF(tx_signature, '') AS "transaction", payer,
       NULLIF(settling_since, 0) AS unansweredSince, nonce_expires_at AS nonceExpiresAt FROM pending_settlements WHERE nonce = ?`,
  );
  const prunePending = db.prepare('DELETE FROM pending_settlements WHERE nonce_expires_at < ?');
  // Rows from before nonce_expires_at existed are kept two days from their acceptance.
  const prune = db.prepare('DELETE FROM accepted_payments WHERE COALESCE(nonce_expires_at, accepted_at + 86400000) < ?');
  const storedNonce = (nonce: string): NonceTerms | null => {
    if (!hasStoredNonces()) return null;
    const row = db.prepare('SELECT resource, amount, issued_at, expires_at FROM nonces WHERE nonce = ?').safeIntegers(true).get(nonce) as
      { resource: string; amount: bigint; issued_at: bigint; expires_at: bigint } | undefined;
    return row ? { resource: row.resource, amount: row.amount, issuedAt: Number(row.issued_at), expiresAt: Number(row.expires_at) } : null;
  };
  const pruneStoredNonces = (before: number) => {
    if (!hasStoredNonces()) return;
    db.prepare('DELETE FROM nonces WHERE expires_at < ?').run(before);
    if (db.prepare('SELECT COUNT(*) FROM nonces').pluck().get() === 0) db.exec('DROP TABLE nonces');
  };
  return {
    nonceKey,
    storedNonce,
    // Both keys are unique: a second payment with the same transaction and authorization, or the same nonce, is ignored.
    accept: (payment) => insertPayment.run({ ...payment, authorization: payment.authorization ?? '' }).changes === 1,
    isAccepted: (txSignature) => isAccepted.get(txSignature) !== undefined,
    isNonceUsed: (nonce) => isNonceUsed.get(nonce) !== undefined,
    settlementBegins: (payment) => void settlementBegins.run(payment),
    settlementAnswered: ({ transaction, ...payment }) =>
      void (transaction === null
        ? settlementSentNothing.run({ nonce: payment.nonce, digest: payment.digest })
        : settlementSent.run({ ...payment, transaction })),
    pendingSettlement: (nonce) => (pendingSettlement.get(nonce) as PendingSettlement | undefined) ?? null,
    prune: (now) => {
      prune.run(now - 24 * 60 * 60 * 1000);
      prunePending.run(now - 24 * 60 * 60 * 1000);
      pruneStoredNonces(now - 24 * 60 * 60 * 1000);
    },
    close: () => db.close(),
  };
}

/** The accepted payments' table: a payment is its transaction and, for an x402 payment on an EVM chain, its authorization. */
const acceptedPayments = (name: string) => `CREATE TABLE ${name} (
      tx_signature TEXT NOT NULL,
      authorization_nonce TEXT NOT NULL DEFAULT '',
      nonce TEXT NOT NULL UNIQUE,
      payer TEXT NOT NULL,
      amount INTEGER NOT NULL,
      accepted_at INTEGER NOT NULL,
      nonce_expires_at INTEGER,
      PRIMARY KEY (tx_signature, authorization_nonce)
    ) STRICT;`;

/**
 * An older file keyed an accepted payment by its transaction alone: a second x402 payment a
 * facilitator ran in the same transaction was refused after its money had moved. The table is
 * copied once into one keyed by the transaction and the payment's authorization (SQLite changes a
 * key only so), every row kept.
 */
function keyedByAuthorization(db: ReturnType<typeof openConnection>): void {
  // Looked at and copied in one write: two processes opening an older file copy it once.
  db.transaction(() => {
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('accepted_payments') as string[];
    if (columns.includes('authorization_nonce')) return;
    if (!columns.includes('nonce_expires_at')) db.exec('ALTER TABLE accepted_payments ADD COLUMN nonce_expires_at INTEGER');
    db.exec(`
      ${acceptedPayments('accepted_payments_2')}
      INSERT INTO accepted_payments_2 (tx_signature, nonce, payer, amount, accepted_at, nonce_expires_at)
        SELECT tx_signature, nonce, payer, amount, accepted_at, nonce_expires_at FROM accepted_payments;
      DROP TABLE accepted_payments;
      ALTER TABLE accepted_payments_2 RENAME TO accepted_payments;
    `);
  }).immediate();
}
