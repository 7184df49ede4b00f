import { isCofferError } from './errors.js';
import type { EngineContext } from './context.js';
import type { SentTransaction } from './ports/store.js';
import { settleTransfer, type ReservedTransfer } from './transfers.js';

export interface ReconcileReport {
  confirmed: number;
  failed: number;
  stillPending: number;
}

/**
 * Settles every pending payment and allocation against the chain, run at start before any request
 * is served: a row never signed failed; a signed one is confirmed or failed by what the chain says;
 * one the chain may still accept stays pending (and its exact signed bytes are sent again).
 * Nothing is lost and nothing is paid twice: a row is only ever settled by the fate of its own signature.
 */
export async function reconcilePending(ctx: EngineContext): Promise<ReconcileReport> {
  const report: ReconcileReport = { confirmed: 0, failed: 0, stillPending: 0 };
  const rows: { row: ReservedTransfer; sent: SentTransaction }[] = [
    ...ctx.store.pendingPayments().map((p) => ({ row: reconciling('payment', p), sent: p })),
    ...ctx.store.pendingAllocations().map((a) => ({ row: reconciling('allocation', a), sent: a })),
  ];
  for (const { row, sent } of rows) {
    const settle = (status: 'confirmed' | 'failed', errorCode: string | null) => {
      settleTransfer(ctx, row, status, errorCode);
      report[status] += 1;
    };
    const { txSignature, txWire, lastValidBlockHeight } = sent;
    if (txSignature === null) {
      settle('failed', 'not_sent');
      continue;
    }
    const fate = await ctx.chain.fateOf({ txSignature, txWire, lastValidBlockHeight });
    if (fate.state === 'succeeded') settle('confirmed', null);
    else if (fate.state === 'failed') settle('failed', 'chain_rejected');
    else if (fate.state === 'dropped') settle('failed', 'dropped');
    else if (txWire === null) report.stillPending += 1;
    else {
      // May still land: send the very same signed bytes again (same signature, so it can land once at most).
      try {
        await ctx.chain.submitTransfer({ txSignature, txWire, lastValidBlockHeight: lastValidBlockHeight ?? 0n });
        settle('confirmed', null);
      } catch (error) {
        if (isCofferError(error) && error.code !== 'chain_unavailable') settle('failed', error.code);
        else report.stillPending += 1;
      }
    }
  }
  return report;
}

const reconciling = (
  kind: ReservedTransfer['kind'],
  record: { id: string; owner: string; agentId: string; txSignature: string | null },
): ReservedTransfer => ({
  kind,
  id: record.id,
  owner: record.owner,
  agentId: record.agentId,
  actor: 'system',
  detail: { reconciled: true, txSignature: record.txSignature },
});
