/**
 * Approvals: what an agent asks that only the owner may grant, and the owner's yes or no. Read this
 * first. requests.ts (the asking side: a request stored, withdrawn, expired), decisions.ts (the
 * deciding side: read, approved and carried out once, denied) and carriers.ts (what each kind of
 * request carries out, handed in by the engine so that approvals name no capability).
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { ApprovalStatus } from '../ports/store.js';
import type { ApprovalCarriers } from './carriers.js';
import { expireWaiting, withdrawOwnRequest } from './requests.js';
import { approve, deny, endDecisionWaits, listApprovals, readApproval, recoverInterruptedApprovals, waitForDecision } from './decisions.js';

export const approvalsApp = (ctx: EngineContext, carriers: ApprovalCarriers) => ({
  recoverApprovals: () => recoverInterruptedApprovals(ctx, carriers),
  /** Requests nobody decided in time expire, and their held payments with them (the minute timer). */
  expireWaiting: () => expireWaiting(ctx),
  approvals: (p: Principal, status: ApprovalStatus | null) => listApprovals(ctx, p, status),
  /** One request as it stands (an approved deploy's new key handed to its asker, once). */
  approval: (p: Principal, id: string) => readApproval(ctx, carriers, p, id),
  /** Resolves once the request is decided (a long poll), the wait runs out, or `gone` aborts; then the caller reads it. */
  waitForDecision: (p: Principal, id: string, waitSeconds: number, gone?: AbortSignal) => waitForDecision(ctx, p, id, waitSeconds, gone),
  approve: (p: Principal, id: string) => approve(ctx, carriers, p, id),
  deny: (p: Principal, id: string) => deny(ctx, p, id),
  /** The asking agent takes its request back while it waits. */
  withdrawRequest: (p: Principal, id: string) => withdrawOwnRequest(ctx, p, id),
  /** Coffer stopping: every long poll answered now, with its request as it stands. */
  endDecisionWaits: () => endDecisionWaits(ctx),
});
