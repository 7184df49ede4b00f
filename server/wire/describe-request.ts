/**
 * What an agent asked the owner for, in words: the one wording of a request, shown by the dashboard,
 * the tray menu and the desktop notification alike. Pure and browser-safe (the dashboard imports it).
 */
import { formatUsdc, tryParseUsdc } from './money.js';
import type { BreakerView, PolicyView } from './answers/policy.js';
import { WINDOW_WORDS } from './policy/budget.js';
import type { BudgetWindow } from './policy/windows.js';
import { breakerWords } from './policy/breaker.js';
import { endWords } from './policy/expiry.js';
import { timesMore } from './policy/loosenings.js';
import { DEFAULT_WARN_AT } from './schemas.js';
import { railName } from './rail-words.js';

const LABELS = {
  dailyBudget: 'daily budget',
  maxPerPayment: 'max per payment',
  cooldownSeconds: 'cooldown',
  allowedServices: 'allowed services',
  budgets: 'budgets',
  expiresAt: 'end',
  warnAt: 'warnings at',
  breaker: 'breaker',
  askAbove: 'ask above',
  askNewRecipient: 'ask for a new recipient',
} as const;

/** The fields a policy shows only when set (views.ts policyView): what their absence means. */
const WHEN_ABSENT: Record<string, unknown> = {
  budgets: [],
  expiresAt: null,
  warnAt: DEFAULT_WARN_AT,
  breaker: null,
  askAbove: null,
  askNewRecipient: false,
};

/** The words of a field's value; the owner's time zone, where known, says an end as they typed it. */
type Words = (value: unknown, timeZone: string | null) => string;

/** An end, a list of warning shares, a breaker, in words. */
const end: Words = (value, timeZone) => {
  if (value === null || value === undefined) return 'never';
  return typeof value === 'string' && timeZone !== null ? endWords(value, timeZone) : String(value);
};
const shares = (value: unknown) =>
  Array.isArray(value) ? (value.length === 0 ? 'never' : value.map((share) => `${String(share)} %`).join(', ')) : String(value);
const breaker = (value: unknown) => breakerWords((value ?? undefined) as BreakerView | undefined) ?? 'none';
const askAbove = (value: unknown) => (value === null || value === undefined ? 'never' : `${usdc(value)} USDC`);
const yesNo = (value: unknown) => (value === true ? 'yes' : 'no');
/** The newer fields' words, each compared by its words. */
const NEWER: Record<string, Words> = { expiresAt: end, warnAt: shares, breaker, askAbove, askNewRecipient: yesNo };

/** Budgets as the wire carries them, in words: "50.00 USDC a month; 30 payments in any hour for demo-weather". */
const budgets = (list: unknown) => {
  if (!Array.isArray(list) || list.length === 0) return 'none';
  return (list as { amount?: unknown; count?: unknown; window?: unknown; service?: unknown; recipient?: unknown }[])
    .map((budget) => {
      const scope =
        typeof budget.service === 'string'
          ? ` for ${budget.service}`
          : typeof budget.recipient === 'string'
            ? ` to ${budget.recipient}`
            : '';
      const window = WINDOW_WORDS[budget.window as BudgetWindow] ?? String(budget.window);
      const limit = typeof budget.count === 'number' ? `${budget.count} payments` : `${usdc(budget.amount)} USDC`;
      return `${limit} ${window}${scope}`;
    })
    .join('; ');
};
const services = (list: unknown) => (Array.isArray(list) && list.length > 0 ? list.join(', ') : 'every service');
const usdc = (value: unknown) => {
  const micro = typeof value === 'string' ? tryParseUsdc(value) : null;
  return micro === null ? String(value) : formatUsdc(micro);
};

/** An address in a line: its first and last four characters. */
const shortAddress = (address: string) => (address.length > 12 ? `${address.slice(0, 4)}…${address.slice(-4)}` : address);

/** How many times larger `to` is than `from` (" (1,000×)"), when that says something: loosenings.ts's own words. */
function factor(from: unknown, to: unknown): string {
  const a = typeof from === 'string' ? tryParseUsdc(from) : null;
  const b = typeof to === 'string' ? tryParseUsdc(to) : null;
  const times = a === null || b === null ? null : timesMore(a, b);
  return times === null ? '' : ` (${times})`;
}

function same(field: string, asked: unknown, was: unknown): boolean {
  if (field === 'dailyBudget' || field === 'maxPerPayment') {
    return typeof asked === 'string' && typeof was === 'string' && tryParseUsdc(asked) === tryParseUsdc(was);
  }
  if (field === 'allowedServices') return services(asked) === services(was);
  if (field === 'budgets') return budgets(asked) === budgets(was);
  if (field in NEWER) return NEWER[field]!(asked, null) === NEWER[field]!(was, null);
  return asked === was;
}

function unchanged(field: string, value: unknown, timeZone: string | null): string {
  const label = LABELS[field as keyof typeof LABELS] ?? field;
  const shown =
    field === 'allowedServices'
      ? services(value)
      : field === 'budgets'
        ? budgets(value)
        : field in NEWER
          ? NEWER[field]!(value, timeZone)
          : field === 'cooldownSeconds'
            ? `${String(value)} s`
            : `${usdc(value)} USDC`;
  return `${label} ${shown} (unchanged)`;
}

/** One changed field in words: its name, from what (when the current policy is known) to what. */
function change(field: string, value: unknown, current: PolicyView | null, timeZone: string | null): string {
  const label = LABELS[field as keyof typeof LABELS] ?? field;
  const was = current ? (current[field as keyof PolicyView] ?? WHEN_ABSENT[field]) : undefined;
  switch (field) {
    case 'dailyBudget':
    case 'maxPerPayment':
      return was === undefined ? `${label} → ${usdc(value)} USDC` : `${label} ${usdc(was)} → ${usdc(value)} USDC${factor(was, value)}`;
    case 'cooldownSeconds':
      return was === undefined ? `${label} → ${String(value)} s` : `${label} ${String(was)} s → ${String(value)} s`;
    case 'allowedServices':
      return was === undefined ? `${label} → ${services(value)}` : `${label}: ${services(was)} → ${services(value)}`;
    case 'budgets':
      return was === undefined ? `${label} → ${budgets(value)}` : `${label}: ${budgets(was)} → ${budgets(value)}`;
    case 'expiresAt':
    case 'warnAt':
    case 'breaker':
    case 'askAbove':
    case 'askNewRecipient': {
      const words = NEWER[field]!;
      return current === null ? `${label} → ${words(value, timeZone)}` : `${label}: ${words(was, timeZone)} → ${words(value, timeZone)}`;
    }
    default:
      return `${label} → ${String(value)}`;
  }
}

/**
 * A policy change, field by field ("budgets: 1.00 USDC a month → 30 payments in any hour; breaker: none
 * → …"): every field asked is shown, the ones equal to the current policy said so, so nothing hides,
 * a budget list replaced whole included.
 */
export function policyChangeWords(update: Record<string, unknown>, current: PolicyView | null, timeZone: string | null): string {
  return Object.entries(update)
    .map(([field, value]) =>
      current !== null && same(field, value, current[field as keyof PolicyView] ?? WHEN_ABSENT[field])
        ? unchanged(field, value, timeZone)
        : change(field, value, current, timeZone),
    )
    .join('; ');
}

/**
 * The rail a request moves money on, named as every amount's is ("0.01 USDC on Solana"): a request
 * that names none was made on Solana (the first rail, and the one a request without `rail` means).
 */
const railOf = (rail: unknown): string => railName(rail === 'base' ? 'base' : 'sol');

/**
 * What an agent asked for, in words the owner can judge: amounts in USDC, and for a policy the
 * current value beside the asked one (with how many times larger), so a tenfold budget shows as such.
 * With the owner's time zone, an end reads as they typed it ("the end of 2026-12-31"); without it, as
 * the instant the engine kept.
 */
export function describeRequest(
  kind: string,
  request: Record<string, unknown>,
  current: PolicyView | null = null,
  timeZone: string | null = null,
): string {
  const r = request;
  switch (kind) {
    case 'allocate':
      return `Allocate ${usdc(r.amount)} USDC to its wallet on ${railOf(r.rail)}`;
    case 'resume':
      // Where its breaker stopped it, why (the request's `stoppedBecause`): what the owner decides on.
      return `Resume itself (payments allowed again)${typeof r.stoppedBecause === 'string' ? `: ${r.stoppedBecause}` : ''}`;
    case 'payment': {
      // "Pay 4.00 USDC to demo-weather", with the address when the name is the agent's own label.
      const to = typeof r.recipient === 'string' && r.recipient !== r.service ? ` (${shortAddress(r.recipient)})` : '';
      const reason = r.reason as { code?: string } | undefined;
      return `Pay ${usdc(r.amount)} USDC on ${railOf(r.rail)} to ${String(r.service)}${to}${reason?.code === 'new_recipient' ? ', a recipient it never paid' : ''}`;
    }
    case 'deploy': {
      // The money it moves said too: a yes funds the new wallet from the treasury, and the asking agent collects its key.
      const funded = r.fund === undefined ? '' : `, funded with ${usdc(r.fund)} USDC on ${railOf(r.fundRail)} from the treasury`;
      return `Deploy a new agent “${String(r.agentId)}” (daily budget ${usdc(r.dailyBudget)} USDC, max ${usdc(r.maxPerPayment)} USDC per payment)${funded}`;
    }
    case 'policy':
      return `Change its policy: ${policyChangeWords(r, current, timeZone)}`;
    default:
      return kind;
  }
}
