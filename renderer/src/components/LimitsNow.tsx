import { DEFAULT_WARN_AT } from '../../../server/wire/schemas.js';
import type { PolicyResponse } from '../api/types.js';
import { useTimeZone } from '../state/store.js';
import { useAgentPolicy } from '../lib/use-agent-policy.js';
import { formatUsdc, tryParseUsdc, usedShare } from '../lib/money.js';
import { asksWords, breakerWords, budgetWords, endWords } from '../lib/policy-words.js';
import { sharesWords } from '../../../server/wire/policy/loosenings.js';
import { dateTime } from '../lib/time.js';
import { browserTimeZone, zoneNote } from '../lib/time-zone.js';
import { BudgetMeter } from './BudgetBar.js';
import { ErrorNote } from './ErrorNote.js';
import { HeldNote } from './HeldNote.js';
import { Money } from './Money.js';
import { TableHead } from './TableHead.js';

type BudgetNow = NonNullable<PolicyResponse['budgets']>[number];

/** When a rolling window frees what it holds (a calendar one says its reset time, a lifetime one never frees). */
const ROLLING_WORDS: Partial<Record<BudgetNow['window'], string>> = {
  hour: 'as payments pass 1 h',
  '24h': 'as payments pass 24 h',
  '7d': 'as payments pass 7 days',
  '30d': 'as payments pass 30 days',
};

/**
 * Where each of an agent's limits stands now, as GET policy answers it: the daily budget and every
 * other budget (used, remaining, when it starts afresh), then its end, its breaker, when the owner
 * is warned and, when its policy says so, which payments wait for the owner's yes. Read again whenever `refreshKey` changes (the agent paid, or its policy changed), and
 * when the owner's time zone does (calendar windows move with it). Times are the owner's zone's, which
 * is said once where it is not this browser's.
 */
export function LimitsNow({ agentId, refreshKey }: { agentId: string; refreshKey: string }) {
  const timeZone = useTimeZone();
  const { answer, error } = useAgentPolicy(agentId, refreshKey);

  if (!answer) return <ErrorNote error={error} />;
  const { policy, spent24h } = answer;
  const dailyMicro = tryParseUsdc(policy.dailyBudget) ?? 0n;
  const dailyLeft = dailyMicro - (tryParseUsdc(spent24h) ?? 0n);
  const ended = policy.expiresAt !== undefined && Date.parse(policy.expiresAt) <= Date.now();
  const note = zoneNote(timeZone);
  const asks = asksWords(policy);
  return (
    <>
      {note && (
        <p className="hint zone-note" data-testid="limits-zone">
          {`${note.charAt(0).toUpperCase()}${note.slice(1)}`}: your time zone, set on the Overview (this browser is in {browserTimeZone()}).
        </p>
      )}
      <div className="table-wrap">
        <table className="limits cards-on-phone">
          <TableHead columns={['Budget', 'Used', { label: 'Remaining', num: true }, 'Starts afresh']} />
          <tbody>
            <tr>
              <td data-label="Budget" className="budget-words">
                {formatUsdc(dailyMicro)} USDC in any 24 hours (daily budget)
              </td>
              <td data-label="Used">
                <BudgetMeter share={usedShare(spent24h, policy.dailyBudget)} label="Daily budget used">
                  <Money value={spent24h} />
                </BudgetMeter>
                <HeldNote held={answer.held24h} />
              </td>
              <td data-label="Remaining" className="num">
                <Money value={formatUsdc(dailyLeft > 0n ? dailyLeft : 0n)} />
              </td>
              <td data-label="Starts afresh" className="muted">
                {ROLLING_WORDS['24h']}
              </td>
            </tr>
            {(answer.budgets ?? []).map((budget, i) => (
              <BudgetNowRow key={i} budget={budget} timeZone={timeZone} />
            ))}
          </tbody>
        </table>
      </div>
      <dl className="facts limits-facts">
        <div>
          <dt>Ends</dt>
          <dd data-testid="policy-end">
            {policy.expiresAt === undefined
              ? 'never'
              : `${endWords(policy.expiresAt, timeZone)}${ended ? ': ended, every payment is refused' : ''}`}
          </dd>
        </div>
        <div>
          <dt>Breaker</dt>
          <dd data-testid="policy-breaker">{breakerWords(policy.breaker)}</dd>
        </div>
        <div>
          <dt>You are warned at</dt>
          <dd>{sharesWords(policy.warnAt ?? DEFAULT_WARN_AT)} of a budget</dd>
        </div>
        {asks !== null && (
          <div>
            <dt>Waits for your yes</dt>
            <dd data-testid="policy-asks">{asks}</dd>
          </div>
        )}
      </dl>
      <ErrorNote error={error} />
    </>
  );
}

/** One budget now: what it allows, how much of it is used, what is left, and when it starts afresh. */
function BudgetNowRow({ budget, timeZone }: { budget: BudgetNow; timeZone: string }) {
  const words = budgetWords(budget);
  const resets = budget.resetsAt !== null ? dateTime(budget.resetsAt, timeZone) : (ROLLING_WORDS[budget.window] ?? 'never');
  return (
    <tr data-testid="budget-now">
      <td data-label="Budget" className="budget-words">
        {words}
      </td>
      <td data-label="Used">
        {'count' in budget ? (
          <BudgetMeter share={budget.count > 0 ? budget.made / budget.count : 0} label={`${words}: used`}>
            {budget.made} payment{budget.made === 1 ? '' : 's'}
          </BudgetMeter>
        ) : (
          <BudgetMeter share={usedShare(budget.spent, budget.amount)} label={`${words}: used`}>
            <Money value={budget.spent} />
          </BudgetMeter>
        )}
      </td>
      <td data-label="Remaining" className="num">
        {'count' in budget ? `${budget.remaining} payment${budget.remaining === 1 ? '' : 's'}` : <Money value={budget.remaining} />}
      </td>
      <td data-label="Starts afresh" className="muted">
        {resets}
      </td>
    </tr>
  );
}
