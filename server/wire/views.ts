/**
 * How the wire shows what the engine holds: times as ISO strings, a policy as its decimal-string
 * shape. Shared by every door and the dashboard; the views of the engine's own records (agents,
 * payments, approvals) are server/core/views.ts, and the type of every answer server/wire/answers/.
 */
import { formatUsdc } from './money.js';
import { budgetView } from './policy/budget.js';
import { breakerView } from './policy/breaker.js';
import { DEFAULT_WARN_AT } from './schemas.js';
import type { Policy } from './policy/policy.js';
import type { PolicyView } from './answers/policy.js';

/** A moment (epoch ms) as the wire says it. */
export const iso = (ms: number): string => new Date(ms).toISOString();

export const policyView = (policy: Policy): PolicyView => {
  const view: PolicyView = {
    dailyBudget: formatUsdc(policy.dailyBudget),
    maxPerPayment: formatUsdc(policy.maxPerPayment),
    cooldownSeconds: policy.cooldownSeconds,
    allowedServices: [...policy.allowedServices],
  };
  // Only what a policy holds beyond the seed's four fields is said: a policy without any of it
  // answers as it always has. (Set one by one, not spread: spreads made each view a dictionary,
  // garbage a dashboard of many agents pays for.)
  if (policy.budgets.length > 0) view.budgets = policy.budgets.map(budgetView);
  if (policy.expiresAt !== null) view.expiresAt = iso(policy.expiresAt);
  if (!sameShares(policy.warnAt, DEFAULT_WARN_AT)) view.warnAt = [...policy.warnAt];
  if (policy.breaker !== null) view.breaker = breakerView(policy.breaker);
  if (policy.askAbove !== null) view.askAbove = formatUsdc(policy.askAbove);
  if (policy.askNewRecipient) view.askNewRecipient = true;
  return view;
};

const sameShares = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((share, i) => share === b[i]);
