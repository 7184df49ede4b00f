import { openConnection } from '../../store/sqlite-driver.js';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { NonceTerms } from './nonces.js';
import { pendingSettlementsIn, type PendingSettlements } from './pending-settlements.js';

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
 * The paid API's memory: the payments it accepted and the key its nonces are authenticated with
 * (see nonces.ts: unpaid nonces are not stored). Durable (SQLite), so a restart does not reopen
 * replays (a signature is accepted once, a nonce is used once) and nonces handed out before a
 * restart can still be paid after it.
 */
export interface PaywallStore extends Omit<PendingSettlements, 'prune'> {
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
  /** Whether a payment was accepted as the EIP-3009 authorization `payer` signed with `nonce` (the token runs it once). */
  isAuthorizationAccepted(payer: string, nonce: string): boolean;
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
  `);
  keyedByAuthorization(db);
  db.exec('CREATE INDEX IF NOT EXISTS accepted_by_authorization ON accepted_payments (authorization_nonce)');
  // The payer as kept (an authorization's signer, accepted-payment.ts), in either case: one account.
  const isAuthorizationAccepted = db
    .prepare("SELECT 1 FROM accepted_payments WHERE authorization_nonce = ? AND authorization_nonce != '' AND payer = ? COLLATE NOCASE")
    .pluck();
  const isNonceUsed = db.prepare('SELECT 1 FROM accepted_payments WHERE nonce = ?').pluck();
  const { prune: prunePending, ...pendingSettlements } = pendingSettlementsIn(db, (nonce) => isNonceUsed.get(nonce) !== undefined);
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
    isAuthorizationAccepted: (payer, nonce) => isAuthorizationAccepted.get(nonce.toLowerCase(), payer) !== undefined,
    ...pendingSettlements,
    prune: (now) => {
      prune.run(now - 24 * 60 * 60 * 1000);
      prunePending(now - 24 * 60 * 60 * 1000);
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
