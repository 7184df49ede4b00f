/**
 * What a wallet lacks for the payments held for the owner's yes on one rail. A held payment is not
 * reserved against the wallet (docs/API.md, return): after a return, or another payment, a yes to it
 * fails insufficient_funds where the wallet no longer holds it. The owner's doors (`coffer return`,
 * the agent page's Return) say so. Pure and browser-safe.
 */
import { tryParseUsdc } from './money.js';
import type { Rail } from './rails.js';

/** A waiting request as every door lists it (GET /v1/approvals?status=pending). */
interface WaitingRequest {
  approvalId: string;
  agentId: string;
  kind: string;
  request: Record<string, unknown>;
}

/** The agent's payments waiting on `rail`, what they need in all, and how much of it `balance` lacks; null where it lacks nothing. */
export function heldShortfall(
  waiting: readonly WaitingRequest[],
  agentId: string,
  rail: Rail,
  balance: bigint,
): { payments: WaitingRequest[]; needed: bigint; short: bigint } | null {
  const payments = waiting.filter(
    (approval) => approval.agentId === agentId && approval.kind === 'payment' && (approval.request.rail ?? 'sol') === rail,
  );
  const needed = payments.reduce((sum, approval) => sum + (tryParseUsdc(String(approval.request.amount)) ?? 0n), 0n);
  return payments.length === 0 || needed <= balance ? null : { payments, needed, short: needed - balance };
}
