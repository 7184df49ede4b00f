/**
 * What-if (issue 26, point 4): a policy change replayed on the agent's last 30 days of payments before
 * it is saved or approved: which of them it would have refused, and which it would have held for the
 * owner's yes, by the very decisions the pay path takes (policy.ts firstRefusal, budgets.ts
 * budgetRefusal, holds.ts holdReason), as if it had been in force all along. A payment it would have
 * refused is left out of what later ones are judged against, as it would not have been made; one it
 * would have held is counted as made (the owner said yes to it then). Read from the ledger once; each
 * payment judged in a few binary searches.
 */
import { DAY_MS, type EngineContext } from './context.js';
import { requireAgentScope, type Principal } from './auth.js';
import { getAgentOrThrow } from './agent-lookup.js';
import { firstRefusal } from './policy.js';
import { holdReason } from './holds.js';
import { nextPolicy } from './agents.js';
import { budgetRefusal, inScope, type BudgetScope, type BudgetUsage, type BudgetedPayment } from './budgets.js';
import { windowSpan } from './budget-windows.js';
import { timeZoneOf } from './settings.js';
import { formatUsdc } from './money.js';
import { iso } from './views.js';
import type { CountedPayment, Policy } from './ports/store.js';
import type { PolicyUpdate } from './schemas.js';

/** How far back a policy is tried. */
const WHAT_IF_DAYS = 30;
/** How many of the payments it would have refused are shown as examples. */
const EXAMPLES = 5;

/** The payments in one scope that were made (or would have been), oldest first, with running sums for any window's total. */
class ScopeLedger {
  private readonly times: number[] = [];
  /** prefix[i]: the amount of the first i payments. */
  private readonly prefix: bigint[] = [0n];

  add(at: number, amount: bigint): void {
    this.times.push(at);
    this.prefix.push(this.prefix[this.prefix.length - 1]! + amount);
  }

  /** What was spent at `from` or later (null: in all), and how many payments. */
  since(from: number | null): { amount: bigint; payments: number } {
    let low = 0;
    if (from !== null) {
      let high = this.times.length;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (this.times[mid]! < from) low = mid + 1;
        else high = mid;
      }
    }
    const last = this.times.length;
    return { amount: this.prefix[last]! - this.prefix[low]!, payments: last - low };
  }
}

const scopeKey = (scope: BudgetScope) => JSON.stringify(scope);

/**
 * Replays `policy` on `payments` (oldest first): those made before `judgedFrom` were made whatever
 * it says (they are what later ones are judged against); each from then on is judged as the pay path
 * would, against the ones it let through. Answers what it would have refused.
 */
export function replayPolicy(
  policy: Policy,
  payments: CountedPayment[],
  judgedFrom: number,
  context: { timeZone: string; inRegistry: (serviceId: string) => boolean },
) {
  // A replay may refuse thousands of payments, each decision a CofferError: their stack traces, never
  // read here, would cost most of its time.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return replay(policy, payments, judgedFrom, context);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function replay(
  policy: Policy,
  payments: CountedPayment[],
  judgedFrom: number,
  context: { timeZone: string; inRegistry: (serviceId: string) => boolean },
) {
  // One ledger per scope the budgets name (and every payment's), looked up once, not per payment.
  const ledgers = new Map<string, { scope: BudgetScope; ledger: ScopeLedger }>();
  const ledgerOf = (scope: BudgetScope) => {
    const key = scopeKey(scope);
    let held = ledgers.get(key);
    if (held === undefined) ledgers.set(key, (held = { scope, ledger: new ScopeLedger() }));
    return held.ledger;
  };
  const every = ledgerOf({ kind: 'all' });
  const budgets = policy.budgets.map((budget) => ({ budget, ledger: ledgerOf(budget.scope) }));
  const scoped = [...ledgers.values()].filter(({ scope }) => scope.kind !== 'all');
  let lastPaymentAt: number | null = null;
  // Whom the agent had paid by then, for a policy that asks before a new recipient.
  const paidRecipients = new Set<string>();
  const refused: { payment: CountedPayment; code: string; message: string }[] = [];
  const held: { payment: CountedPayment; code: string; message: string }[] = [];
  let judged = 0;
  for (const payment of payments) {
    const asked: BudgetedPayment = {
      serviceId: payment.serviceId,
      inRegistry: context.inRegistry(payment.serviceId),
      recipient: payment.recipient,
      amount: payment.amount,
    };
    if (payment.createdAt >= judgedFrom) {
      judged += 1;
      const now = payment.createdAt;
      const usages = (): BudgetUsage[] =>
        budgets
          .filter(({ budget }) => inScope(budget.scope, asked))
          .map(({ budget, ledger }) => {
            const span = windowSpan(budget.window, now, context.timeZone);
            return { budget, spent: ledger.since(span.from), ...span };
          });
      const refusal =
        firstRefusal(policy, { now, lastPaymentAt, spentInWindow: every.since(now - DAY_MS + 1).amount }, asked) ??
        budgetRefusal(usages(), asked, now);
      if (refusal !== null) {
        refused.push({ payment, code: refusal.code, message: refusal.message });
        continue;
      }
      const hold = holdReason(policy, payment.amount, () => paidRecipients.has(payment.recipient));
      if (hold !== null) held.push({ payment, ...hold });
    }
    paidRecipients.add(payment.recipient);
    every.add(payment.createdAt, payment.amount);
    for (const { scope, ledger } of scoped) if (inScope(scope, asked)) ledger.add(payment.createdAt, payment.amount);
    lastPaymentAt = payment.createdAt;
  }
  return { payments: judged, wouldRefuse: summary(refused), wouldHold: summary(held) };
}

/** Payments a replay would have refused (or held): how many, how much, by code, and the first few. */
function summary(judged: { payment: CountedPayment; code: string; message: string }[]) {
  const byCode: Record<string, number> = {};
  for (const { code } of judged) byCode[code] = (byCode[code] ?? 0) + 1;
  return {
    payments: judged.length,
    amount: formatUsdc(judged.reduce((sum, { payment }) => sum + payment.amount, 0n)),
    byCode,
    examples: judged.slice(0, EXAMPLES).map(({ payment, code, message }) => ({
      paymentId: payment.id,
      at: iso(payment.createdAt),
      service: payment.serviceId,
      amount: formatUsdc(payment.amount),
      code,
      message,
    })),
  };
}

/**
 * A policy change tried on the agent's last 30 days: the policy as it would be (the update merged,
 * validated as a save would), and what it would have refused of the payments made. Reads only.
 */
export function policyWhatIf(ctx: EngineContext, principal: Principal, agentId: string, update: PolicyUpdate) {
  requireAgentScope(principal, agentId);
  const { owner } = principal;
  getAgentOrThrow(ctx, owner, agentId);
  const now = ctx.clock.now();
  const timeZone = timeZoneOf(ctx);
  const policy = nextPolicy(ctx, ctx.store.getPolicy(owner, agentId), update);
  const from = now - WHAT_IF_DAYS * DAY_MS;
  // What the judged payments are weighed against reaches back as far as the longest window (a month,
  // 31 days, before the first of them), or to the first payment for a lifetime budget.
  const lifetime = policy.budgets.some((budget) => budget.window === 'lifetime');
  const payments = ctx.store.countedPayments(owner, agentId, lifetime ? null : from - 32 * DAY_MS);
  const registry = new Map<string, boolean>();
  const inRegistry = (serviceId: string) => {
    let known = registry.get(serviceId);
    if (known === undefined) registry.set(serviceId, (known = ctx.store.getService(serviceId) !== null));
    return known;
  };
  return { agentId, from: iso(from), to: iso(now), ...replayPolicy(policy, payments, from, { timeZone, inRegistry }) };
}
