/**
 * What an approved request carries out, by its kind. Each capability says its own in its app.ts
 * (agents a deploy and a resume, the policy its change, the treasury an allocation, generation a held
 * payment: paid by payments/held.ts, with an image's task when it buys one), and the
 * engine hands the table to the deciding side (decisions.ts). So approvals name no capability and every
 * arrow runs one way: the capabilities ask through requests.ts, and are carried out through
 * this table.
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { ApprovalKind, ApprovalRecord } from '../ports/store.js';

/** How a request ended: carried out (its answer), or failed with why. */
export interface ApprovalOutcome {
  status: 'approved' | 'failed';
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
}

/**
 * What was read of a held payment before the owner's yes was taken: the transaction that paid it
 * already (the Coffer a ledger was restored from, after its backup file; `at` its block's time, ms),
 * or none. Carried into the yes as it was read, never read again there.
 */
export interface HeldPaymentLook {
  paidBy: { txSignature: string; at: number | null } | null;
}

export interface ApprovalCarriers {
  /**
   * Carries out an approved request exactly as asked, once; its answer is stored with the approval.
   * A held payment's is given what was read of it before the yes (beforePaymentYes), or null.
   */
  carryOut: Record<
    ApprovalKind,
    (ctx: EngineContext, approval: ApprovalRecord, owner: Principal, look: HeldPaymentLook | null) => Promise<Record<string, unknown>>
  >;
  /**
   * Before the owner's yes to a held payment is taken: a refusal here leaves the request waiting as
   * it was (the chain could not say whether the Coffer a ledger was restored from paid it). Null, at
   * once, where there is nothing to look at: the yes is then taken in the same turn.
   */
  beforePaymentYes(ctx: EngineContext, approval: ApprovalRecord): Promise<HeldPaymentLook> | null;
  /**
   * A held payment's approval a stopped process was carrying out: paid or not, read from its row
   * (the reconciliation that runs before settled it).
   */
  interruptedPayment(ctx: EngineContext, approval: ApprovalRecord): Promise<ApprovalOutcome>;
  /** A new agent's API key, minted when the agent that asked for it collects it (a deploy). */
  issueAgentKey(ctx: EngineContext, owner: string, agentId: string): string;
}
