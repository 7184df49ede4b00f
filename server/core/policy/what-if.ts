/**
 * What-if (issue 26, point 4): a policy change tried on the agent's last 30 days of payments before it
 * is saved or approved: which of them it would have refused, and which it would have held for the
 * owner's yes, as if it had been in force all along (the replay is replay.ts).
 *
 * The replay reads and judges every payment of those days: tens of milliseconds for a busy agent. It
 * runs where the PolicyReplays port says (off the thread that serves payments, where the ledger is a
 * file), and an agent's key may ask only a few at once and a few a minute (what-if-limits.ts): no
 * agent's what-ifs hold another agent's payments, nor the owner's own what-if (issue 47).
 */
import { DAY_MS, type EngineContext } from '../context.js';
import { requireAgentScope, type Principal } from '../auth.js';
import { archivedRefusal, getAgentOrThrow } from '../agent-lookup.js';
import { refuse } from '../../wire/errors.js';
import { nextPolicy } from './update.js';
import { timeZoneOf } from '../settings.js';
import { iso } from '../../wire/views.js';
import type { PolicyUpdate } from '../../wire/schemas.js';
import type { PolicyWhatIf } from '../../wire/answers/policy.js';
import { replaysInProcess } from './replay.js';
import { admitWhatIf } from './what-if-limits.js';

/** How far back a policy is tried. */
const WHAT_IF_DAYS = 30;

/**
 * A policy change tried on the agent's last 30 days: the policy as it would be (the update merged,
 * validated as a save would), and what it would have refused of the payments made. Reads only.
 * Checked here, in turn (who asks, the agent, the change, the key's limits); replayed where the port says.
 */
export async function policyWhatIf(ctx: EngineContext, principal: Principal, agentId: string, update: PolicyUpdate): Promise<PolicyWhatIf> {
  requireAgentScope(principal, agentId);
  const { owner } = principal;
  // An archived agent's policy is not changed (update.ts), so no change of it is tried either.
  refuse(archivedRefusal(getAgentOrThrow(ctx, owner, agentId)));
  const now = ctx.clock.now();
  const timeZone = timeZoneOf(ctx);
  const policy = nextPolicy(ctx, ctx.store.getPolicy(owner, agentId), update);
  const from = now - WHAT_IF_DAYS * DAY_MS;
  // What the judged payments are weighed against reaches back as far as the longest window (a month,
  // 31 days, before the first of them), or to the first payment for a lifetime budget.
  const lifetime = policy.budgets.some((budget) => budget.window === 'lifetime');
  const since = lifetime ? null : from - 32 * DAY_MS;
  const release = admitWhatIf(ctx.state.whatIfs, principal, now);
  try {
    const replays = ctx.policyReplays ?? replaysInProcess(ctx.store);
    const replayed = await replays.replay({ owner, agentId, policy, since, judgedFrom: from, timeZone }, principal.kind);
    return { agentId, from: iso(from), to: iso(now), ...replayed };
  } finally {
    release();
  }
}
