/**
 * Policy: how payments are judged, and the owner's hand on it. Read this first. A policy as data (its
 * shape, an update applied, whether a change tightens it) is server/wire/policy/; here are the rules
 * that judge payments by it: rules.ts (the policy's own, in the order it refuses), budgets.ts,
 * budget-usage.ts and budget-warnings.ts (budgets beyond the daily one, what they spent, the owner
 * told as they fill), breaker.ts (when an agent stops itself), expiry.ts and expiry-notices.ts (a
 * policy's end), holds.ts (which payments wait for the owner's yes), spending-watch.ts (what follows a
 * payment or a refusal), update.ts (reading and changing an agent's policy) and what-if.ts (a change
 * tried on the last 30 days: replay.ts replays it, where the PolicyReplays port says, and
 * what-if-limits.ts says how many an agent's key may ask). The order in which a payment is judged is payments/judge.ts.
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { ApprovalCarriers } from '../approvals/carriers.js';
import { ownerResult } from '../outcome.js';
import type { PolicyUpdate } from '../../wire/schemas.js';
import { readPolicy, updatePolicy } from './update.js';
import { policyWhatIf } from './what-if.js';
import { remindOfExpiries } from './expiry-notices.js';

export const policyApp = (ctx: EngineContext) => ({
  readPolicy: (p: Principal, agentId: string) => readPolicy(ctx, p, agentId),
  updatePolicy: (p: Principal, agentId: string, update: PolicyUpdate) => updatePolicy(ctx, p, agentId, update),
  policyWhatIf: (p: Principal, agentId: string, update: PolicyUpdate) => policyWhatIf(ctx, p, agentId, update),
  /** The owner told a day before a policy ends (the minute timer). */
  remindOfExpiries: () => remindOfExpiries(ctx),
});

/** What an agent's approved request for a looser policy carries out. */
export const policyApprovals: Pick<ApprovalCarriers['carryOut'], 'policy'> = {
  policy: async (ctx, approval, owner) => ({
    ...ownerResult(updatePolicy(ctx, owner, approval.targetAgentId, approval.request as PolicyUpdate)),
  }),
};
