/**
 * A payment held for the owner's yes, as the agent waiting on it is told (`coffer pay`/`fetch`'s
 * waiting line, the MCP bridge's progress and answers): why it waits, and what it is, its rail said
 * (the policy's reason names an amount, not the chain it is paid on). Pure and browser-safe.
 */
import type { Approval } from './answers/approvals.js';
import { railName } from './rail-words.js';
import { isRail } from './rails.js';

/** Why it waits, in the owner's policy's words. */
export const heldReason = (approval: Approval): string =>
  (approval.request.reason as { message?: string } | undefined)?.message ?? "the agent's policy asks the owner";

/** "0.01 USDC on Base for demo-weather": the payment a request holds; null where it names no amount and rail. */
export function heldPaymentWords(approval: Approval): string | null {
  const { amount, rail, service } = approval.request;
  if (typeof amount !== 'string' || !isRail(rail)) return null;
  return `${amount} USDC on ${railName(rail)}${typeof service === 'string' ? ` for ${service}` : ''}`;
}
