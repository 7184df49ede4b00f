import { existsSync } from 'node:fs';
import { openConnection, type SqliteDatabase } from './sqlite-driver.js';
import { MIGRATIONS } from './migrations.js';

/**
 * Copies the open ledger into `file` (a new file) with SQLite's online backup: page by page between
 * the engine's own writes, which the copy follows as they commit, so it is the ledger of one moment
 * (the embedded chain's accounts included, which live in the same file) while payments go on.
 */
export async function snapshotLedger(db: SqliteDatabase, file: string): Promise<{ schemaVersion: number }> {
  await db.backup(file);
  return { schemaVersion: schemaVersionOf(db) };
}

/** What a ledger file read from a backup holds, once SQLite's integrity check passed; null when it is no ledger or fails it. */
export function inspectLedger(file: string): { schemaVersion: number; network: string | null; owners: string[] } | null {
  let db: SqliteDatabase | undefined;
  try {
    db = openConnection(file, { readonly: true, fileMustExist: true });
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') return null;
    const network = db.prepare("SELECT value FROM meta WHERE key = 'network'").pluck().get() as string | undefined;
    const owners = db.prepare('SELECT address FROM owners ORDER BY address').pluck().all() as string[];
    return { schemaVersion: schemaVersionOf(db), network: network ?? null, owners };
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/**
 * Takes `keys` out of a ledger file's meta (a restored copy, before it takes its name): the values
 * it held, of those it held.
 */
export function takeMeta(file: string, keys: string[]): string[] {
  const db = openConnection(file, { fileMustExist: true });
  try {
    const read = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    const remove = db.prepare('DELETE FROM meta WHERE key = ?');
    return db.transaction(() =>
      keys.flatMap((key) => {
        const value = read.get(key) as string | undefined;
        remove.run(key);
        return value === undefined ? [] : [value];
      }),
    )();
  } finally {
    db.close();
  }
}

/** A wallet a ledger names, and whose it is: a treasury's (`agentId` null) or an agent's, on one rail. */
export interface LedgerWallet {
  address: string;
  rail: 'sol' | 'base';
  agentId: string | null;
}

/** Every wallet a ledger file names: its treasuries' and its agents' (archived ones too), on Solana and Base. */
export function walletsOfLedger(file: string): LedgerWallet[] {
  const db = openConnection(file, { readonly: true, fileMustExist: true });
  try {
    const solana = db
      .prepare("SELECT address, 'sol' AS rail, NULL AS agentId FROM owners UNION ALL SELECT wallet_address, 'sol', agent_id FROM agents")
      .all() as LedgerWallet[];
    // A ledger from before the Base rail has no rail_wallets.
    const hasBase = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rail_wallets'").get() !== undefined;
    const base = hasBase
      ? (db
          .prepare(
            "SELECT r.address, 'base' AS rail, a.agent_id AS agentId FROM rail_wallets r LEFT JOIN agents a ON a.wallet_address = r.wallet WHERE r.rail = 'base'",
          )
          .all() as LedgerWallet[])
      : [];
    return [...solana, ...base];
  } finally {
    db.close();
  }
}

/** What a restored ledger holds for its owner to be told at once: its agents (not archived) and whether each is stopped, and the requests waiting. */
export function ledgerAtAGlance(file: string): { agents: { agentId: string; stopped: boolean }[]; waitingRequests: number } {
  const db = openConnection(file, { readonly: true, fileMustExist: true });
  try {
    const agents = db
      .prepare('SELECT agent_id AS agentId, status FROM agents WHERE archived_at IS NULL ORDER BY created_at, agent_id')
      .all() as { agentId: string; status: string }[];
    const waitingRequests = db.prepare("SELECT COUNT(*) FROM approvals WHERE status = 'pending'").pluck().get() as number;
    return { agents: agents.map(({ agentId, status }) => ({ agentId, stopped: status === 'suspended' })), waitingRequests };
  } finally {
    db.close();
  }
}

/** The ids of the payments a ledger file holds for the owner's yes. */
export function heldPaymentsOf(file: string): string[] {
  const db = openConnection(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT id FROM transfers WHERE kind = 'payment' AND status = 'held'").pluck().all() as string[];
  } finally {
    db.close();
  }
}

/** Sets `entries` in a ledger file's meta: the copy a backup seals, or a restored copy before it takes its name. */
export function putMeta(file: string, entries: Record<string, string>): void {
  const db = openConnection(file, { fileMustExist: true });
  try {
    const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    db.transaction(() => Object.entries(entries).forEach(([key, value]) => put.run(key, value)))();
  } finally {
    db.close();
  }
}

/** The newest schema a ledger was brought to (migrations.ts), and the newest this build knows. */
const schemaVersionOf = (db: SqliteDatabase) => db.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get() as number;
export const KNOWN_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/**
 * Whether a ledger file records a treasury: `absent` (no file), `empty` (a ledger with no owner yet:
 * a first start, or a restore from the phrase, cut short before its one commit of the owner), or
 * `treasury`. A file that cannot be read counts as a treasury: it may hold one, and nothing may
 * replace it.
 */
export function ledgerState(file: string): 'absent' | 'empty' | 'treasury' {
  if (!existsSync(file)) return 'absent';
  let db: SqliteDatabase | undefined;
  try {
    db = openConnection(file, { readonly: true, fileMustExist: true });
    const hasOwners = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'owners'").pluck().get() !== undefined;
    return hasOwners && db.prepare('SELECT 1 FROM owners LIMIT 1').pluck().get() !== undefined ? 'treasury' : 'empty';
  } catch {
    return 'treasury';
  } finally {
    db?.close();
  }
}
