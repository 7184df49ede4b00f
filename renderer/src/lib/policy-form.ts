import { z } from 'zod';
import { DEFAULT_WARN_AT, describeIssues, policyUpdateSchema, type BreakerBody, type BudgetBody } from '../../../server/wire/schemas.js';
import { breakerOf } from '../../../server/wire/policy/breaker.js';
import { expiryOf } from '../../../server/wire/policy/expiry.js';
import { askAboveOf, assertAskWithinMax } from '../../../server/wire/policy/asks.js';
import { limitsOnly } from '../../../server/wire/policy/policy.js';
import type { Policy } from '../api/types.js';
import { budgetCandidate, budgetDraftOf, type BudgetDraft } from './budget-draft.js';
import { formatUsdc, tryParseUsdc } from './money.js';
import { dayEndingAt } from './policy-words.js';
import { instantOfWallTime, wallTimeIn } from './time-zone.js';
import { dayIn } from '../../../server/wire/policy/expiry.js';

/** When the policy ends, as picked: never, at the end of a day, or at a time (both in the owner's time zone). */
export interface EndDraft {
  mode: 'never' | 'day' | 'time';
  /** A date input's value: "2026-12-31". */
  day: string;
  /** A datetime-local input's value, without an offset, read in the owner's time zone: "2026-12-31T18:00". */
  time: string;
}

/** The breaker's two ways to trip, each on or off, with its numbers as typed. */
export interface BreakerDraft {
  refusals: { on: boolean; count: string; minutes: string };
  spending: { on: boolean; percent: string; minutes: string };
}

/** The policy editor's fields as typed (strings), before validation. */
export interface PolicyDraft {
  dailyBudget: string;
  maxPerPayment: string;
  cooldownSeconds: string;
  /** Any service, or only those picked (the wire says "any" with an empty list). */
  scope: 'any' | 'only';
  allowedServices: string[];
  budgets: BudgetDraft[];
  end: EndDraft;
  /** Shares of a budget at which the owner is told, as typed ("80, 95"); empty for none. */
  warnAt: string;
  breaker: BreakerDraft;
  /** Payments above this amount wait for the owner's yes, as typed ("5.00"; "0": every one); empty for never. */
  askAbove: string;
  /** The first payment to a recipient the agent never paid waits for the owner's yes. */
  askNewRecipient: boolean;
}

type PolicyField =
  | 'dailyBudget'
  | 'maxPerPayment'
  | 'cooldownSeconds'
  | 'allowedServices'
  | 'budgets'
  | 'expiresAt'
  | 'warnAt'
  | 'breaker'
  | 'askAbove'
  | 'askNewRecipient';

/** A budget row's first problem, and which of its inputs it is about (null: the row as a whole). */
export interface BudgetRowError {
  message: string;
  field: 'limit' | 'window' | 'service' | 'recipient' | null;
}

/** Each field's first problem; `budgets` is the list's own (too many), `budgetRows` each row's, by its key. */
export type PolicyErrors = Partial<Record<PolicyField, string>> & { budgetRows?: Record<string, BudgetRowError> };
export type PolicyUpdate = ReturnType<typeof policyUpdateSchema.parse>;

/**
 * What the editor judges an end against: now, and the owner's time zone (GET /v1/settings), where the
 * server ends a day and where the editor reads the days and times it shows, not this browser's zone.
 */
export interface PolicyClock {
  now: number;
  timeZone: string;
}

const BREAKER_DEFAULTS: BreakerDraft = {
  refusals: { on: false, count: '5', minutes: '10' },
  spending: { on: false, percent: '50', minutes: '15' },
};

/** The editor's fields for a policy, its end read in the owner's time zone. */
export const draftOf = (policy: Policy, timeZone: string): PolicyDraft => ({
  dailyBudget: policy.dailyBudget,
  maxPerPayment: policy.maxPerPayment,
  cooldownSeconds: String(policy.cooldownSeconds),
  scope: policy.allowedServices.length === 0 ? 'any' : 'only',
  allowedServices: [...policy.allowedServices],
  budgets: (policy.budgets ?? []).map(budgetDraftOf),
  end: endDraftOf(policy.expiresAt ?? null, timeZone),
  warnAt: (policy.warnAt ?? DEFAULT_WARN_AT).join(', '),
  breaker: breakerDraftOf(policy.breaker ?? null),
  askAbove: policy.askAbove ?? '',
  askNewRecipient: policy.askNewRecipient === true,
});

/** An end as the editor shows it: the end of a day in the owner's zone as that day, any other moment as its time there. */
function endDraftOf(expiresAt: string | null, timeZone: string): EndDraft {
  if (expiresAt === null) return { mode: 'never', day: '', time: '' };
  const at = Date.parse(expiresAt);
  const time = wallTimeIn(at, timeZone);
  const day = dayEndingAt(expiresAt, timeZone);
  return day === null ? { mode: 'time', day: dayIn(at, timeZone), time } : { mode: 'day', day, time };
}

function breakerDraftOf(breaker: BreakerBody | null): BreakerDraft {
  const { refusals, spending } = BREAKER_DEFAULTS;
  return {
    refusals: breaker?.refusals
      ? { on: true, count: String(breaker.refusals.count), minutes: String(breaker.refusals.minutes) }
      : { ...refusals },
    spending: breaker?.spending
      ? { on: true, percent: String(breaker.spending.percent), minutes: String(breaker.spending.minutes) }
      : { ...spending },
  };
}

/** A whole number as typed, or NaN (which the server's schema refuses in its own words). */
const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN);

/**
 * The end as the wire carries it: null, a day as is (the server ends it in the owner's zone), or a
 * time read in the owner's zone, sent as the moment it names (ISO, UTC); a time that names none goes
 * as typed, for the schema to refuse in its words.
 */
function endCandidate(end: EndDraft, timeZone: string): string | null {
  if (end.mode === 'never') return null;
  if (end.mode === 'day') return end.day.trim();
  const at = instantOfWallTime(end.time, timeZone);
  return Number.isNaN(at) ? end.time : new Date(at).toISOString();
}

/** The shares as typed: "80, 95" or "80 % 95 %" as ["80", "95"]. */
const sharesTyped = (text: string) =>
  text
    .replace(/%/g, ' ')
    .split(/[\s,;]+/)
    .filter((token) => token !== '');

/** "80, 95" or "80 % 95 %" as [80, 95]; anything else goes as NaN for the schema to refuse. */
const sharesCandidate = (text: string) => sharesTyped(text).map(whole);

function breakerCandidate(breaker: BreakerDraft) {
  const { refusals, spending } = breaker;
  if (!refusals.on && !spending.on) return null;
  return {
    ...(refusals.on ? { refusals: { count: whole(refusals.count), minutes: whole(refusals.minutes) } } : {}),
    ...(spending.on ? { spending: { percent: whole(spending.percent), minutes: whole(spending.minutes) } } : {}),
  };
}

const SINGLE_FIELDS = [
  'dailyBudget',
  'maxPerPayment',
  'cooldownSeconds',
  'allowedServices',
  'expiresAt',
  'warnAt',
  'breaker',
  'askAbove',
  'askNewRecipient',
] as const;

/**
 * Validates a draft with the server's own schema (policyUpdateSchema), so the editor refuses exactly
 * what the server would, in the same words, next to the field (a budget's next to its row). Then it
 * keeps only what changed from `current`: the server applies the fields sent, and an unchanged one
 * sent again could be refused on its own (an end that has passed since it was set). A changed field
 * goes whole (budgets: the new list). "Only these" with nothing picked is refused here: on the wire
 * an empty list means every service, the opposite of what unticking the last one meant.
 */
export function validatePolicyDraft(
  draft: PolicyDraft,
  current: Policy,
  clock: PolicyClock,
): { ok: true; update: PolicyUpdate } | { ok: false; errors: PolicyErrors } {
  const errors: PolicyErrors = {};
  const candidate = {
    dailyBudget: draft.dailyBudget.trim(),
    maxPerPayment: draft.maxPerPayment.trim(),
    cooldownSeconds: whole(draft.cooldownSeconds),
    allowedServices: draft.scope === 'any' ? [] : draft.allowedServices,
    budgets: draft.budgets.map(budgetCandidate),
    expiresAt: endCandidate(draft.end, clock.timeZone),
    warnAt: sharesCandidate(draft.warnAt),
    breaker: breakerCandidate(draft.breaker),
    askAbove: draft.askAbove.trim() === '' ? null : draft.askAbove.trim(),
    askNewRecipient: draft.askNewRecipient,
  };
  for (const field of SINGLE_FIELDS) {
    const result = policyUpdateSchema.safeParse({ [field]: candidate[field] });
    if (!result.success) errors[field] = inTheEditorsWords(field, result.error, draft);
  }
  Object.assign(errors, budgetErrors(draft.budgets, candidate.budgets));
  if (draft.scope === 'only' && draft.allowedServices.length === 0) {
    errors.allowedServices = 'Allowed services: pick at least one, or choose Any service';
  }
  if (candidate.expiresAt === '') {
    errors.expiresAt =
      draft.end.mode === 'day' ? 'Expires: pick a day, or choose Never' : 'Expires: pick a day and a time, or choose Never';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  // Every field was in the candidate, so every field is in what the schema answers.
  const full = policyUpdateSchema.parse(candidate) as Required<PolicyUpdate>;
  const endTouched = JSON.stringify(draft.end) !== JSON.stringify(endDraftOf(current.expiresAt ?? null, clock.timeZone));
  const update = changes(current, full, endTouched, clock.timeZone);
  if (typeof update.expiresAt === 'string') {
    try {
      // The server refuses an end already past; the schema knows no clock, server/wire/policy/expiry.ts does.
      expiryOf(update.expiresAt, clock.now, clock.timeZone);
    } catch (error) {
      return { ok: false, errors: { expiresAt: (error as Error).message } };
    }
  }
  if (typeof update.askAbove === 'string') {
    try {
      // A threshold set above the max per payment would never ask: the server refuses it as it is set (server/wire/policy/asks.ts).
      assertAskWithinMax({ ...limitsOnly(0n, tryParseUsdc(full.maxPerPayment) ?? 0n), askAbove: askAboveOf(update.askAbove) });
    } catch (error) {
      return { ok: false, errors: { askAbove: (error as Error).message } };
    }
  }
  return { ok: true, update };
}

/**
 * The server's words, where the editor names a thing otherwise (helper 181): a warning share by what
 * was typed, not counted as the wire's "item 2"; no threshold as the empty field it is, not the wire's null.
 */
function inTheEditorsWords(field: PolicyField, error: z.ZodError, draft: PolicyDraft): string {
  const [issue] = error.issues;
  const share = issue?.path[1];
  if (field === 'warnAt' && typeof share === 'number' && issue !== undefined) {
    const typed = sharesTyped(draft.warnAt)[share];
    if (typed !== undefined) return `Warn at: "${typed}" ${issue.message}`;
  }
  const message = describeIssues(error).message;
  return field === 'askAbove' ? message.replace(/, or null for none$/, ', or empty for never') : message;
}

/**
 * A max per payment above the daily budget is the owner's to set, and never binds: no payment can be
 * larger than what 24 hours allow. Said beside the field, not refused (the server takes it).
 */
export function maxAboveDailyNote(draft: Pick<PolicyDraft, 'dailyBudget' | 'maxPerPayment'>): string | null {
  const daily = tryParseUsdc(draft.dailyBudget.trim());
  const max = tryParseUsdc(draft.maxPerPayment.trim());
  if (daily === null || max === null || max <= daily) return null;
  return `Above the daily budget: no payment can be larger than ${formatUsdc(daily)}, what 24 hours allow`;
}

/** What Save would send for the draft now, or null while it is invalid or changes nothing: what the editor tries on past payments. */
export function pendingUpdate(draft: PolicyDraft, current: Policy, clock: PolicyClock): PolicyUpdate | null {
  const result = validatePolicyDraft(draft, current, clock);
  return result.ok && Object.keys(result.update).length > 0 ? result.update : null;
}

/** Each budget row's first problem under that row (in the server's words); the list's own under the list. */
function budgetErrors(rows: BudgetDraft[], candidates: unknown[]): Pick<PolicyErrors, 'budgets' | 'budgetRows'> {
  const result = policyUpdateSchema.safeParse({ budgets: candidates });
  if (result.success) return {};
  const found: Pick<PolicyErrors, 'budgets' | 'budgetRows'> = {};
  for (const issue of result.error.issues) {
    const message = describeIssues(new z.ZodError([issue])).message;
    const row = typeof issue.path[1] === 'number' ? rows[issue.path[1]] : undefined;
    if (row === undefined) {
      found.budgets ??= message;
      continue;
    }
    found.budgetRows ??= {};
    found.budgetRows[row.key] ??= { message, field: rowField(issue.path[2]) };
  }
  return found;
}

function rowField(part: PropertyKey | undefined): BudgetRowError['field'] {
  if (part === 'amount' || part === 'count') return 'limit';
  return part === 'window' || part === 'service' || part === 'recipient' ? part : null;
}

/** The moment an end names (a day: its end in `timeZone`); server/wire/policy/expiry.ts's own reading, with no "now" to be past. */
const endInstant = (expiresAt: string | null, timeZone: string) => expiryOf(expiresAt, Number.NEGATIVE_INFINITY, timeZone);

const sameMicro = (a: string, b: string) => tryParseUsdc(a) === tryParseUsdc(b);
const sortedUnique = <T extends string | number>(list: readonly T[]) => [...new Set(list)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const sameSet = <T extends string | number>(a: readonly T[], b: readonly T[]) =>
  JSON.stringify(sortedUnique(a)) === JSON.stringify(sortedUnique(b));
const budgetKey = (budget: BudgetBody) =>
  JSON.stringify([
    budget.amount === undefined ? null : formatUsdc(tryParseUsdc(budget.amount) ?? 0n),
    budget.count ?? null,
    budget.window,
    budget.service ?? null,
    budget.recipient ?? null,
  ]);
const sameBudgets = (a: readonly BudgetBody[], b: readonly BudgetBody[]) =>
  a.length === b.length && a.every((budget, i) => budgetKey(budget) === budgetKey(b[i]!));

/** The fields of `full` that differ from the current policy (amounts by value, lists as sets where the server keeps sets). */
function changes(current: Policy, full: Required<PolicyUpdate>, endTouched: boolean, timeZone: string): PolicyUpdate {
  const update: PolicyUpdate = {};
  if (!sameMicro(full.dailyBudget, current.dailyBudget)) update.dailyBudget = full.dailyBudget;
  if (!sameMicro(full.maxPerPayment, current.maxPerPayment)) update.maxPerPayment = full.maxPerPayment;
  if (full.cooldownSeconds !== current.cooldownSeconds) update.cooldownSeconds = full.cooldownSeconds;
  if (!sameSet(full.allowedServices, current.allowedServices)) update.allowedServices = full.allowedServices;
  if (!sameBudgets(full.budgets, current.budgets ?? [])) update.budgets = full.budgets;
  // An end left as shown is unchanged, whatever its seconds; one picked again at the same moment too.
  if (endTouched && endInstant(full.expiresAt, timeZone) !== endInstant(current.expiresAt ?? null, timeZone)) {
    update.expiresAt = full.expiresAt;
  }
  if (!sameSet(full.warnAt, current.warnAt ?? DEFAULT_WARN_AT)) update.warnAt = full.warnAt;
  if (JSON.stringify(breakerOf(full.breaker)) !== JSON.stringify(breakerOf(current.breaker ?? null))) update.breaker = full.breaker;
  if (askAboveOf(full.askAbove) !== askAboveOf(current.askAbove ?? null)) update.askAbove = full.askAbove;
  if (full.askNewRecipient !== (current.askNewRecipient === true)) update.askNewRecipient = full.askNewRecipient;
  return update;
}
