import type { HeldPayment } from '../lib/held-payment.js';
import { budgetSteps, passesLimit, shareAfter, stepWords } from '../../../server/wire/policy/held-budgets.js';
import { useTimeZone } from '../state/store.js';
import { useAgentPolicy } from '../lib/use-agent-policy.js';
import { BudgetMeter } from './BudgetBar.js';
import { ErrorNote } from './ErrorNote.js';

/**
 * The agent's budgets that a held payment falls under (the daily one, and each of its policy's that
 * holds every payment, its service's or its recipient's), before and after the payment, as GET policy
 * answers them now. Read again when `refreshKey` changes (the agent paid, or its policy changed).
 */
export function HeldPaymentBudgets({
  agentId,
  payment,
  heldAt,
  refreshKey,
}: {
  agentId: string;
  payment: HeldPayment;
  /** When it was held (epoch ms): a window that no longer reaches back to it holds none of it. */
  heldAt: number;
  refreshKey: string;
}) {
  const timeZone = useTimeZone();
  const { answer, error: readError } = useAgentPolicy(agentId, refreshKey);
  const error = readError === null ? null : `Its budgets could not be read: ${readError}`;

  if (!answer) return <ErrorNote error={error} />;
  const steps = budgetSteps(payment, answer, heldAt, Date.now(), timeZone);
  return (
    <div className="held-budgets">
      <p className="held-budgets-title">Its budgets, before → after this payment</p>
      <ul>
        {steps.map((step, i) => (
          <li key={i} data-testid="held-budget">
            <span className="budget-words">{step.words}</span>
            <BudgetMeter share={shareAfter(step)} label={`${step.words}: used after this payment`}>
              <span className="money">{stepWords(step)}</span>
            </BudgetMeter>
            {passesLimit(step) && <span className="tag warn">Over this budget now: approving it would be refused</span>}
          </li>
        ))}
      </ul>
      <ErrorNote error={error} />
    </div>
  );
}
