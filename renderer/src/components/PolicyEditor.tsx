import { useMemo } from 'react';
import type { Policy, PolicyWhatIf, Service } from '../api/types.js';
import { maxAboveDailyNote, pendingUpdate, type PolicyUpdate } from '../lib/policy-form.js';
import { usePolicyDraft } from '../lib/use-policy-draft.js';
import { usePolicySave } from '../lib/use-policy-save.js';
import { useTimeZone } from '../state/store.js';
import { AllowedServices } from './AllowedServices.js';
import { AskFields } from './AskFields.js';
import { BreakerFields } from './BreakerFields.js';
import { BudgetRows } from './BudgetRows.js';
import { ErrorNote } from './ErrorNote.js';
import { LoosenDialog } from './LoosenDialog.js';
import { PolicyEndField } from './PolicyEndField.js';
import { PolicySaveActions } from './PolicySaveActions.js';
import { PolicyTextField, type PolicyTextFieldName } from './PolicyTextField.js';

/**
 * The policy editor: the same validation as the server (its own schema), field errors next to their
 * fields in the same words, and the server's own message if it still refuses. Which services may be
 * paid is an explicit choice (AllowedServices). Which payments wait for the owner's yes
 * first: above an amount, to a new recipient (AskFields). Only what changed is sent. A limit loosened
 * by a large factor, a daily budget above what the treasury holds, a budget removed or raised, an end
 * moved later or removed, a slower breaker, fewer warnings or fewer payments asked about are confirmed
 * first. Days and times of the end are the owner's time zone's (GET /v1/settings), where the server
 * ends a day. Given
 * `tryUpdate`, a valid change is tried on the agent's last 30 days as the owner types (WhatIfPreview):
 * the very update Save would send.
 */
export function PolicyEditor({
  policy,
  services,
  onSave,
  tryUpdate,
}: {
  policy: Policy;
  services: Service[];
  onSave: (update: PolicyUpdate) => Promise<void>;
  tryUpdate?: (update: PolicyUpdate) => Promise<PolicyWhatIf>;
}) {
  const timeZone = useTimeZone();
  const { draft, edit, saved, setSaved } = usePolicyDraft(policy, timeZone);
  const { errors, serverError, busy, confirming, cancel, save, submit } = usePolicySave({
    policy,
    draft,
    timeZone,
    onSave,
    onSaved: setSaved,
  });
  // What Save would send now, or null while the draft is invalid or changes nothing: what is tried.
  const pending = useMemo(
    () => (tryUpdate ? pendingUpdate(draft, policy, { now: Date.now(), timeZone }) : null),
    [draft, policy, timeZone, tryUpdate !== undefined],
  );
  const textField = (field: PolicyTextFieldName, label: string, inputMode: 'decimal' | 'numeric' | 'text', note: string | null = null) => (
    <PolicyTextField
      field={field}
      label={label}
      inputMode={inputMode}
      value={draft[field]}
      error={errors[field]}
      note={note}
      onChange={(value) => edit({ [field]: value })}
    />
  );

  return (
    <form className="policy-editor" onSubmit={submit} noValidate aria-label="Spending policy">
      {/* Held while a save runs: it ends once the saved policy is read back, and the draft then starts
          again from it, so an edit made meanwhile would be lost without a word. */}
      <fieldset className="plain" disabled={busy}>
        <div className="fields">
          {textField('dailyBudget', 'Daily budget (USDC, rolling 24 h)', 'decimal')}
          {textField('maxPerPayment', 'Max per payment (USDC)', 'decimal', maxAboveDailyNote(draft))}
          {textField('cooldownSeconds', 'Cooldown between payments (seconds, 0 = none)', 'numeric')}
        </div>
        <AllowedServices
          scope={draft.scope}
          allowed={draft.allowedServices}
          services={services}
          error={errors.allowedServices}
          onChange={edit}
        />
        <BudgetRows
          budgets={draft.budgets}
          services={services}
          rowErrors={errors.budgetRows}
          listError={errors.budgets}
          onChange={(budgets) => edit({ budgets })}
        />
        <AskFields
          askAbove={draft.askAbove}
          askNewRecipient={draft.askNewRecipient}
          error={errors.askAbove ?? errors.askNewRecipient}
          onChange={edit}
        />
        <PolicyEndField end={draft.end} error={errors.expiresAt} timeZone={timeZone} onChange={(end) => edit({ end })} />
        <div className="fields spaced">{textField('warnAt', 'Warn me at (% of any budget, e.g. 80, 95; empty: never)', 'text')}</div>
        <BreakerFields breaker={draft.breaker} error={errors.breaker} onChange={(breaker) => edit({ breaker })} />
      </fieldset>
      <ErrorNote error={serverError} />
      <PolicySaveActions busy={busy} saved={saved} pending={pending} timeZone={timeZone} tryUpdate={tryUpdate} />
      <LoosenDialog reasons={confirming?.reasons ?? null} onCancel={cancel} onConfirm={() => confirming && void save(confirming.update)} />
    </form>
  );
}
