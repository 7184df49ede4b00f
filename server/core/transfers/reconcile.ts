import type { EngineContext } from '../context.js';
import { settleByFate } from './lifecycle.js';
import { settleX402 } from './seller-sent.js';
import { chainOf } from '../rails.js';
import { RAILS, type Rail } from '../../wire/rails.js';
import type { TransferRecord } from '../ports/store.js';

export interface ReconcileReport {
  confirmed: number;
  failed: number;
  stillPending: number;
}

/**
 * Settles every pending move of money against the chain (lifecycle.ts's states): at start
 * before any request is served, and every 15 s by the chain watch (boot/chain-watch.ts: on RPC
 * networks, and on sim while its Base rail is open). A row this process is sending right
 * now is left to its sender. A row is confirmed or failed by what the chain says about its own
 * transaction (an x402 payment, sent by the seller's facilitator, is found by the agent's signature in
 * it); one the chain may still accept is sent again (the same signed bytes, so it lands once at most)
 * and stays pending. A chain that cannot be reached leaves rows pending, said in the log: nothing is
 * guessed. Each rail's rows are asked in turn, the two rails side by side.
 */
export async function reconcilePending(ctx: EngineContext, rails: readonly Rail[] = RAILS): Promise<ReconcileReport> {
  const report: ReconcileReport = { confirmed: 0, failed: 0, stillPending: 0 };
  const count = (outcome: 'confirmed' | 'failed' | 'pending') => (report[outcome === 'pending' ? 'stillPending' : outcome] += 1);
  const live = ctx.state.transfersInFlight;
  const pending = ctx.store.pendingTransfers();
  const said = ctx.state.reconcileTroubleSaid;
  const stillPending = new Set(pending.map((row) => row.id));
  for (const id of said.keys()) if (!stillPending.has(id)) said.delete(id);
  // A row's trouble is said once (each round tries it again), and again once it changed or passed.
  const trouble = (row: { id: string }, what: 'unasked' | 'unsent', line: string) => {
    if (said.get(row.id) === what) return;
    said.set(row.id, what);
    ctx.log(line);
  };
  // The chain answered about the row: a chain away said before has passed.
  const answered = (row: { id: string }) => {
    if (said.get(row.id) === 'unasked') said.delete(row.id);
  };
  // Each rail's rows in turn, the rails side by side: a node that takes a question and goes quiet
  // (until its client gives up, some 30 s a row) holds back no row of the other rail.
  const settleRow = async (row: TransferRecord) => {
    try {
      if (row.kind === 'payment' && row.protocol === 'x402') {
        const outcome = await settleX402(ctx, row, null);
        answered(row);
        count(outcome);
        return;
      }
      const { txSignature, txWire, lifetimeEnd } = row;
      if (txSignature === null || txWire === null || lifetimeEnd === null) {
        ctx.log(`reconcile: ${row.kind} ${row.id} stays pending: it has no signed transaction`);
        report.stillPending += 1;
        return;
      }
      const chain = chainOf(ctx, row.rail);
      const sent = { txSignature, txWire, lifetimeEnd };
      let fate = await chain.fateOf(sent);
      answered(row);
      if (fate.state === 'unknown') {
        // Sent again as signed, so it lands once at most; a send that fails leaves it for the next round.
        const resent = await chain.resend(sent).then(
          () => true,
          (error: Error) => {
            trouble(
              row,
              'unsent',
              `reconcile: ${row.kind} ${row.id} could not be sent again (${error.message}); it stays pending, tried again each round`,
            );
            return false;
          },
        );
        if (resent) said.delete(row.id);
        // An embedded chain decides a transaction as it is sent (the EVM one mines at once), so it is
        // asked again now; a remote chain is asked next round. (On the embedded EVM, an authorization
        // whose transaction reverted stays unknown until its end, then is dropped: evm/chain.ts.)
        if (resent && chain.isSim) fate = await chain.fateOf(sent);
      }
      count(settleByFate(ctx, row, 'system', fate));
    } catch (error) {
      trouble(row, 'unasked', `reconcile: ${row.kind} ${row.id} stays pending: the chain could not be asked (${(error as Error).message})`);
      report.stillPending += 1;
    }
  };
  const waiting = pending.filter((each) => !live.has(each.id));
  await Promise.all(
    rails.map(async (rail) => {
      for (const row of waiting.filter((each) => each.rail === rail)) await settleRow(row);
    }),
  );
  return report;
}
