/**
 * What the payments in a budget's scope spent, read from the buckets and totals the ledger keeps for
 * the scopes an agent's budgets name (current-schema.sql: budget_scopes, budget_buckets, budget_totals), and
 * those scopes kept in step with the policies.
 */
import type { Budget, BudgetScope } from '../../wire/policy/budget.js';
import type { Spent } from '../../core/ports/store/spend.js';
import type { SqliteDatabase } from '../sqlite-driver.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** How long buckets are kept: a month window and a day of clock moves (the triggers drop older ones). */
const KEPT_MS = 33 * DAY;

/** A scope as the ledger keys it: '' (every payment), 'service:<id>', 'to:<address>'. */
const scopeKey = (scope: BudgetScope): string =>
  scope.kind === 'all' ? '' : scope.kind === 'service' ? `service:${scope.serviceId}` : `to:${scope.address}`;

/** Budgets as the policies table keeps them (JSON, amounts as decimal text of micro-USDC). */
export const budgetsToJson = (budgets: Budget[]): string =>
  JSON.stringify(budgets.map((budget) => ({ ...budget, amount: budget.amount === null ? null : budget.amount.toString() })));
export const budgetsFromJson = (json: string): Budget[] =>
  (JSON.parse(json) as (Omit<Budget, 'amount'> & { amount: string | null })[]).map((budget) => ({
    ...budget,
    amount: budget.amount === null ? null : BigInt(budget.amount),
  }));

/** The payments a scope holds, in SQL over `transfers` (named parameter @scope): server/wire/policy/budget.ts inScope. */
const IN_SCOPE = "(@scope = '' OR 'service:' || service_id = @scope OR 'to:' || recipient = @scope)";
const COUNTS = "kind = 'payment' AND status IN ('held', 'pending', 'confirmed') AND refunded_at IS NULL";

export function createBudgetSpend(db: SqliteDatabase) {
  const stmts = {
    scopes: db.prepare('SELECT scope FROM budget_scopes WHERE owner = ? AND agent_id = ?').pluck(),
    addScope: db.prepare('INSERT INTO budget_scopes (owner, agent_id, scope) VALUES (?, ?, ?)'),
    dropScope: db.prepare('DELETE FROM budget_scopes WHERE owner = ? AND agent_id = ? AND scope = ?'),
    dropBuckets: db.prepare('DELETE FROM budget_buckets WHERE owner = ? AND agent_id = ? AND scope = ?'),
    dropTotal: db.prepare('DELETE FROM budget_totals WHERE owner = ? AND agent_id = ? AND scope = ?'),
    // A scope named for the first time: its buckets from the payments of the days they are kept for,
    // its total from every payment (once, when the policy changes; never on a payment's path).
    fillBuckets: db.prepare(
      `INSERT INTO budget_buckets (owner, agent_id, scope, span, start, amount, payments)
       SELECT @owner, @agentId, @scope, spans.span, created_at / spans.span, SUM(amount), COUNT(*)
       FROM transfers, (SELECT ${MINUTE} AS span UNION ALL SELECT ${HOUR} UNION ALL SELECT ${DAY}) AS spans
       WHERE ${COUNTS} AND owner = @owner AND agent_id = @agentId AND created_at >= @since AND ${IN_SCOPE}
       GROUP BY spans.span, created_at / spans.span`,
    ),
    fillTotal: db.prepare(
      `INSERT INTO budget_totals (owner, agent_id, scope, amount, payments)
       SELECT @owner, @agentId, @scope, COALESCE(SUM(amount), 0), COUNT(*) FROM transfers
       WHERE ${COUNTS} AND owner = @owner AND agent_id = @agentId AND ${IN_SCOPE}`,
    ),
    total: db.prepare('SELECT amount, payments FROM budget_totals WHERE owner = ? AND agent_id = ? AND scope = ?').safeIntegers(true),
    // Spent from @from on: the payments of its first partial minute, then whole minutes to the next
    // hour, whole hours to the next UTC day, and whole days (nothing is later than now).
    since: db
      .prepare(
        `SELECT COALESCE(SUM(a), 0) AS amount, COALESCE(SUM(n), 0) AS payments FROM (
           SELECT amount AS a, 1 AS n FROM transfers
             WHERE ${COUNTS} AND owner = @owner AND agent_id = @agentId AND created_at >= @from AND created_at < @minute * ${MINUTE}
               AND ${IN_SCOPE}
           UNION ALL SELECT amount, payments FROM budget_buckets WHERE owner = @owner AND agent_id = @agentId AND scope = @scope
             AND span = ${MINUTE} AND start >= @minute AND start < @hour * 60
           UNION ALL SELECT amount, payments FROM budget_buckets WHERE owner = @owner AND agent_id = @agentId AND scope = @scope
             AND span = ${HOUR} AND start >= @hour AND start < @day * 24
           UNION ALL SELECT amount, payments FROM budget_buckets WHERE owner = @owner AND agent_id = @agentId AND scope = @scope
             AND span = ${DAY} AND start >= @day)`,
      )
      .safeIntegers(true),
  };
  return {
    /** Keeps the scopes an agent's budgets name, filling a new one from its payments and forgetting one no longer named. */
    syncScopes(owner: string, agentId: string, budgets: Budget[], at: number): void {
      const wanted = new Set(budgets.map((budget) => scopeKey(budget.scope)));
      const held = new Set(stmts.scopes.all(owner, agentId) as string[]);
      for (const scope of held) {
        if (wanted.has(scope)) continue;
        stmts.dropScope.run(owner, agentId, scope);
        stmts.dropBuckets.run(owner, agentId, scope);
        stmts.dropTotal.run(owner, agentId, scope);
      }
      for (const scope of wanted) {
        if (held.has(scope)) continue;
        stmts.addScope.run(owner, agentId, scope);
        stmts.fillBuckets.run({ owner, agentId, scope, since: at - KEPT_MS });
        stmts.fillTotal.run({ owner, agentId, scope });
      }
    },
    budgetSpent(owner: string, agentId: string, scope: BudgetScope, from: number | null): Spent {
      const key = scopeKey(scope);
      const row = (
        from === null
          ? stmts.total.get(owner, agentId, key)
          : stmts.since.get({
              owner,
              agentId,
              scope: key,
              from,
              minute: Math.ceil(from / MINUTE),
              hour: Math.ceil(from / HOUR),
              day: Math.ceil(from / DAY),
            })
      ) as { amount: bigint; payments: bigint } | undefined;
      return { amount: row?.amount ?? 0n, payments: Number(row?.payments ?? 0n) };
    },
  };
}
