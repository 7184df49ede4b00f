/**
 * A payment the agent's policy held for the owner's yes (an approval of kind `payment`): what it asks,
 * why, and how it ended. Where each budget it falls under stands before and after it is the wire's
 * (server/wire/policy/held-budgets.ts), said alike by the dashboard and `coffer approvals`.
 */
import { heldAskOf } from '../../../server/wire/policy/held-budgets.js';
import { readableUsdc } from './money.js';
import type { Approval } from '../api/types.js';

/** What a held payment asks, read from its approval's request (null when it is not one). */
export interface HeldPayment {
  service: string;
  amount: bigint;
  recipient: string;
  /** Where it would be paid: `base` on Base; `sol` also for a request from before rails were recorded. */
  rail: 'sol' | 'base';
  description: string | null;
  reason: { code: string; message: string } | null;
  /** What it buys beyond the call, in words ("an image: sdxl, 1k, “a lighthouse”"), or null. */
  purchase: string | null;
}

export function heldPaymentOf(approval: Pick<Approval, 'kind' | 'request'>): HeldPayment | null {
  if (approval.kind !== 'payment') return null;
  const ask = heldAskOf(approval.request);
  if (ask === null) return null;
  const { rail, description, reason } = approval.request;
  const why = reason as { code?: unknown; message?: unknown } | undefined;
  const bought = approval.request.purchase as { kind?: unknown; modelId?: unknown; resolution?: unknown; prompt?: unknown } | undefined;
  return {
    ...ask,
    rail: rail === 'base' ? 'base' : 'sol',
    description: typeof description === 'string' && description.trim() !== '' ? description : null,
    reason: typeof why?.code === 'string' && typeof why.message === 'string' ? { code: why.code, message: why.message } : null,
    purchase:
      bought === undefined
        ? null
        : bought.kind === 'image'
          ? `an image: ${String(bought.modelId)}, ${String(bought.resolution)}, “${String(bought.prompt)}”`
          : String(bought.kind),
  };
}

/**
 * How a decided request ended, in words, for the history. A payment says whether it was paid (and
 * which payment it is) or why not: nothing was paid unless it says so. Other kinds say their error.
 */
export function outcomeWords(approval: Pick<Approval, 'kind' | 'status' | 'request' | 'result' | 'error'>): string | null {
  if (approval.kind !== 'payment') return approval.error ?? null;
  switch (approval.status) {
    case 'approved': {
      const asked = heldPaymentOf(approval);
      return approvedPayment(approval, asked === null ? 'it' : `${readableUsdc(asked.amount)} USDC`).words;
    }
    case 'failed':
      return `Approved, but not paid: ${approval.error ?? 'it failed'}`;
    case 'denied':
      return 'You denied it: nothing was paid';
    case 'expired':
      return 'Nobody answered in time: nothing was paid';
    case 'withdrawn':
      // By a stop of the agent, or by the agent itself (its command interrupted), before your answer or
      // after a yes to an x402 purchase not yet bought: the record says not which.
      return 'Withdrawn (the agent was stopped, or stopped waiting): nothing was paid';
    default:
      return null;
  }
}

/**
 * What the owner's yes to a held payment came to, as its approval's `result` says, about `what` ("4.00
 * USDC", or with whom): paid (a payment, or an image whose task is then made), on its way, or (an x402
 * purchase) approved for the agent to buy now with the seller's fresh terms, paid once. `pill` is its
 * word in the history's column.
 */
export function approvedPayment(
  approval: Pick<Approval, 'result'>,
  what: string,
): { pill: 'paid' | 'sending' | 'approved'; words: string } {
  const result = (approval.result ?? {}) as { paymentId?: unknown; status?: unknown; taskId?: unknown; protocol?: unknown };
  if (typeof result.paymentId !== 'string') return { pill: 'approved', words: `Approved ${what}` };
  const payment = `(payment ${result.paymentId})`;
  if (typeof result.taskId === 'string')
    return { pill: 'paid', words: `Paid ${what} ${payment}: its image is made as task ${result.taskId}` };
  if (result.status === 'confirmed') return { pill: 'paid', words: `Paid ${what} ${payment}` };
  if (result.status === 'pending') return { pill: 'sending', words: `Approved: sending ${what} ${payment}` };
  if (result.protocol === 'x402') {
    return { pill: 'approved', words: `Approved ${what}: the agent now buys it with the seller's fresh terms, paid once ${payment}` };
  }
  return { pill: 'approved', words: `Approved ${what} ${payment}` };
}
