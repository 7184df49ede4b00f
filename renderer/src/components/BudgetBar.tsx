import type { ReactNode } from 'react';
import type { AgentRow } from '../api/types.js';
import { usedShare } from '../lib/money.js';
import { shortAddresses } from '../lib/policy-words.js';
import { shareWords } from '../../../server/wire/policy/budget.js';
import { Money } from './Money.js';

/** A share of a budget as a meter (amber from 70 %, red from 90 %), beside the words that say it: never a bare bar. */
export function BudgetMeter({ share, label, title, children }: { share: number; label: string; title?: string; children: ReactNode }) {
  return (
    <div className="budget" title={title}>
      <meter min={0} max={1} low={0.7} high={0.9} optimum={0} value={Math.min(share, 1)} aria-label={label} />
      <span className="budget-text">{children}</span>
    </div>
  );
}

/** Spent in the last 24 h against the daily budget, both numbers beside the meter. */
export function BudgetBar({ spent, budget, label }: { spent: string; budget: string; label: string }) {
  return (
    <BudgetMeter share={usedShare(spent, budget)} label={label}>
      <Money value={spent} unit={false} /> / <Money value={budget} />
    </BudgetMeter>
  );
}

/**
 * The budget nearest its limit (the server's pick, the daily one included): its share used, which
 * budget it is, and a mark once it passed the owner's first warning share.
 */
export function TightestBudgetBar({ tightest, name }: { tightest: AgentRow['tightestBudget']; name: string }) {
  const { budget, used, percent, warned } = tightest;
  const share = shareWords(percent, used);
  return (
    <div className="tightest">
      <BudgetMeter
        share={percent / 100}
        label={`${name}: ${share} % used of its tightest budget, ${budget}`}
        title={`${used} used of ${budget}`}
      >
        <strong>{share} %</strong> <span className="muted">of {shortAddresses(budget)}</span>
      </BudgetMeter>
      {warned && (
        <span className="tag warn" data-testid="budget-warning" title={`${used} used of ${budget}: past your first warning share`}>
          {percent >= 100 ? 'At its limit' : 'Near its limit'}
        </span>
      )}
    </div>
  );
}
