import { usedShare } from '../lib/money.js';
import { Money } from './Money.js';

/** Spent in the last 24 h against the daily budget: a meter plus both numbers, never a bare bar. */
export function BudgetBar({ spent, budget, label }: { spent: string; budget: string; label: string }) {
  const share = usedShare(spent, budget);
  return (
    <div className="budget">
      <meter min={0} max={1} low={0.7} high={0.9} optimum={0} value={Math.min(share, 1)} aria-label={label} />
      <span className="budget-text">
        <Money value={spent} unit={false} /> / <Money value={budget} />
      </span>
    </div>
  );
}
