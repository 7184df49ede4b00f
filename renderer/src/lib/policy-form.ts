import { policyUpdateSchema, describeIssues } from '../../../server/core/schemas.js';
import type { Policy } from '../api/types.js';

/** The policy editor's fields as typed (strings), before validation. */
export interface PolicyDraft {
  dailyBudget: string;
  maxPerPayment: string;
  cooldownSeconds: string;
  allowedServices: string[];
}

export type PolicyErrors = Partial<Record<keyof PolicyDraft, string>>;

export const draftOf = (policy: Policy): PolicyDraft => ({
  dailyBudget: policy.dailyBudget,
  maxPerPayment: policy.maxPerPayment,
  cooldownSeconds: String(policy.cooldownSeconds),
  allowedServices: [...policy.allowedServices],
});

/**
 * Validates a draft with the server's own schema (policyUpdateSchema), so the editor refuses exactly
 * what the server would. Returns the update to send, or the errors per field.
 */
export function validatePolicyDraft(draft: PolicyDraft): { ok: true; update: ReturnType<typeof policyUpdateSchema.parse> } | { ok: false; errors: PolicyErrors } {
  const errors: PolicyErrors = {};
  const cooldownText = draft.cooldownSeconds.trim();
  const cooldown = /^\d+$/.test(cooldownText) ? Number(cooldownText) : Number.NaN;
  const candidate = {
    dailyBudget: draft.dailyBudget.trim(),
    maxPerPayment: draft.maxPerPayment.trim(),
    cooldownSeconds: cooldown,
    allowedServices: draft.allowedServices,
  };
  for (const field of ['dailyBudget', 'maxPerPayment', 'cooldownSeconds', 'allowedServices'] as const) {
    const result = policyUpdateSchema.safeParse({ [field]: candidate[field] });
    if (!result.success) errors[field] = field === 'cooldownSeconds' && Number.isNaN(cooldown)
      ? 'cooldownSeconds must be a whole number of seconds'
      : describeIssues(result.error).message.replace(/^[a-zA-Z]+: /, '');
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, update: policyUpdateSchema.parse(candidate) };
}
