/**
 * A held payment in a ledger restored from a backup file may have been approved and paid on the
 * Coffer that wrote the file, after it wrote it. On Base its authorization's nonce commits to its id,
 * so signing it again pays nothing twice; on Solana a payment signed again is a new transaction, and
 * would pay again. So before such a payment is paid on Solana, its wallet's history since it was held
 * is read for the transfer that carries its id (prepareTransfer's reference): found, it is recorded
 * as paid by that transaction and nothing is sent; not readable, nothing is paid.
 */
import { CofferError } from '../../wire/errors.js';
import type { EngineContext } from '../context.js';
import type { AgentRecord, ApprovalRecord, PaymentRecord } from '../ports/store.js';
import { restoredFileWrittenAt } from '../backup/files.js';
import { addressOn, chainOf } from '../rails.js';
import { recordFoundLanded } from '../transfers/lifecycle.js';

/**
 * The transaction that paid a held payment on the Coffer before the restore, or null (none did),
 * looked for on chain; null at once, not a promise, where nothing is looked for: the payment was held
 * on this Coffer (after the file), or its rail cannot pay it twice. So an approval that needs no look
 * is taken in the same turn as the owner's click, and two decisions racing still meet in one write.
 * Refused `chain_unavailable` when the wallet's history could not be read whole: `afterwards` says
 * what then becomes of the request.
 */
export function paidBeforeRestore(
  ctx: EngineContext,
  agent: AgentRecord,
  held: PaymentRecord,
  afterwards: string,
): Promise<string | null> | null {
  const writtenAt = restoredFileWrittenAt(ctx);
  const chain = chainOf(ctx, held.rail);
  if (writtenAt === null || held.createdAt > writtenAt || chain.sentWithReference === undefined) return null;
  const search = { from: addressOn(ctx, agent.walletAddress, held.rail), to: held.recipient, amount: held.amount, reference: held.id };
  return chain.sentWithReference({ ...search, since: held.createdAt }).then((found) => {
    if (found.state === 'unknown') {
      throw new CofferError(
        'chain_unavailable',
        `this payment was held before the backup file this Coffer was restored from was written, and whether the Coffer that wrote it paid it since could not be read from the chain; nothing was paid, ${afterwards}`,
        { retryAfterSeconds: 60 },
      );
    }
    return found.state === 'found' ? found.txSignature : null;
  });
}

/**
 * Records a held payment as paid by the transaction found: its hold taken out and its row written
 * confirmed, in one commit. Nothing is judged again: the money moved under the yes the old Coffer was
 * given, and the ledger says so.
 */
export function recordPaidBeforeRestore(
  ctx: EngineContext,
  held: PaymentRecord,
  txSignature: string,
  /** Written in the payment's commit (an image's task), as when it is paid now. */
  alsoWrite?: (payment: PaymentRecord) => void,
): PaymentRecord {
  return recordFoundLanded(ctx, 'system', () => {
    if (!ctx.store.releaseHeldPayment(held.id)) {
      throw new CofferError('approval_decided', `payment ${held.id} is no longer held for the owner: it was ended meanwhile`);
    }
    const row: PaymentRecord = {
      ...held,
      status: 'pending',
      txSignature,
      txWire: null,
      lifetimeEnd: null,
      errorCode: null,
      createdAt: ctx.clock.now(),
      settledAt: null,
    };
    alsoWrite?.(row);
    return row;
  });
}

/**
 * Before the owner's yes to a held payment is taken: where the chain cannot say whether the Coffer
 * before the restore paid it, the request is left waiting as it was (`chain_unavailable`), rather than
 * paid again or ended with its money perhaps moved. Read again as the yes is carried out (payHeld).
 */
export function beforeHeldPaymentYes(ctx: EngineContext, approval: ApprovalRecord): Promise<unknown> | null {
  const held = approval.paymentId === null ? null : ctx.store.getPayment(approval.paymentId);
  if (held === null || held.status !== 'held' || held.protocol === 'x402') return null;
  const agent = ctx.store.getAgent(held.owner, held.agentId);
  return agent === null ? null : paidBeforeRestore(ctx, agent, held, 'and the request still waits: approve it again in a minute');
}
