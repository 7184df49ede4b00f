import type { EngineContext } from './context.js';
import type { DepositRecord, RefundRecord, SentTransaction } from './ports/store.js';
import { formatUsdc } from './money.js';
import { settleTransfer, type ReservedTransfer } from './transfers.js';
import { settleX402 } from './x402-payments.js';

export interface ReconcileReport {
  confirmed: number;
  failed: number;
  stillPending: number;
}

/**
 * Settles pending payments (x402 ones too), allocations, refunds and faucet mints against the chain: at start before
 * any request is served, and on RPC networks every 15 s. A row this process is sending right now is
 * left to its sender. A row never signed failed; a signed one is confirmed or failed by what the
 * chain says about its own signature; one the chain may still accept is sent again (the same signed
 * bytes, so it lands once at most) and stays pending. A chain that cannot be reached leaves rows
 * pending: nothing is guessed.
 */
export async function reconcilePending(ctx: EngineContext): Promise<ReconcileReport> {
  const report: ReconcileReport = { confirmed: 0, failed: 0, stillPending: 0 };
  const live = ctx.state.transfersInFlight;
  // x402 payments are sent by the seller's facilitator: they are found by the agent's signature.
  const pendingPayments = ctx.store.pendingPayments().filter((p) => !live.has(p.id));
  for (const payment of pendingPayments.filter((p) => p.protocol === 'x402')) {
    try {
      const outcome = await settleX402(ctx, payment, null);
      if (outcome === 'pending') report.stillPending += 1;
      else report[outcome] += 1;
    } catch (error) {
      ctx.log(`reconcile: x402 payment ${payment.id} stays pending: the chain could not be asked (${(error as Error).message})`);
      report.stillPending += 1;
    }
  }
  const rows: { row: ReservedTransfer; sent: SentTransaction }[] = [
    ...pendingPayments
      .filter((p) => p.protocol === 'coffer')
      .map((p) => ({ row: reconciling('payment', p, { service: p.serviceId }), sent: p })),
    ...ctx.store
      .pendingAllocations()
      .map((a) => ({ row: reconciling(a.direction === 'to_treasury' ? 'return' : 'allocation', a, {}), sent: a })),
    ...ctx.store.pendingDeposits().map((d) => ({ row: reconcilingMint(d), sent: d })),
    ...ctx.store.pendingRefunds().map((r) => ({ row: reconcilingRefund(r), sent: r })),
  ].filter(({ row }) => !live.has(row.id));
  for (const { row, sent } of rows) {
    const { txSignature, txWire, lastValidBlockHeight } = sent;
    const settle = (status: 'confirmed' | 'failed', errorCode: string | null) => {
      settleTransfer(ctx, row, status, errorCode, txSignature);
      report[status] += 1;
    };
    if (txSignature === null) {
      settle('failed', 'not_sent');
      continue;
    }
    let fate;
    try {
      fate = await ctx.chain.fateOf({ txSignature, txWire, lastValidBlockHeight });
    } catch (error) {
      ctx.log(`reconcile: ${row.kind} ${row.id} stays pending: the chain could not be asked (${(error as Error).message})`);
      report.stillPending += 1;
      continue;
    }
    if (fate.state === 'succeeded') settle('confirmed', null);
    else if (fate.state === 'failed') settle('failed', 'chain_rejected');
    else if (fate.state === 'dropped') settle('failed', 'dropped');
    else {
      if (txWire !== null) {
        // Sent again as signed, so it lands once at most; a send that fails leaves it for the next round.
        await ctx.chain
          .resend({ txSignature, txWire, lastValidBlockHeight: lastValidBlockHeight ?? 0n })
          .catch((error: Error) =>
            ctx.log(`reconcile: ${row.kind} ${row.id} could not be sent again (${error.message}); it stays pending`),
          );
      }
      report.stillPending += 1;
    }
  }
  return report;
}
const reconciling = (
  kind: 'payment' | 'allocation' | 'return',
  record: { id: string; owner: string; agentId: string; amount: bigint; txSignature: string | null },
  /** What its events name besides the amount (a payment's service). */
  extra: Record<string, unknown>,
): ReservedTransfer => ({
  kind,
  id: record.id,
  owner: record.owner,
  agentId: record.agentId,
  actor: 'system',
  detail: { reconciled: true, amount: formatUsdc(record.amount), txSignature: record.txSignature, ...extra },
});
const reconcilingMint = (deposit: DepositRecord): ReservedTransfer => ({
  kind: 'faucet',
  id: deposit.id,
  owner: deposit.owner,
  agentId: null,
  actor: 'system',
  detail: { reconciled: true, amount: formatUsdc(deposit.amount), txSignature: deposit.txSignature },
});
const reconcilingRefund = (refund: RefundRecord): ReservedTransfer => ({
  kind: 'refund',
  id: refund.id,
  owner: refund.owner,
  agentId: refund.agentId,
  actor: 'system',
  detail: { reconciled: true, amount: formatUsdc(refund.amount), paymentId: refund.paymentId, txSignature: refund.txSignature },
});
