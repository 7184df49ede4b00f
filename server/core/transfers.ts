import { CofferError, isCofferError } from './errors.js';
import { audit, type EngineContext } from './context.js';
import type { ChainInLedger, PreparedTransfer } from './ports/chain.js';
import type { CofferEvent } from './events.js';
import type { SentTransaction } from './ports/store.js';

/**
 * A ledger row reserved as pending (a payment, an allocation, a sim faucet mint), and what its audit
 * rows say.
 */
interface ReservedRow {
  id: string;
  owner: string;
  actor: string;
  detail: Record<string, unknown>;
}
export type ReservedTransfer =
  | (ReservedRow & { kind: 'payment' | 'allocation' | 'return' | 'refund'; agentId: string })
  | (ReservedRow & { kind: 'faucet'; agentId: null });

/**
 * A settled row whose transaction never reached the chain and never can: it was never signed (the
 * process stopped first, or the chain could not be asked for a blockhash), or it was signed but
 * expired unseen (`dropped`). No money moved, so a retry under the same Idempotency-Key is a first try.
 */
export const neverSent = (row: { status: string; txSignature: string | null; errorCode: string | null }): boolean =>
  row.status === 'failed' && (row.txSignature === null || row.errorCode === 'dropped');

/** What a replay gives back when the first attempt never reached the chain: try again, as a first try. */
export const NOT_SENT = Symbol('not sent');

/** A ledger row's transfer fields when it is reserved: pending, nothing signed or sent yet. */
export const UNSENT = {
  status: 'pending',
  txSignature: null,
  txWire: null,
  lastValidBlockHeight: null,
  errorCode: null,
  settledAt: null,
} as const;

/**
 * The answer of a request that lost the race to another one reserved under the same Idempotency-Key
 * meanwhile: that one's outcome; or, when it never reached the chain, "ask again" (the key is free now).
 */
export async function outcomeOfRace<T>(replayed: Promise<T | typeof NOT_SENT>, what: string): Promise<T> {
  const outcome = await replayed;
  if (outcome === NOT_SENT) {
    throw new CofferError('chain_unavailable', `the ${what} made with this Idempotency-Key meanwhile was not sent; ask again`, {
      retryAfterSeconds: 1,
    });
  }
  return outcome;
}

/**
 * The settled first attempt under an Idempotency-Key, for its replay. A different request under that
 * key is 409; one still being sent is waited for; one the chain has not decided yet is 502 (ask again
 * shortly: its outcome is unknown, so nothing may be tried again); one that never reached the chain
 * is NOT_SENT. A confirmed or failed attempt is returned for the caller to answer with.
 */
export async function replayOutcome<
  T extends { id: string; requestHash: string | null; status: string; txSignature: string | null; errorCode: string | null },
>(ctx: EngineContext, first: T, requestHash: string, reread: (id: string) => T | null, what: string): Promise<T | typeof NOT_SENT> {
  if (first.requestHash !== requestHash) {
    throw new CofferError('idempotency_key_reused', `this Idempotency-Key was already used for a different ${what}`);
  }
  await ctx.state.transfersInFlight.get(first.id)?.catch(() => undefined);
  const settled = reread(first.id) ?? first;
  if (neverSent(settled)) return NOT_SENT;
  if (settled.status === 'pending') {
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

/** Resolves when every transfer in flight has finished, whatever its outcome. */
export async function settleActiveTransfers(ctx: EngineContext): Promise<void> {
  const inFlight = ctx.state.transfersInFlight;
  while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
}

function markSent(ctx: EngineContext, row: ReservedTransfer, sent: SentTransaction): boolean {
  switch (row.kind) {
    case 'payment':
      return ctx.store.markPaymentSent(row.id, sent);
    case 'allocation':
    case 'return':
      return ctx.store.markAllocationSent(row.id, sent);
    case 'faucet':
      return ctx.store.markDepositSent(row.id, sent);
    case 'refund':
      return ctx.store.markRefundSent(row.id, sent);
  }
}

function settleRow(
  ctx: EngineContext,
  row: ReservedTransfer,
  status: 'confirmed' | 'failed',
  errorCode: string | null,
  at: number,
): boolean {
  switch (row.kind) {
    case 'payment':
      return ctx.store.settlePayment(row.id, status, errorCode, at);
    case 'allocation':
    case 'return':
      return ctx.store.settleAllocation(row.id, status, errorCode, at);
    case 'faucet':
      return ctx.store.settleDeposit(row.id, status, errorCode, at);
    case 'refund':
      return ctx.store.settleRefund(row.id, status, errorCode, at);
  }
}

function settledEvent(row: ReservedTransfer, status: 'confirmed' | 'failed', txSignature: string | null): CofferEvent | null {
  const amount = String(row.detail.amount ?? '');
  switch (row.kind) {
    case 'payment':
      return {
        type: 'payment',
        owner: row.owner,
        agentId: row.agentId,
        paymentId: row.id,
        status,
        amount,
        service: String(row.detail.service ?? ''),
      };
    case 'allocation':
      return { type: 'allocation', owner: row.owner, agentId: row.agentId, allocationId: row.id, status, amount };
    case 'return':
      return { type: 'return', owner: row.owner, agentId: row.agentId, returnId: row.id, status, amount };
    case 'faucet':
      return status === 'confirmed' && txSignature !== null ? { type: 'deposit', owner: row.owner, amount, txSignature } : null;
    case 'refund':
      return {
        type: 'refund',
        owner: row.owner,
        agentId: row.agentId,
        refundId: row.id,
        paymentId: String(row.detail.paymentId ?? ''),
        status,
        amount,
      };
  }
}

/**
 * Confirms or fails a pending row; the settlement and its audit row are one commit. A row someone
 * else settled meanwhile (a seller's report racing reconciliation) is left as it is, and nothing is
 * written or announced twice. Returns whether this call settled it.
 */
export function settleTransfer(
  ctx: EngineContext,
  row: ReservedTransfer,
  status: 'confirmed' | 'failed',
  errorCode: string | null,
  txSignature: string | null = null,
): boolean {
  const settled = recordSettlement(ctx, row, status, errorCode);
  announceSettlement(ctx, row, settled, status, txSignature);
  return settled;
}

function recordSettlement(ctx: EngineContext, row: ReservedTransfer, status: 'confirmed' | 'failed', errorCode: string | null): boolean {
  return ctx.store.transaction(() => {
    if (!settleRow(ctx, row, status, errorCode, ctx.clock.now())) return false;
    audit(ctx, {
      actor: row.actor,
      owner: row.owner,
      agentId: row.agentId,
      action: `${row.kind}.${status}`,
      detail: { ...row.detail, id: row.id, errorCode },
    });
    return true;
  });
}

function announceSettlement(
  ctx: EngineContext,
  row: ReservedTransfer,
  settled: boolean,
  status: 'confirmed' | 'failed',
  txSignature: string | null,
): void {
  const event = settled ? settledEvent(row, status, txSignature) : null;
  if (event !== null) ctx.events.emit(event);
}

/**
 * Moves money for a row already reserved as pending: sign, record the signature and signed bytes
 * (so a restart can find or rebroadcast exactly this transaction), send, then settle the row.
 * Nothing is sent unless the signature was recorded on a row still pending. When the chain cannot
 * be reached after sending, the row stays pending for reconciliation: it may still land, and
 * marking it failed could let the same money be spent twice.
 */
export function sendReserved(ctx: EngineContext, row: ReservedTransfer, prepare: () => Promise<PreparedTransfer>): Promise<string> {
  return tracked(
    ctx,
    row.id,
    (async () => {
      let prepared;
      try {
        prepared = await prepare();
      } catch (error) {
        settleTransfer(ctx, row, 'failed', isCofferError(error) ? error.code : 'chain_unavailable');
        throw asChainError(error);
      }
      let recorded: boolean;
      try {
        recorded = markSent(ctx, row, prepared);
      } catch (error) {
        settleTransfer(ctx, row, 'failed', 'not_sent');
        throw new CofferError('internal', 'the payment could not be recorded; nothing was sent', { cause: error });
      }
      if (!recorded) throw new CofferError('internal', 'the payment was settled while it was being sent; nothing was sent');
      return submit(ctx, row, prepared);
    })(),
  );
}

/**
 * Reserves a row and sends its transaction, signed before: `reserve` writes the row (pending, with
 * the signed transaction) and answers whether to send, false when another request under the same
 * Idempotency-Key was reserved meanwhile. A refusal `reserve` throws is thrown as it is: nothing was
 * written or sent. Where the ledger holds the chain (the embedded chain), the row, the transfer and
 * its confirmation are one commit, and a crash keeps all or none of them; on any other chain the row
 * is committed before anything is sent. Resolves to the signature, or null when nothing was sent.
 */
export function reserveAndSend(
  ctx: EngineContext,
  row: ReservedTransfer,
  prepared: PreparedTransfer,
  reserve: () => boolean,
): Promise<string | null> {
  const ledger = ctx.chain.inLedger;
  if (ledger === null) {
    return tracked(ctx, row.id, (async () => (ctx.store.transaction(reserve) ? submit(ctx, row, prepared) : null))());
  }
  return tracked(
    ctx,
    row.id,
    (async () => {
      const landing = ctx.store.transaction(() => (reserve() ? landInCommit(ctx, ledger, row, prepared) : null));
      return landing === null ? null : announceLanding(ctx, row, prepared, landing);
    })(),
  );
}

/** Signs a transfer before anything is reserved for it: a chain that cannot be asked is chain_unavailable. */
export async function prepareUnreserved(prepare: () => Promise<PreparedTransfer>): Promise<PreparedTransfer> {
  try {
    return await prepare();
  } catch (error) {
    throw asChainError(error);
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
 * The embedded chain's unit of work, inside the caller's write transaction: the transfer executes,
 * and its row is settled in the same commit. The chain's state has moved by then, so nothing after
 * it may roll the commit back: a settlement that fails is undone alone (its own savepoint) and the
 * row stays pending for reconciliation, which finds the transfer's fate on the chain.
 */
function landInCommit(ctx: EngineContext, ledger: ChainInLedger, row: ReservedTransfer, prepared: PreparedTransfer): Landing {
  const refusal = ledger.executeInCommit(prepared);
  try {
    // Expired unseen is what reconciliation calls `dropped`: never landed, so its key may try again.
    const errorCode = refusal === null ? null : refusal.code === 'transaction_expired' ? 'dropped' : refusal.code;
    return { refusal, settled: recordSettlement(ctx, row, refusal === null ? 'confirmed' : 'failed', errorCode) };
  } catch (error) {
    return { refusal, settled: false, unrecorded: error };
  }
}

/** After the commit of a landing: announced, then the refusal (or the settlement that could not be written) thrown. */
function announceLanding(ctx: EngineContext, row: ReservedTransfer, prepared: PreparedTransfer, landing: Landing): string {
  announceSettlement(ctx, row, landing.settled, landing.refusal === null ? 'confirmed' : 'failed', prepared.txSignature);
  if (landing.refusal !== null) throw landing.refusal;
  if ('unrecorded' in landing) {
    throw new CofferError('internal', 'the transfer landed but could not be recorded yet; reconciliation will', {
      cause: landing.unrecorded,
    });
  }
  return prepared.txSignature;
}

/**
 * Sends a transfer whose row is pending with its signed transaction, then confirms the row; a
 * chain's refusal fails it. Where the ledger holds the chain, the transfer and its confirmation are
 * one commit.
 */
async function submit(ctx: EngineContext, row: ReservedTransfer, prepared: PreparedTransfer): Promise<string> {
  const ledger = ctx.chain.inLedger;
  if (ledger !== null)
    return announceLanding(
      ctx,
      row,
      prepared,
      ctx.store.transaction(() => landInCommit(ctx, ledger, row, prepared)),
    );
  try {
    await ctx.chain.submitTransfer(prepared);
  } catch (error) {
    // Expired unseen is what reconciliation calls `dropped`: never landed, so its key may try again.
    if (isCofferError(error) && error.code !== 'chain_unavailable') {
      settleTransfer(ctx, row, 'failed', error.code === 'transaction_expired' ? 'dropped' : error.code);
    }
    throw asChainError(error);
  }
  let settled: boolean;
  try {
    settled = recordSettlement(ctx, row, 'confirmed', null);
  } catch (error) {
    // The transfer landed regardless: the row stays pending and reconciliation confirms it.
    throw new CofferError('internal', 'the transfer landed but could not be recorded yet; reconciliation will', { cause: error });
  }
  announceSettlement(ctx, row, settled, 'confirmed', prepared.txSignature);
  return prepared.txSignature;
}

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

function asChainError(error: unknown): CofferError {
  if (isCofferError(error)) return error;
  return new CofferError('chain_unavailable', `the chain could not be reached: ${(error as Error).message}`, { cause: error });
}
