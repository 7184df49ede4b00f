import Database from 'better-sqlite3';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface IssuedNonce {
  nonce: string;
  resource: string;
  amount: bigint;
  issuedAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface AcceptedPayment {
  txSignature: string;
  nonce: string;
  payer: string;
  amount: bigint;
  acceptedAt: number;
}

/**
 * The paid API's memory: the nonces it handed out and the payments it accepted. Durable (SQLite), so
 * a restart does not reopen replays: a signature is accepted once, a nonce is used once, ever.
 */
export interface PaywallStore {
  issueNonce(nonce: IssuedNonce): void;
  getNonce(nonce: string): IssuedNonce | null;
  /** Records the payment and uses its nonce in one transaction; false when either was already taken. */
  accept(payment: AcceptedPayment): boolean;
  isAccepted(txSignature: string): boolean;
  /**
   * Forgets nonces (used or not) and accepted payments a day past their nonce's expiry: by then a
   * receipt is refused as expired anyway, so nothing can be replayed, and the tables stay small.
   */
  prune(now: number): void;
  close(): void;
}

export function openPaywallStore(file: string): PaywallStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = new Database(file);
  if (file !== ':memory:') chmodSync(file, 0o600);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS nonces (
      nonce TEXT PRIMARY KEY,
      resource TEXT NOT NULL,
      amount INTEGER NOT NULL,
      issued_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      used_at INTEGER
    ) STRICT;
    CREATE INDEX IF NOT EXISTS nonces_by_expiry ON nonces (expires_at);
    CREATE TABLE IF NOT EXISTS accepted_payments (
      tx_signature TEXT PRIMARY KEY,
      nonce TEXT NOT NULL UNIQUE,
      payer TEXT NOT NULL,
      amount INTEGER NOT NULL,
      accepted_at INTEGER NOT NULL
    ) STRICT;
  `);
  const insertNonce = db.prepare('INSERT INTO nonces (nonce, resource, amount, issued_at, expires_at) VALUES (?, ?, ?, ?, ?)');
  const getNonce = db.prepare('SELECT * FROM nonces WHERE nonce = ?').safeIntegers(true);
  const useNonce = db.prepare('UPDATE nonces SET used_at = ? WHERE nonce = ? AND used_at IS NULL');
  const insertPayment = db.prepare(
    'INSERT OR IGNORE INTO accepted_payments (tx_signature, nonce, payer, amount, accepted_at) VALUES (?, ?, ?, ?, ?)',
  );
  const isAccepted = db.prepare('SELECT 1 FROM accepted_payments WHERE tx_signature = ?').pluck();
  const pruneAccepted = db.prepare('DELETE FROM accepted_payments WHERE nonce IN (SELECT nonce FROM nonces WHERE expires_at < ?)');
  const pruneNonces = db.prepare('DELETE FROM nonces WHERE expires_at < ?');
  const prune = db.transaction((before: number) => {
    pruneAccepted.run(before);
    pruneNonces.run(before);
  });
  const accept = db.transaction((payment: AcceptedPayment): boolean => {
    if (useNonce.run(payment.acceptedAt, payment.nonce).changes !== 1) return false;
    if (insertPayment.run(payment.txSignature, payment.nonce, payment.payer, payment.amount, payment.acceptedAt).changes !== 1) {
      throw new AlreadyTaken();
    }
    return true;
  });
  return {
    issueNonce: (n) => void insertNonce.run(n.nonce, n.resource, n.amount, n.issuedAt, n.expiresAt),
    getNonce: (nonce) => {
      const row = getNonce.get(nonce) as Record<string, bigint | string | null> | undefined;
      if (!row) return null;
      return {
        nonce: String(row.nonce),
        resource: String(row.resource),
        amount: BigInt(row.amount as bigint),
        issuedAt: Number(row.issued_at),
        expiresAt: Number(row.expires_at),
        usedAt: row.used_at === null ? null : Number(row.used_at),
      };
    },
    accept: (payment) => {
      try {
        return accept.immediate(payment);
      } catch (error) {
        if (error instanceof AlreadyTaken) return false; // rolled back: the nonce stays unused
        throw error;
      }
    },
    isAccepted: (txSignature) => isAccepted.get(txSignature) !== undefined,
    prune: (now) => prune.immediate(now - 24 * 60 * 60 * 1000),
    close: () => db.close(),
  };
}

class AlreadyTaken extends Error {}
