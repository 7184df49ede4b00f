/**
 * A held payment in a ledger restored from a backup file may have been approved and paid on the
 * Coffer that wrote the file, after it wrote it. On Base its authorization's nonce commits to its id,
 * so signing it again pays nothing twice; on Solana a payment signed again is a new transaction, and
 * would pay again. So before the owner's yes to such a payment on Solana is taken, its wallet's
 * history since it was held is read for its own transfer (prepareTransfer's memos): found, the yes
 * records it as paid by that transaction and nothing is sent; not readable, the yes is not taken.
 */
import { CofferError } from '../../wire/errors.js';
import type { EngineContext } from '../context.js';
import type { ApprovalRecord, PaymentRecord } from '../ports/store.js';
import type { HeldPaymentLook } from '../approvals/carriers.js';
import { heldWhenRestored } from '../backup/files.js';
import { addressOn, chainOf } from '../rails.js';
import { recordFoundLanded } from '../transfers/lifecycle.js';

/** How far the clock of the Coffer that wrote a backup file may be off, as far as a search cares. */
const OLD_CLOCK_MARGIN_MS = 24 * 60 * 60 * 1000;

/**
 * Before the owner's yes to a held payment: what its chain says of it where the Coffer before a
 * restore may have paid it (it was held in the file this ledger came from, on a rail that would pay
 * it twice). Null at once, not a promise, where nothing is looked for, so such a yes is taken in the
 * same turn as the owner's click and two decisions racing still meet in one write. Refused
 * `chain_unavailable` where the wallet's history cannot be read whole: the request still waits.
 */
export function beforeHeldPaymentYes(ctx: EngineContext, approval: ApprovalRecord): Promise<HeldPaymentLook> | null {
  const held = approval.paymentId === null ? null : ctx.store.getPayment(approval.paymentId);
  if (held === null || held.status !== 'held' || held.protocol === 'x402') return null;
  const agent = ctx.store.getAgent(held.owner, held.agentId);
  const chain = chainOf(ctx, held.rail);
  if (agent === null || chain.sentWithReference === undefined || !heldWhenRestored(ctx, held.id)) return null;
  const unreadable = (cause?: unknown) =>
    new CofferError(
      'chain_unavailable',
      'this payment was held in the backup file this Coffer was restored from, and whether the Coffer that wrote the file paid it since could not be read from the chain; nothing was paid, and the request still waits: approve it again once the chain answers (a wallet whose history since is too long to read here stays unreadable: then decide it by what the Coffer that wrote the file did)',
      { retryAfterSeconds: 60, cause },
    );
  const search = { from: addressOn(ctx, agent.walletAddress, held.rail), to: held.recipient, amount: held.amount };
  // Looked for from a day before the hold: the Coffer that wrote the file dated it by its own clock,
  // which may run ahead of the chain's by more than a little (helper 205: five minutes ahead, the
  // search stopped short of the payment and it was paid again). An entry the RPC lists with memos
  // that do not name the payment is not read; one listed with none (a deposit from outside, or any
  // entry on a node that lists no memos) is, and counts against the search's reads (helper 207).
  const since = held.createdAt - OLD_CLOCK_MARGIN_MS;
  return chain.sentWithReference({ ...search, memo: held.memo, reference: held.id, since }).then(
    (found) => {
      if (found.state === 'unknown') throw unreadable();
      return { paidBy: found.state === 'found' ? { txSignature: found.txSignature, at: found.at } : null };
    },
    (error: unknown) => {
      throw unreadable(error);
    },
  );
}

/**
 * Records a held payment as paid by the transaction found: its hold taken out and its row written
 * confirmed as of its block, in one commit (a deposit the watcher recorded for it, where it paid the
 * treasury, taken out: the payment stands for it). Nothing is judged again: the money moved under
 * the yes the old Coffer was given, and the ledger says so.
 */
export function recordPaidBeforeRestore(
  ctx: EngineContext,
  held: PaymentRecord,
  paidBy: NonNullable<HeldPaymentLook['paidBy']>,
  /** Written in the payment's commit (an image's task), as when it is paid now. */
  alsoWrite?: (payment: PaymentRecord) => void,
): PaymentRecord {
  return recordFoundLanded(
    ctx,
    'system',
    () => {
      if (!ctx.store.releaseHeldPayment(held.id)) {
        throw new CofferError('approval_decided', `payment ${held.id} is no longer held for the owner: it was ended meanwhile`);
      }
      ctx.store.takeOutSolanaDeposit(paidBy.txSignature);
      return {
        ...held,
        status: 'pending' as const,
        txSignature: paidBy.txSignature,
        txWire: null,
        lifetimeEnd: null,
        errorCode: null,
        createdAt: paidBy.at ?? ctx.clock.now(),
        settledAt: null,
      };
    },
    alsoWrite,
  );
}
