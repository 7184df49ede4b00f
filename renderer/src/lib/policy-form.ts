import { policyUpdateSchema, describeIssues } from '../../../server/core/schemas.js';
import type { Policy } from '../api/types.js';
import { readableUsdc, timesMore, tryParseUsdc } from './money.js';

/** The policy editor's fields as typed (strings), before validation. */
export interface PolicyDraft {
  dailyBudget: string;
  maxPerPayment: string;
  cooldownSeconds: string;
  /** Any service, or only those picked (the wire says "any" with an empty list). */
  scope: 'any' | 'only';
  allowedServices: string[];
}

export type PolicyErrors = Partial<Record<Exclude<keyof PolicyDraft, 'scope'>, string>>;
export type PolicyUpdate = ReturnType<typeof policyUpdateSchema.parse>;

export const draftOf = (policy: Policy): PolicyDraft => ({
  dailyBudget: policy.dailyBudget,
  maxPerPayment: policy.maxPerPayment,
  cooldownSeconds: String(policy.cooldownSeconds),
  scope: policy.allowedServices.length === 0 ? 'any' : 'only',
  allowedServices: [...policy.allowedServices],
});

/**
 * Validates a draft with the server's own schema (policyUpdateSchema), so the editor refuses exactly
 * what the server would, in the same words. "Only these" with nothing picked is refused here: on the
 * wire an empty list means every service, the opposite of what unticking the last one meant.
 */
export function validatePolicyDraft(draft: PolicyDraft): { ok: true; update: PolicyUpdate } | { ok: false; errors: PolicyErrors } {
  const errors: PolicyErrors = {};
  const cooldownText = draft.cooldownSeconds.trim();
  const candidate = {
    dailyBudget: draft.dailyBudget.trim(),
    maxPerPayment: draft.maxPerPayment.trim(),
    cooldownSeconds: /^\d+$/.test(cooldownText) ? Number(cooldownText) : Number.NaN,
    allowedServices: draft.scope === 'any' ? [] : draft.allowedServices,
  };
  for (const field of ['dailyBudget', 'maxPerPayment', 'cooldownSeconds', 'allowedServices'] as const) {
    const result = policyUpdateSchema.safeParse({ [field]: candidate[field] });
    if (!result.success) errors[field] = describeIssues(result.error).message;
  }
  if (draft.scope === 'only' && draft.allowedServices.length === 0) {
    errors.allowedServices = 'Allowed services: pick at least one, or choose Any service';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, update: policyUpdateSchema.parse(candidate) };
}

/** Loosening by this factor or more is confirmed before it is saved. */
const LARGE_FACTOR = 10n;

/**
 * What in an update loosens the policy a lot, in words, for a confirmation: a limit raised tenfold
 * or more ("Daily budget 5.00 → 1,000,000,000.00 USDC: 200,000,000× the current budget"), a daily
 * budget above what the treasury holds, every service allowed where only some were.
 */
export function loosenings(current: Policy, update: PolicyUpdate, treasuryMicro: bigint | null): string[] {
  const reasons: string[] = [];
  const limits = [
    ['Daily budget', 'budget', current.dailyBudget, update.dailyBudget],
    ['Max per payment', 'limit', current.maxPerPayment, update.maxPerPayment],
  ] as const;
  for (const [label, noun, before, after] of limits) {
    const was = tryParseUsdc(before);
    const next = after === undefined ? null : tryParseUsdc(after);
    if (was === null || next === null || next < was * LARGE_FACTOR) continue;
    reasons.push(`${label} ${readableUsdc(was)} → ${readableUsdc(next)} USDC: ${timesMore(was, next)} the current ${noun}.`);
  }
  const budget = update.dailyBudget === undefined ? null : tryParseUsdc(update.dailyBudget);
  if (budget !== null && treasuryMicro !== null && budget > treasuryMicro) {
    reasons.push(`A daily budget of ${readableUsdc(budget)} USDC is more than the treasury holds (${readableUsdc(treasuryMicro)} USDC).`);
  }
  if (update.allowedServices?.length === 0 && current.allowedServices.length > 0) {
    reasons.push(`Any service may be paid, not only the ${current.allowedServices.length} picked.`);
  }
  return reasons;
}
