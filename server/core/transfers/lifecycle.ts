/**
 * The one lifecycle of every move of money: a payment (Coffer-sent or x402), an allocation, a return,
 * a faucet mint, a refund. This file orders its steps; the doors (payments/, treasury/,
 * generation/) say what is moved and what must hold.
 *
 *   earlier attempt?  the newest row under the request's Idempotency-Key answers a retry (earlierAttempt)
 *   sign              the transaction is signed; nothing is written yet, so a refusal after it moves nothing
 *   reserve + record  one write, no await: the door's checks (policy, balance net of what is pending,
 *                     archived, ...) and the row, written `pending` with its signed transaction
 *   submit            the same signed bytes are sent (by Coffer; an x402 payment's by the seller)
 *   settle            `confirmed`, or `failed` with why; announced and audited in the settling write
 *
 * On the embedded chain (its rail's `chainOf(ctx, rail).inLedger`) reserve, submit and settle are one commit: the chain's
 * state lives in the ledger's file, so a crash keeps the row, the transfer and its confirmation, or
 * none. Elsewhere the row is committed before anything is sent, and a row left `pending` (the process
 * stopped, the chain could not say) is settled against the chain at the next start (reconcile.ts)
 * from the same states:
 *
 *   pending    written with its signed transaction; it may be on its way, so it is never given up
 *              on until the chain says it can no longer land
 *   confirmed  landed
 *   failed     did not land and never will: refused by the chain (its code), or `dropped` (expired
 *              unseen; a retry under its key is then a first try, see neverLanded)
 */
import { CofferError, isCofferError } from '../../wire/errors.js';
import { audit, DAY_MS, type EngineContext } from '../context.js';
import { formatUsdc } from '../../wire/money.js';
import type { ChainInLedger, PreparedTransfer, TransactionFate } from '../ports/chain.js';
import type { CofferEvent } from '../events.js';
import type { SentTransaction, TransferKind, TransferOf, TransferRecord } from '../ports/store.js';
import { railOfAddress, type Rail } from '../../wire/rails.js';
import { WalletKeyMissing } from '../ports/keys.js';
import { chainOf } from '../rails.js';

/** A move's signed transaction (an x402 payment's id on chain is known only once it lands). */
export type SignedTransfer = SentTransaction;

/** A request's Idempotency-Key: the rows of these kinds under it answer a retry. */
export interface MoveKey<K extends TransferKind> {
  kinds: readonly K[];
  agentId: string | null;
  key: string;
  requestHash: string;
}

export interface Move<K extends TransferKind, S extends SignedTransfer = SignedTransfer> {
  kind: K;
  /** Who asked (the audit's actor). */
  actor: string;
  key: MoveKey<K> | null;
  /** Signs the transfer. A chain that cannot be asked is `chain_unavailable`; nothing is written. */
  sign(): Promise<S>;
  /**
   * Inside the one write: the checks (a refusal is thrown, and nothing is written) and the row to
   * write with its signed transaction. A row returned settled moves nothing (a refund kept in the
   * treasury).
   */
  reserve(signed: S): TransferOf<K>;
  /** In the same write, right after the row: what the move buys (generation: its task), so neither is kept without the other. */
  alsoWrite?(row: TransferOf<K>): void;
  /**
   * Once the write has committed and the row counts (pending, or landed on the embedded chain), before
   * anything is sent: what follows a reservation (a payment's warnings and breaker), judged on what
   * the reservation saw, whatever the chain then says. Must not throw.
   */
  counted?(row: TransferOf<K>): void;
  /** `coffer` sends the transaction; `seller`: it is handed out (x402) and stays pending until found on chain. */
  sentBy: 'coffer' | 'seller';
  /** The rail it moves on (its row says the same); Solana's when not said. */
  rail?: Rail;
}

/** The move, settled as far as it goes now; or the earlier attempt under its key, which answers instead. */
export type Moved<K extends TransferKind> = { row: TransferOf<K> } | { earlier: TransferOf<K> };

/**
 * A failed row whose transaction never landed and never can (expired unseen): no money moved, so a
 * retry under the same Idempotency-Key is a first try.
 */
export const neverLanded = (row: TransferRecord): boolean => row.status === 'failed' && row.errorCode === 'dropped';

/**
 * The settled earlier attempt under a request's Idempotency-Key, to answer its retry with; null when
 * there is none, or it never landed (then the retry is a first try). A different request under the
 * key is 409; one still in flight is waited for; one Coffer sent that the chain has not decided yet is
 * 502 (its outcome is unknown, so nothing may be tried again).
 */
export async function earlierAttempt<K extends TransferKind>(
  ctx: EngineContext,
  owner: string,
  key: MoveKey<K>,
  sentBy: 'coffer' | 'seller',
): Promise<TransferOf<K> | null> {
  const first = findUnderKey(ctx, owner, key);
  if (first === null) return null;
  checkSameRequest(first, key);
  const what = whatWords(first);
  await ctx.state.transfersInFlight.get(first.id)?.catch(() => undefined);
  const settled = (ctx.store.getTransfer(first.id) ?? first) as TransferOf<K>;
  if (neverLanded(settled)) return null;
  if (settled.status === 'pending' && sentBy === 'coffer') {
    throw new CofferError(
      'chain_unavailable',
      `the ${what} made with this Idempotency-Key is still waiting for the chain; ask again shortly`,
      {
        retryAfterSeconds: 15,
      },
    );
  }
  return settled;
}

const findUnderKey = <K extends TransferKind>(ctx: EngineContext, owner: string, key: MoveKey<K>) =>
  ctx.store.findByIdempotencyKey(key.kinds, owner, key.agentId, key.key, ctx.clock.now() - DAY_MS);

/**
 * The row that holds a request's Idempotency-Key now, looked up inside a write: null where none does
 * (none within the day, or the one there never landed, leaving the key a first try).
 */
export function takenUnderKey<K extends TransferKind>(ctx: EngineContext, owner: string, key: MoveKey<K>): TransferOf<K> | null {
  const first = findUnderKey(ctx, owner, key);
  return first === null || neverLanded(first) ? null : first;
}

/** A request under a key that another kind of move or another request took: 409. */
export function checkSameRequest<K extends TransferKind>(first: TransferRecord, key: MoveKey<K>): void {
  const what = whatWords(first);
  if (first.kind !== key.kinds[0]) {
    throw new CofferError(
      'idempotency_key_reused',
      `this Idempotency-Key was already used for ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}`,
    );
  }
  if (first.requestHash !== key.requestHash) {
    throw new CofferError('idempotency_key_reused', `this Idempotency-Key was already used for a different ${what}`);
  }
}

const whatWords = (row: TransferRecord) => (row.kind === 'faucet' ? 'faucet mint' : row.kind);

/**
 * Moves money: signed, then reserved and recorded in one write, then sent and settled (see the top of
 * this file). A refusal of the reservation or of the chain is thrown; a move whose key another request
 * took meanwhile answers that one's outcome. Resolves when the move is settled, or left pending for
 * reconciliation (the chain could not be reached after sending: it may still land).
 */
export async function moveMoney<K extends TransferKind, S extends SignedTransfer>(
  ctx: EngineContext,
  owner: string,
  move: Move<K, S>,
): Promise<Moved<K>> {
  let signed: S;
  try {
    signed = await move.sign();
  } catch (error) {
    throw error instanceof WalletKeyMissing ? keyMissing(ctx, owner, error, move.kind) : asChainError(error);
  }
  const ledger = move.sentBy === 'coffer' ? chainOf(ctx, move.rail ?? 'sol').inLedger : null;
  // The one write: checks, the row with its signed transaction, what it buys, and on the embedded
  // chain the transfer and its settlement. Null when another request took the key meanwhile.
  const reserved = ctx.store.transaction((): { row: TransferOf<K>; landing: Landing | null } | null => {
    if (move.key !== null && takenUnderKey(ctx, owner, move.key) !== null) return null;
    const row = move.reserve(signed);
    ctx.store.insertTransfer(row);
    move.alsoWrite?.(row);
    return { row, landing: ledger !== null && row.status === 'pending' ? landInCommit(ctx, ledger, row, move.actor) : null };
  });
  if (reserved === null) {
    // Another request under this key was reserved meanwhile: its outcome is this one's.
    const earlier = await earlierAttempt(ctx, owner, move.key as MoveKey<K>, move.sentBy);
    if (earlier === null) {
      throw new CofferError('chain_unavailable', 'the request made with this Idempotency-Key meanwhile was not sent; ask again', {
        retryAfterSeconds: 1,
      });
    }
    return { earlier };
  }
  const { row, landing } = reserved;
  if (landing === null || landing.refusal === null) move.counted?.(row);
  if (landing !== null) announceLanding(ctx, row, move.actor, landing);
  else if (move.sentBy === 'coffer' && row.status === 'pending') await tracked(ctx, row.id, submit(ctx, row, move.actor));
  return { row: (ctx.store.getTransfer(row.id) ?? row) as TransferOf<K> };
}

/**
 * What every row holds as its move is reserved: pending, with its signed transaction, under the
 * request's Idempotency-Key (the door adds what its kind holds).
 */
export const reservedWith = (
  ctx: EngineContext,
  signed: SignedTransfer,
  key: Pick<MoveKey<TransferKind>, 'key' | 'requestHash'> | null,
  rail: Rail = 'sol',
) => ({
  rail,
  status: 'pending' as const,
  txSignature: signed.txSignature,
  txWire: signed.txWire,
  lifetimeEnd: signed.lifetimeEnd,
  errorCode: null,
  idempotencyKey: key?.key ?? null,
  requestHash: key?.requestHash ?? null,
  createdAt: ctx.clock.now(),
  settledAt: null,
});

/**
 * A move this ledger holds no row of, found landed on chain (a held payment that the Coffer which
 * wrote the backup file this ledger was restored from paid after writing it): `write` takes out
 * what stood for it and answers its row, pending with the transaction found, settled confirmed in
 * the same commit, then announced. Nothing is sent.
 */
export function recordFoundLanded<R extends TransferRecord>(
  ctx: EngineContext,
  actor: string,
  write: () => R,
  /** Written after the row, in its commit (what it buys: an image's task names the payment), as moveMoney does. */
  alsoWrite?: (row: R) => void,
): R {
  const row = ctx.store.transaction(() => {
    const row = write();
    ctx.store.insertTransfer(row);
    alsoWrite?.(row);
    recordSettlement(ctx, row, actor, 'confirmed', null, 'chain');
    return row;
  });
  announceSettlement(ctx, row, 'confirmed', row.txSignature);
  return (ctx.store.getTransfer(row.id) ?? row) as R;
}

/** Resolves when every transfer in flight has finished, whatever its outcome. */
export async function settleActiveTransfers(ctx: EngineContext): Promise<void> {
  const inFlight = ctx.state.transfersInFlight;
  while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
}

/**
 * Confirms or fails a pending row by what the chain says of it (reconciliation, an x402 seller's
 * report checked on chain); the settlement and its audit row are one commit, then it is announced.
 * A row someone else settled meanwhile (a seller's report racing reconciliation) is left as it is,
 * and nothing is written or announced twice. Returns whether this call settled it.
 */
export function settleTransfer(
  ctx: EngineContext,
  row: TransferRecord,
  actor: string,
  status: 'confirmed' | 'failed',
  errorCode: string | null,
  landedAs?: string,
): boolean {
  const settled = recordSettlement(ctx, row, actor, status, errorCode, 'chain', landedAs);
  if (settled) announceSettlement(ctx, row, status, landedAs ?? row.txSignature);
  return settled;
}

/**
 * A pending row settled by its chain's word (reconciliation, an x402 seller's report checked on
 * chain): the one place a transaction's fate becomes a row's end. Landed is `confirmed`; failed on
 * chain is `chain_rejected`; never landed and never can is `dropped`, so its key may try again; not
 * seen yet stays pending. Returns what that word makes of the row (a row someone settled meanwhile
 * is left as they settled it).
 */
export function settleByFate(
  ctx: EngineContext,
  row: TransferRecord,
  actor: string,
  fate: TransactionFate,
): 'confirmed' | 'failed' | 'pending' {
  switch (fate.state) {
    case 'unknown':
      return 'pending';
    case 'dropped':
      settleTransfer(ctx, row, actor, 'failed', 'dropped');
      return 'failed';
    case 'failed':
      settleTransfer(ctx, row, actor, 'failed', 'chain_rejected', fate.landedAs);
      return 'failed';
    case 'succeeded':
      settleTransfer(ctx, row, actor, 'confirmed', null, fate.landedAs);
      return 'confirmed';
  }
}

/**
 * Who said how a row ended. `chain`: found on chain (landed, failed there, or expired unseen), which
 * the next start can read again, so the commit does not wait for the disk. `sender`: a refusal as it
 * was sent, possibly the RPC's preflight before the chain ever saw the transaction, which nothing could
 * say again: a power cut that lost it would leave the row pending, and reconciliation would send the
 * same bytes again (without preflight) for a payment its agent was told had failed. So it is fsynced.
 */
type SaidBy = 'chain' | 'sender';

/** What a row's audit rows say of it. */
function detailOf(row: TransferRecord): Record<string, unknown> {
  const amount = formatUsdc(row.amount);
  switch (row.kind) {
    case 'payment':
      return row.protocol === 'x402'
        ? { service: row.serviceId, amount, protocol: 'x402', resource: row.resource }
        : { service: row.serviceId, amount };
    case 'refund':
      return { amount, paymentId: row.paymentId, taskId: row.taskId };
    default:
      return { amount };
  }
}

function recordSettlement(
  ctx: EngineContext,
  row: TransferRecord,
  actor: string,
  status: 'confirmed' | 'failed',
  errorCode: string | null,
  saidBy: SaidBy,
  landedAs?: string,
): boolean {
  const write = () => {
    if (!ctx.store.settleTransfer(row, status, errorCode, ctx.clock.now(), landedAs)) return false;
    audit(ctx, {
      actor,
      owner: row.owner,
      agentId: row.agentId,
      action: `${row.kind}.${status}`,
      detail: { ...detailOf(row), id: row.id, errorCode },
    });
    return true;
  };
  // Said by the chain of a row already on disk with its signed transaction: lost to a power cut, it
  // is read from the chain again at the next start (reconcile.ts), so its commit does not wait for
  // the disk.
  return saidBy === 'chain' ? ctx.store.chainDerivedTransaction(write) : ctx.store.transaction(write);
}

function announceSettlement(ctx: EngineContext, row: TransferRecord, status: 'confirmed' | 'failed', txSignature: string | null): void {
  const event = settledEvent(row, status, txSignature);
  if (event !== null) ctx.events.emit(event);
}

function settledEvent(row: TransferRecord, status: 'confirmed' | 'failed', txSignature: string | null): CofferEvent | null {
  const amount = formatUsdc(row.amount);
  // Each move says its rail: a listener tells a Base payment from a Solana one (helper 183).
  const { owner, rail } = row;
  switch (row.kind) {
    case 'payment':
      return { type: 'payment', owner, agentId: row.agentId, paymentId: row.id, status, amount, service: row.serviceId, rail };
    case 'allocation':
      return { type: 'allocation', owner, agentId: row.agentId, allocationId: row.id, status, amount, rail };
    case 'return':
      return { type: 'return', owner, agentId: row.agentId, returnId: row.id, status, amount, rail };
    case 'faucet':
    case 'deposit':
      return status === 'confirmed' && txSignature !== null ? { type: 'deposit', owner, amount, txSignature, rail: row.rail } : null;
    case 'refund':
      return { type: 'refund', owner, agentId: row.agentId, refundId: row.id, paymentId: row.paymentId, status, amount, rail };
  }
}

/**
 * What happened to a transfer executed inside the ledger's commit (see landInCommit): landed or
 * refused, whether its row was settled in that commit, and why not when the settlement failed.
 */
interface Landing {
  refusal: CofferError | null;
  settled: boolean;
  unrecorded?: unknown;
}

/**
 * The embedded chain's unit of work, inside the reserving write: the transfer executes, and its row
 * is settled in the same commit. The chain's state has moved by then, so nothing after it may roll
 * the commit back: a settlement that fails is undone alone (its own savepoint) and the row stays
 * pending for reconciliation, which finds the transfer's fate on the chain.
 */
function landInCommit(ctx: EngineContext, ledger: ChainInLedger, row: TransferRecord, actor: string): Landing {
  const refusal = ledger.executeInCommit(signedOf(row));
  try {
    // Part of the reserving write, which decides its durability (the chain's state commits with it).
    const status = refusal === null ? 'confirmed' : 'failed';
    return { refusal, settled: recordSettlement(ctx, row, actor, status, failureCode(refusal), 'chain') };
  } catch (error) {
    return { refusal, settled: false, unrecorded: error };
  }
}

/** After the commit of a landing: announced, then the refusal (or the settlement that could not be written) thrown. */
function announceLanding(ctx: EngineContext, row: TransferRecord, actor: string, landing: Landing): void {
  const status = landing.refusal === null ? 'confirmed' : 'failed';
  if (landing.settled) announceSettlement(ctx, row, status, row.txSignature);
  if (landing.refusal !== null) throw landing.refusal;
  if ('unrecorded' in landing) {
    ctx.log(`${row.kind} ${row.id} (${actor}) landed but its settlement could not be written; reconciliation will`);
    throw new CofferError('internal', 'the transfer landed but could not be recorded yet; reconciliation will', {
      cause: landing.unrecorded,
    });
  }
}

/**
 * Sends a row's signed transaction (pending, committed) and confirms the row; a chain's refusal fails
 * it. When the chain cannot be reached after sending, the row stays pending for reconciliation: it may
 * still land, and marking it failed could let the same money be spent twice.
 */
async function submit(ctx: EngineContext, row: TransferRecord, actor: string): Promise<void> {
  let landedAs: string | undefined;
  try {
    landedAs = (await chainOf(ctx, row.rail).submitTransfer(signedOf(row))) ?? undefined;
  } catch (error) {
    if (isCofferError(error) && error.code !== 'chain_unavailable') {
      const code = failureCode(error);
      if (recordSettlement(ctx, row, actor, 'failed', code, 'sender')) announceSettlement(ctx, row, 'failed', row.txSignature);
    }
    throw asChainError(error);
  }
  let settled: boolean;
  try {
    settled = recordSettlement(ctx, row, actor, 'confirmed', null, 'chain', landedAs);
  } catch (error) {
    // The transfer landed regardless: the row stays pending and reconciliation confirms it.
    throw new CofferError('internal', 'the transfer landed but could not be recorded yet; reconciliation will', { cause: error });
  }
  if (settled) announceSettlement(ctx, row, 'confirmed', landedAs ?? row.txSignature);
}

/** A row Coffer sends, as the chain takes it: recorded with its whole signed transaction. */
function signedOf(row: TransferRecord): PreparedTransfer {
  const { txSignature, txWire, lifetimeEnd } = row;
  if (txSignature === null || txWire === null || lifetimeEnd === null) {
    throw new CofferError('internal', `${row.kind} ${row.id} has no signed transaction to send`);
  }
  return { txSignature, txWire, lifetimeEnd };
}

/**
 * A chain's refusal as a failed row records it, when it is sent: expired unseen is `dropped`, as
 * settleByFate says of a fate (never landed, so its key may try again).
 */
const failureCode = (refusal: CofferError | null): string | null =>
  refusal === null ? null : refusal.code === 'transaction_expired' ? 'dropped' : refusal.code;

/** Registers a row's sending as in flight until it ends, whatever its outcome. */
function tracked<T>(ctx: EngineContext, id: string, sending: Promise<T>): Promise<T> {
  const transfers = ctx.state.transfersInFlight;
  transfers.set(id, sending);
  void sending.then(
    () => transfers.delete(id),
    () => transfers.delete(id),
  );
  return sending;
}

/**
 * A move its wallet's key is not there to sign, said as such (it read as "the chain could not be
 * reached": helper 199), with what it means for this move (helper 201: a return's refusal spoke of
 * paying, and the agent it would empty can be archived only once it is empty). The treasury's key
 * signs every move on its rail (Solana's fee payer, Base's relayer): named as the treasury's, since it
 * holds up every move there (helper 202: it was said as the paying wallet's).
 */
function keyMissing(ctx: EngineContext, owner: string, error: WalletKeyMissing, kind: TransferKind): CofferError {
  const rail = railOfAddress(error.address);
  const what = rail === 'base' ? 'Base account' : 'Solana wallet';
  const treasuryOnRail = rail === 'sol' ? owner : ctx.store.railWallets('base', [owner]).get(owner);
  const lost = "is not in this Coffer's key store (lost, or not in the backup file it was restored from)";
  if (error.address === treasuryOnRail) {
    const signs = rail === 'base' ? 'sends every move on Base' : 'pays the fee of every move on Solana';
    return new CofferError(
      'wallet_key_missing',
      `the key of the treasury's ${what} ${error.address}, which ${signs}, ${lost}: nothing can be moved on ${rail === 'base' ? 'Base' : 'Solana'} until it is back, and nothing was`,
      { cause: error },
    );
  }
  const means =
    kind === 'payment'
      ? 'nothing can be paid from it, and nothing was'
      : kind === 'return'
        ? 'nothing can be moved from it, and nothing was: its money stays there, and its agent cannot be archived while it holds some'
        : 'nothing can be moved from it, and nothing was';
  return new CofferError('wallet_key_missing', `the key of the ${what} ${error.address} ${lost}: ${means}`, { cause: error });
}

function asChainError(error: unknown): CofferError {
  if (isCofferError(error)) return error;
  // Its first line only: a client's message may go on with the request it made (a node's URL, which
  // for a hosted RPC carries its key).
  const firstLine = String((error as Error)?.message ?? error).split('\n')[0];
  return new CofferError('chain_unavailable', `the chain could not be reached: ${firstLine}`, { cause: error });
}
