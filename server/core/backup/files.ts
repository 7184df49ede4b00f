import { actorOf, FRESH_FOR, requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { audit, type ContextWith, type EngineContext } from '../context.js';
import type { BackupWritten, WalletsToBackUp } from '../ports/backup.js';
import type { AgentStore, MetaStore } from '../ports/store.js';
import type { BackupFileBody } from '../../wire/schemas.js';
import { iso } from '../../wire/views.js';
import type { BackupFileView } from '../../wire/answers/backup.js';

/** The last backup file written for an owner (JSON of LastBackupFile). */
const lastFileMeta = (owner: string) => `backup.last_file:${owner}`;

export interface LastBackupFile {
  at: number;
  bytes: number;
  wallets: number;
  walletsWithoutKey: string[];
}

/**
 * Every wallet whose key a backup must hold: each treasury, every agent's wallet (archived ones too:
 * an archived wallet may still hold USDC) and each chain adapter's own (the embedded Solana chain's
 * mint, the embedded EVM chain's faucet: without its key a restored Coffer mints no test USDC on Base).
 * Read after the ledger is copied, so it names at least every wallet the copy names.
 */
export function walletsToBackUp(ctx: EngineContext): WalletsToBackUp {
  const treasuries = ctx.store.listOwners().map((owner) => owner.address);
  const agents = treasuries.flatMap((owner) => [...ctx.store.listAgents(owner), ...ctx.store.listArchivedAgents(owner)]);
  const own = [...ctx.chain.ownWallets(), ...(ctx.base?.ownWallets() ?? [])];
  return { treasuries, wallets: [...agents.map((agent) => agent.walletAddress), ...own] };
}

/**
 * Writes an encrypted backup file (the ledger and every wallet's key) into `folder`, for the owner
 * to take away. Owner only, and from a dashboard session only within ten minutes of signing in:
 * whoever chooses the passphrase of a backup holds every wallet it carries. Audited, without the
 * passphrase.
 */
export async function writeBackupFile(
  ctx: EngineContext,
  principal: Principal,
  body: BackupFileBody,
  folder: string,
): Promise<BackupWritten> {
  requireOwner(principal);
  requireFreshSignIn(principal, ctx.clock.now(), FRESH_FOR.backup);
  const written = await ctx.backups.write({
    folder,
    passphrase: body.passphrase,
    at: ctx.clock.now(),
    wallets: () => walletsToBackUp(ctx),
  });
  recordBackupFile(ctx, principal.owner, written, actorOf(principal));
  return written;
}

/** A backup file written: the status's `lastFile`, the audit log and the event stream say so. */
export function recordBackupFile(ctx: EngineContext, owner: string, written: BackupWritten, actor: string): void {
  const last: LastBackupFile = {
    at: ctx.clock.now(),
    bytes: written.bytes,
    wallets: written.wallets,
    walletsWithoutKey: written.walletsWithoutKey,
  };
  ctx.store.transaction(() => {
    ctx.store.setMeta(lastFileMeta(owner), JSON.stringify(last));
    audit(ctx, {
      actor,
      owner,
      action: 'backup.file_written',
      detail: { bytes: written.bytes, wallets: written.wallets, walletsWithoutKey: written.walletsWithoutKey },
    });
  });
  ctx.events.emit({ type: 'backup', owner, file: 'written' });
}

/**
 * Where the ledger copy inside a backup file names the wallets whose key the file lacks, as its
 * writer found them (a Solana wallet by its address, a Base account by its 0x address), for the
 * Coffer restored from it to say (helper 199: a Base account's key missing, restored "Backed up.").
 * Taken out of the ledger as it is restored.
 */
export const FILE_LACKS_KEYS_META = 'backup.file_lacks_keys';

/** What FILE_LACKS_KEYS_META held, read back; null where the file is older than it, or it is unreadable. */
export function lackedKeysOf(stored: string | undefined): string[] | null {
  if (stored === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) && parsed.every((each) => typeof each === 'string') ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * The meta a restored ledger takes from the file it was restored from, for each of its treasuries:
 * that file is its last backup file (helper 196: a treasury just restored said "NOT BACKED UP"), with
 * the wallets of the ledger whose key it lacked. Written by the restore, before the ledger is opened.
 */
export function restoredFromFile(owners: string[], file: LastBackupFile, heldPayments: string[]): Record<string, string> {
  return {
    ...Object.fromEntries(owners.map((owner) => [lastFileMeta(owner), JSON.stringify(file)])),
    [HELD_WHEN_RESTORED_META]: JSON.stringify(heldPayments),
  };
}

/** The payments held in the file this ledger was last restored from (JSON of their ids). */
const HELD_WHEN_RESTORED_META = 'backup.held_when_restored';

/**
 * Whether a payment was held in the backup file this ledger was restored from: then the Coffer that
 * wrote the file may have been told yes since, and paid it. Named by id, not by time: a hold written
 * while the file was being written is in it, and the two Coffers' clocks may differ.
 */
export function heldWhenRestored(ctx: ContextWith<MetaStore>, paymentId: string): boolean {
  const stored = ctx.store.getMeta(HELD_WHEN_RESTORED_META);
  return stored !== null && (JSON.parse(stored) as string[]).includes(paymentId);
}

const readLastFile = (ctx: ContextWith<MetaStore>, owner: string): LastBackupFile | null => {
  const stored = ctx.store.getMeta(lastFileMeta(owner));
  return stored === null ? null : (JSON.parse(stored) as LastBackupFile);
};

/** The last backup file written, as the status shows it; null before the first. */
export function lastBackupFile(ctx: ContextWith<MetaStore>, owner: string): BackupFileView | null {
  const last = readLastFile(ctx, owner);
  return last === null ? null : { at: iso(last.at), bytes: last.bytes, wallets: last.wallets, walletsWithoutKey: last.walletsWithoutKey };
}

/**
 * Whether the last backup file holds the key of every wallet the owner has now: an agent made since
 * (its key random, without a recovery phrase) is in no file yet.
 */
export function lastFileHoldsEveryWallet(ctx: ContextWith<MetaStore & AgentStore>, owner: string): boolean {
  const last = readLastFile(ctx, owner);
  if (last === null || last.walletsWithoutKey.length > 0) return false;
  return [...ctx.store.listAgents(owner), ...ctx.store.listArchivedAgents(owner)].every((agent) => agent.createdAt <= last.at);
}
