/**
 * `coffer policy`'s flags in one readable syntax (issue 25), turned into the policy update the API
 * takes. Its amounts are checked here by the wire's rule, so a bad one names its flag (issue 47); the
 * server's schema (policyUpdateSchema) then judges the whole as it judges any door's:
 *
 *   --budget 50/month  --budget 2/day:demo-weather  --budget 1/7d:<recipient address>
 *   --count 30/hour  --count 100/day:demo-weather
 *   --expires 2026-12-31 | 2026-12-31T18:00:00Z | never
 *   --warn-at 80,95 | none
 *   --breaker 5/10m (5 refusals within 10 minutes) | 50%/15m (half a budget within 15 minutes) | none
 *   --ask-above 5 (payments above 5 USDC wait for the owner; 0: every one) | none
 *   --ask-new-recipient yes | no (the first payment to a recipient never paid waits for the owner)
 *   --daily 5  --max 0.50  --cooldown 30  --allow demo-weather ... | --allow any
 *
 * Budgets replace the whole list (as the API's `budgets` does): name every one to keep, or
 * `--budget none` for none. `--breaker` replaces the breaker likewise: name both its rules to keep both.
 */
import { CofferApiError } from '../client/client-error.js';
import { FIELD_LABELS, amountSchema, askAboveSchema, policyUpdateSchema, type PolicyUpdate } from '../wire/schemas.js';
import { isSolanaAddress } from '../wire/rails.js';
import { BUDGET_WINDOWS } from '../wire/policy/windows.js';
import { isEvmAddress } from '../wire/rails.js';

export interface PolicyFlags {
  budget?: string[];
  count?: string[];
  expires?: string;
  'warn-at'?: string;
  breaker?: string[];
  'ask-above'?: string;
  'ask-new-recipient'?: string;
  daily?: string;
  max?: string;
  cooldown?: string;
  allow?: string[];
}

/** A flag that cannot be read: said in words that name it and show its form. */
export class PolicyFlagError extends Error {}

const WINDOWS = BUDGET_WINDOWS.join(', ');

/** The wire's rule for an amount, as the terminal says it to whoever typed one wrong (a flag, an argument). */
export const AMOUNT_RULE = 'the amount must be a positive decimal of USDC (at most 6 decimals, at most 1,000,000,000)';

/**
 * An amount given to a flag, checked by the wire's own rule, so a bad one is said here with the flag
 * named (`--budget -5/day: the amount must be …`), not by the server as a field of the API.
 */
export function amountOf(flag: string, text: string, amount = text.trim()): string {
  if (amountSchema.safeParse(amount).success) return amount;
  throw new PolicyFlagError(`${flag} ${text}: ${AMOUNT_RULE}, such as 50 or 0.50`);
}

/** "50/month:demo-weather" → its limit, window and scope. */
function limitOver(flag: '--budget' | '--count', text: string) {
  const match = /^([^/:]+)\/([^/:]+)(?::(.+))?$/.exec(text.trim());
  const form =
    flag === '--budget'
      ? 'AMOUNT/WINDOW[:SERVICE or ADDRESS], such as 50/month or 2/day:demo-weather'
      : 'N/WINDOW[:SERVICE or ADDRESS], such as 30/hour';
  if (match === null) throw new PolicyFlagError(`${flag} ${text}: write ${form}`);
  const [, limit, window, scope] = match as unknown as [string, string, string, string | undefined];
  if (!(BUDGET_WINDOWS as readonly string[]).includes(window)) {
    throw new PolicyFlagError(`${flag} ${text}: "${window}" is not a window; one of ${WINDOWS}`);
  }
  // A recipient's address on either rail scopes to that recipient; anything else names a service.
  const scoped = scope === undefined ? {} : isSolanaAddress(scope) || isEvmAddress(scope) ? { recipient: scope } : { service: scope };
  return { limit: limit.trim(), window: window as (typeof BUDGET_WINDOWS)[number], ...scoped };
}

/** "10m", "10min", "2h", "90" (minutes) → minutes. */
function minutesOf(text: string, flag: string): number {
  const match = /^(\d+)\s*(m|min|mins|minutes?|h|hours?)?$/.exec(text.trim());
  if (match === null) throw new PolicyFlagError(`${flag}: "${text}" is not a time; write minutes such as 10m, or hours such as 2h`);
  const count = Number(match[1]);
  return /^h/.test(match[2] ?? '') ? count * 60 : count;
}

/** "5/10m" (refusals) or "50%/15m" (a share of an amount budget spent) → the breaker's rule. */
function breakerRule(text: string): NonNullable<PolicyUpdate['breaker']> {
  const match = /^(\d+)(%?)\/(.+)$/.exec(text.trim());
  if (match === null) {
    throw new PolicyFlagError(
      `--breaker ${text}: write N/TIME (N refusals within TIME, such as 5/10m) or P%/TIME (P % of an amount budget spent within TIME, such as 50%/15m), or none`,
    );
  }
  const [, count, percent, time] = match as unknown as [string, string, string, string];
  const minutes = minutesOf(time, `--breaker ${text}`);
  return percent === '%' ? { spending: { percent: Number(count), minutes } } : { refusals: { count: Number(count), minutes } };
}

const NONE = new Set(['none', 'never', 'off']);
const YES_NO = new Map([
  ['yes', true],
  ['on', true],
  ['true', true],
  ['no', false],
  ['off', false],
  ['false', false],
]);

/** The API's fields as these flags (and `coffer deploy`'s) name them. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  dailyBudget: '--daily',
  maxPerPayment: '--max',
  cooldownSeconds: '--cooldown',
  allowedServices: '--allow',
  budgets: '--budget',
  expiresAt: '--expires',
  warnAt: '--warn-at',
  breaker: '--breaker',
  askAbove: '--ask-above',
  askNewRecipient: '--ask-new-recipient',
  displayName: '--name',
};

/** The update the flags ask for: only what they name. */
export function policyUpdateOf(flags: PolicyFlags): PolicyUpdate {
  const update: PolicyUpdate = {};
  if (flags.daily !== undefined) update.dailyBudget = amountOf('--daily', flags.daily, flags.daily.trim());
  if (flags.max !== undefined) update.maxPerPayment = amountOf('--max', flags.max, flags.max.trim());
  if (flags.cooldown !== undefined) {
    if (!/^\d+$/.test(flags.cooldown.trim())) throw new PolicyFlagError(`--cooldown ${flags.cooldown}: write whole seconds, such as 30`);
    update.cooldownSeconds = Number(flags.cooldown);
  }
  if (flags.allow !== undefined) {
    const any = flags.allow.some((entry) => entry === 'any');
    if (any && flags.allow.length > 1) throw new PolicyFlagError('--allow any allows every service: it goes alone');
    // Each once: the policy keeps a service once, and the words of the change say it once.
    update.allowedServices = any ? [] : [...new Set(flags.allow)];
  }
  const budgets = [
    ...(flags.budget ?? []).map((text) => ({ text, flag: '--budget' as const })),
    ...(flags.count ?? []).map((text) => ({ text, flag: '--count' as const })),
  ];
  if (budgets.length > 0) {
    const named = budgets.filter(({ text }) => !NONE.has(text.trim()));
    if (named.length > 0 && named.length < budgets.length)
      throw new PolicyFlagError('--budget none takes away every budget: it goes alone');
    update.budgets = named.map(({ text, flag }) => {
      const { limit, ...rest } = limitOver(flag, text);
      if (flag === '--budget') return { amount: amountOf(flag, text, limit), ...rest };
      if (!/^\d+$/.test(limit)) throw new PolicyFlagError(`--count ${text}: "${limit}" is not a whole number of payments`);
      return { count: Number(limit), ...rest };
    });
  }
  if (flags.expires !== undefined) update.expiresAt = NONE.has(flags.expires.trim()) ? null : flags.expires.trim();
  if (flags['warn-at'] !== undefined) {
    const text = flags['warn-at'].trim();
    update.warnAt = NONE.has(text)
      ? []
      : text.split(',').map((share) => {
          const value = share.trim().replace(/%$/, '');
          if (!/^\d+$/.test(value)) throw new PolicyFlagError(`--warn-at ${text}: write whole percents, such as 80,95, or none`);
          return Number(value);
        });
  }
  if (flags['ask-above'] !== undefined) {
    const text = flags['ask-above'].trim();
    if (!NONE.has(text) && !askAboveSchema.safeParse(text).success) {
      throw new PolicyFlagError(
        `--ask-above ${flags['ask-above']}: the amount must be a decimal of USDC, 0 or more (at most 6 decimals), such as 5 (0: every payment waits for the owner), or none`,
      );
    }
    update.askAbove = NONE.has(text) ? null : text;
  }
  if (flags['ask-new-recipient'] !== undefined) {
    const text = flags['ask-new-recipient'].trim().toLowerCase();
    if (!YES_NO.has(text)) throw new PolicyFlagError(`--ask-new-recipient ${flags['ask-new-recipient']}: write yes or no`);
    update.askNewRecipient = YES_NO.get(text);
  }
  if (flags.breaker !== undefined) {
    if (flags.breaker.some((text) => NONE.has(text.trim()))) {
      if (flags.breaker.length > 1) throw new PolicyFlagError('--breaker none takes the breaker away: it goes alone');
      update.breaker = null;
    } else {
      const rules = flags.breaker.map(breakerRule);
      const refusals = rules.filter((rule) => 'refusals' in rule);
      const spending = rules.filter((rule) => 'spending' in rule);
      if (refusals.length > 1 || spending.length > 1) {
        throw new PolicyFlagError('--breaker: one rule on refusals (N/TIME) and one on spending (P%/TIME) at most');
      }
      update.breaker = { ...refusals[0], ...spending[0] };
    }
  }
  return checkedBySchema(update, flags);
}

/**
 * The update judged by the wire's own schema, as the server judges it, so what the flags' syntax lets
 * through and the schema refuses (a percent above 100, a day that is none) is said with the flag and
 * what was typed, in the schema's words for the part of it that is wrong.
 */
function checkedBySchema(update: PolicyUpdate, flags: PolicyFlags): PolicyUpdate {
  const checked = policyUpdateSchema.safeParse(update);
  if (checked.success) return update;
  const [issue] = checked.error.issues;
  const [field, ...rest] = issue!.path.map(String);
  // A budget is --budget's or --count's, in that order (policyUpdateOf): the one typed is named.
  const budgetAt = field === 'budgets' && /^\d+$/.test(rest[0] ?? '') ? Number(rest[0]) : null;
  const amounts = flags.budget?.length ?? 0;
  const flag = budgetAt !== null && budgetAt >= amounts ? '--count' : (FLAG_OF_FIELD[field!] ?? field!);
  const typed =
    budgetAt === null
      ? flags[flag.slice(2) as keyof PolicyFlags]
      : flag === '--count'
        ? flags.count?.[budgetAt - amounts]
        : flags.budget?.[budgetAt];
  // The part that is wrong: a breaker's "percent", a share of --warn-at, a service of --allow; the value itself said bare.
  const part =
    rest.filter((key) => !/^\d+$/.test(key)).at(-1) ?? (rest.length > 0 ? (flag === '--allow' ? 'each service' : 'each share') : null);
  // The word --expires's help names (none and off are taken too).
  const message = issue!.message.replace('or null for never', 'or never');
  throw new PolicyFlagError(
    `${flag} ${(Array.isArray(typed) ? typed : [typed ?? '']).map((value) => (value === '' ? '""' : value)).join(' ')}: ${part === null ? '' : `${part} `}${message}`,
  );
}

/**
 * Coffer's refusal of what a flag set, with the flag named where the API's words open with its field
 * ("allowedServices: …" says "--allow: …"): what only the server can judge (the registry, the whole
 * policy) reaches the terminal in the words the owner typed.
 */
export function namingFlags(error: unknown): unknown {
  if (!(error instanceof CofferApiError)) return error;
  // The field by its name ("allowedServices: …") or, as the schema's own words name it, its label ("Expires … is in the past").
  for (const [field, flag] of Object.entries(FLAG_OF_FIELD)) {
    for (const said of [field, FIELD_LABELS[field]]) {
      if (said !== undefined && new RegExp(`^${said}(?=[: ])`).test(error.message)) {
        return new CofferApiError(error.status, error.code, `${flag}${error.message.slice(said.length)}`);
      }
    }
  }
  return error;
}
