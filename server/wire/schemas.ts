/**
 * Request schemas, written once: HTTP validation, MCP tool inputs and the renderer's client all use
 * these. The stable error code of a failed check comes from the field it failed on (FIELD_CODES).
 */
import { APPROVAL_ID } from './approval-id.js';
import { z } from 'zod';
import { tryParseUsdc, MAX_AMOUNT_MICRO } from './money.js';
import { BUDGET_WINDOWS } from './policy/windows.js';
import { didYouMean } from './did-you-mean.js';
import { isHonestName, isHonestText, LYING_MESSAGE } from './honest-text.js';
import { issueWords } from './issue-words.js';
import { RAILS, checksummedEvmAddress, isEvmAddress, isSolanaAddress, isZeroEvmAddress } from './rails.js';
import { canonicalTimeZone, isTimeZone } from './time-zones.js';
import { urlAsSent } from './url-as-sent.js';
import { LIST_LIMITS } from './limits.js';

/** How many unknown fields a message names, and how much of each: it repeats what a client sent. */
const UNKNOWN_NAMED = 5;
const UNKNOWN_NAME_CHARS = 60;

/**
 * An object of a request, strict: a field it does not know is refused by name, with the field it most
 * likely meant (`unknown field "ammount" (did you mean "amount"?)`); describeIssues says it before what
 * is then missing, since a typo is usually why a required field is absent. Every door (HTTP, MCP, the
 * dashboard's forms) reads the same words, written here once. A query's are its parameters
 * (`unknown query parameter "stauts"`).
 */
export const strictFields = <const S extends z.core.$ZodLooseShape>(shape: S, noun: 'field' | 'query parameter' = 'field') =>
  z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      // The object that refused them (a picked copy knows only its own fields), less what the body holds.
      const known = issue.inst instanceof z.ZodObject ? Object.keys(issue.inst.shape) : Object.keys(shape);
      const sent = typeof issue.input === 'object' && issue.input !== null ? Object.keys(issue.input) : [];
      const candidates = known.filter((field) => !sent.includes(field));
      const named = issue.keys
        .slice(0, UNKNOWN_NAMED)
        .map((key) => `${JSON.stringify(key.slice(0, UNKNOWN_NAME_CHARS))}${didYouMean(key, candidates)}`);
      const more = issue.keys.length > UNKNOWN_NAMED ? ` and ${issue.keys.length - UNKNOWN_NAMED} more` : '';
      return `unknown ${noun}${issue.keys.length === 1 ? '' : 's'} ${named.join(', ')}${more}`;
    },
  });

export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const agentIdSchema = z.string().regex(AGENT_ID_PATTERN, {
  message: 'must be 1-64 characters of a-z, 0-9, "_" or "-", starting with a letter or digit',
});

/** The `:agentId` of a path, as a named field so a bad one is `invalid_agent_id` like a bad body field. */
export const agentPathSchema = z.object({ agentId: agentIdSchema });

const AMOUNT_RULE = 'must be a decimal number of USDC greater than 0 and at most 1,000,000,000, with at most 6 decimals, such as 0.01';
/** What a client that sent a number (JSON, an MCP host) is told: the wire carries amounts as text. */
const AMOUNT_TYPE_RULE =
  'must be a decimal number of USDC greater than 0 and at most 1,000,000,000, with at most 6 decimals (such as "0.01", sent as a string)';
export const amountSchema = z.string({ error: (issue) => (issue.input === undefined ? 'is required' : AMOUNT_TYPE_RULE) }).refine(
  (text) => {
    const micro = tryParseUsdc(text);
    return micro !== null && micro > 0n && micro <= MAX_AMOUNT_MICRO;
  },
  { message: AMOUNT_RULE },
);

/** USDC refuses a transfer to the EVM zero address: a recipient, or an allowed service, that is it pays no one. */
const ZERO_ADDRESS_WORDS = 'is the EVM zero address, which USDC refuses to pay';

/**
 * Who is paid: a Solana address (paid on Solana) or an EVM address (paid in USDC on Base), the
 * latter kept in its EIP-55 spelling so one account is one string in the ledger and its budgets.
 */
export const recipientSchema = z
  .string()
  .refine(
    (text) => isSolanaAddress(text) || isEvmAddress(text),
    'is not a Solana address (base58, 32 bytes) or an EVM address (0x and 40 hex digits, in one case or its checksum spelling)',
  )
  .refine((text) => !isZeroEvmAddress(text), ZERO_ADDRESS_WORDS)
  .transform((text) => (isEvmAddress(text) ? checksummedEvmAddress(text) : text));

export const currencySchema = z.string().optional();

/** A single-line name, and multi-line text. */
const honestLine = <T extends z.ZodString>(schema: T) => schema.refine(isHonestName, LYING_MESSAGE);
const honestText = <T extends z.ZodString>(schema: T) => schema.refine(isHonestText, LYING_MESSAGE);

export const serviceIdSchema = honestLine(z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'));

const cooldownSchema = z
  .number({ error: 'must be a whole number of seconds' })
  .int('must be a whole number of seconds')
  .min(0, 'must be 0 or more')
  .max(31_536_000, 'must be at most one year (31,536,000 seconds)');

/** Registry ids and recipients' addresses; an EVM address kept in its EIP-55 spelling, as a payment names it. */
const allowedServicesSchema = z
  .array(
    serviceIdSchema
      .refine((entry) => !isZeroEvmAddress(entry), ZERO_ADDRESS_WORDS)
      .transform((entry) => (isEvmAddress(entry) ? checksummedEvmAddress(entry) : entry)),
  )
  .max(500, 'holds at most 500 services');

/**
 * A budget as the wire carries it: at most `amount` USDC, or at most `count` payments, over `window`
 * (policy/windows.ts), for every payment, one registry service's (`service`) or one recipient's
 * (`recipient`). Its amount read by `amount` (the MCP tools take a JSON number too), judged by the
 * same rules.
 */
export const budgetWith = <A extends z.ZodType<string, unknown>>(amount: A) =>
  strictFields({
    amount: amount.optional(),
    count: z
      .number({ error: 'must be a whole number of payments' })
      .int('must be a whole number of payments')
      .min(1, 'must be at least 1')
      .max(1_000_000, 'must be at most 1,000,000')
      .optional(),
    window: z.enum(BUDGET_WINDOWS, { error: `must be one of ${BUDGET_WINDOWS.join(', ')}` }),
    service: serviceIdSchema.optional(),
    recipient: recipientSchema.optional(),
  })
    .refine(
      (budget) => (budget.amount === undefined) !== (budget.count === undefined),
      'holds an amount or a count of payments, one of the two',
    )
    .refine((budget) => budget.service === undefined || budget.recipient === undefined, 'names a service or a recipient, not both');
export const budgetSchema = budgetWith(amountSchema);
export type BudgetBody = z.infer<typeof budgetSchema>;
/** How many budgets a policy holds at most. */
export const MAX_BUDGETS = 20;
/** A policy's budgets, each as `budget` reads it (the MCP tools' take an amount as a JSON number too). */
export const budgetsOf = <B extends z.ZodType>(budget: B) => z.array(budget).max(MAX_BUDGETS, `holds at most ${MAX_BUDGETS} budgets`);
const budgetsSchema = budgetsOf(budgetSchema);

/**
 * When a policy ends: a time with its offset, to the second or the minute ("2026-12-31T18:00:00Z",
 * "2026-12-31T18:00Z"), or a day ("2026-12-31": at the end of that day in the owner's time zone,
 * expiry.ts); null: never. A time already past is refused where it is applied (the schema knows no clock).
 */
export const expiresAtSchema = z
  .union([z.iso.date(), z.iso.datetime({ offset: true }), z.iso.datetime({ offset: true, precision: -1 })], {
    error: 'must be a day ("2026-12-31") or a time with its offset ("2026-12-31T18:00:00Z"), or null for never',
  })
  .nullable();

/** Shares of a budget (percent) at which the owner is told; [] tells nothing (server/core/policy/budget-warnings.ts). */
export const warnAtSchema = z
  .array(
    z
      .number({ error: 'must be a whole percent' })
      .int('must be a whole percent')
      .min(1, 'must be at least 1')
      .max(100, 'must be at most 100'),
  )
  .max(5, 'holds at most 5 shares')
  // [50, 50] would say one warning twice, or look like two; the repeat is named.
  .superRefine((shares, ctx) => {
    const repeated = shares.find((share, index) => shares.indexOf(share) !== index);
    if (repeated !== undefined) ctx.addIssue({ code: 'custom', message: `holds ${repeated} twice: name each share once` });
  });
const ASK_ABOVE_RULE =
  'must be an amount of USDC, 0 or more with at most 6 decimals (such as "5.00": payments above it wait for the owner; "0": every payment does), or null for none';
/** Payments above this amount wait for the owner's yes (server/core/policy/holds.ts); null: none waits for its amount. */
export const askAboveSchema = z
  .string({ error: ASK_ABOVE_RULE })
  .refine(
    (text) => {
      const micro = tryParseUsdc(text);
      return micro !== null && micro <= MAX_AMOUNT_MICRO;
    },
    { message: ASK_ABOVE_RULE },
  )
  // Described, so that its JSON Schema is anyOf [string, null] rather than a `type` array (MCP hosts).
  .describe('USDC as a decimal string')
  .nullable();
export const askNewRecipientSchema = z.boolean({ error: 'must be true or false' });

/** The default: the owner is told as a budget passes 80 % and 95 %. */
export const DEFAULT_WARN_AT: readonly number[] = [80, 95];

const breakerMinutesSchema = z
  .number({ error: 'must be a whole number of minutes' })
  .int('must be a whole number of minutes')
  .min(1, 'must be at least 1')
  .max(1440, 'must be at most 1,440 (a day)');
/**
 * When an agent stops itself (breaker.ts): after `refusals.count` refused payments within
 * `refusals.minutes`, or once its payments within `spending.minutes` add up to `spending.percent` of
 * a budget they fall under. Either or both; null: no breaker.
 */
export const breakerSchema = strictFields({
  refusals: strictFields({
    count: z
      .number({ error: 'must be a whole number of refusals' })
      .int('must be a whole number of refusals')
      .min(1, 'must be at least 1')
      .max(10_000, 'must be at most 10,000'),
    minutes: breakerMinutesSchema,
  }).optional(),
  spending: strictFields({
    percent: z
      .number({ error: 'must be a whole percent' })
      .int('must be a whole percent')
      .min(1, 'must be at least 1')
      .max(100, 'must be at most 100'),
    minutes: breakerMinutesSchema,
  }).optional(),
})
  .refine(
    (breaker) => breaker.refusals !== undefined || breaker.spending !== undefined,
    'trips on refusals, on spending, or both: name one',
  )
  .nullable();
export type BreakerBody = z.infer<typeof breakerSchema>;

/** A rail by its name: `sol` (Solana) or `base` (Base). */
export const railSchema = z.enum(RAILS, { error: 'must be "sol" or "base"' });

/**
 * The owner's settings, each optional, at least one: their time zone (null: the machine's), and the
 * rail x402 purchases are paid on where a seller takes both (null: none; the first with the funds). A
 * zone Intl knows under another spelling is kept in its canonical one: the name meant is beyond doubt,
 * and a zone stored one way compares, shows and audits the same everywhere (never "utc" beside "UTC").
 */
export const settingsBodySchema = strictFields({
  timeZone: z
    .string({ error: 'must be a time zone by its name, such as "Europe/Berlin", or null for the machine\'s' })
    .max(100, 'must be at most 100 characters')
    .refine(isTimeZone, {
      // The name typed, quoted (cut short): "Time zone is not a time zone" named nothing to correct.
      error: (issue) =>
        `is ${JSON.stringify(String(issue.input).slice(0, 60))}, which is not a time zone: name one such as "Europe/Berlin", "America/New_York" or "UTC"`,
    })
    .transform((name) => canonicalTimeZone(name) ?? name)
    .nullable()
    .optional(),
  preferredRail: railSchema.nullable().optional(),
}).refine((body) => body.timeZone !== undefined || body.preferredRail !== undefined, {
  message: 'names no setting to change: send timeZone, preferredRail or both',
});
export type SettingsBody = z.infer<typeof settingsBodySchema>;

/** Hosts an x402 facilitator may be reached on over plain http: this machine only (a test or a local facilitator). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A facilitator's base URL, as the official clients take it (`https://x402.org/facilitator`): https,
 * or http on this machine; no credentials, query or fragment (Coffer appends `/discovery/resources`
 * and its own query). Answered without a trailing slash, so one facilitator has one spelling.
 */
export const facilitatorUrlSchema = z
  .string({ error: 'must be the URL of an x402 facilitator, or null for none' })
  .trim()
  .max(500, 'must be at most 500 characters')
  .superRefine((text, ctx) => {
    const problem = facilitatorUrlProblem(text);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((text) => {
    const url = new URL(text);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  });

/** Why a text is no facilitator URL Coffer will send payments to be judged by, or null when it is one. */
export function facilitatorUrlProblem(text: string): string | null {
  if (!URL.canParse(text)) return 'is not a URL: name the facilitator as https://host/path (for example https://x402.org/facilitator)';
  const url = new URL(text);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    return 'must be an https URL (plain http only on this machine: 127.0.0.1, localhost, [::1])';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.search !== '' || url.hash !== '')
    return 'must not carry a query or a fragment: Coffer adds /discovery/resources and its own query';
  return null;
}

/** Bazaar discovery: the facilitator whose discovery list the registry shows beside the catalog (null: none, off). */
export const bazaarBodySchema = strictFields({ facilitator: facilitatorUrlSchema.nullable() });
export type BazaarBody = z.infer<typeof bazaarBodySchema>;

export const displayNameSchema = honestLine(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'));

export const deployBodySchema = strictFields({
  agentId: agentIdSchema,
  dailyBudget: amountSchema,
  maxPerPayment: amountSchema,
  cooldownSeconds: cooldownSchema.optional(),
  allowedServices: allowedServicesSchema.optional(),
  budgets: budgetsSchema.optional(),
  expiresAt: expiresAtSchema.optional(),
  warnAt: warnAtSchema.optional(),
  breaker: breakerSchema.optional(),
  askAbove: askAboveSchema.optional(),
  askNewRecipient: askNewRecipientSchema.optional(),
  displayName: displayNameSchema.optional(),
  /** Moved from the treasury to the new wallet in the same step (an allocation). */
  fund: amountSchema.optional(),
  /** The rail `fund` moves on (`sol` when left out). */
  fundRail: railSchema.optional(),
});
export type DeployBody = z.infer<typeof deployBodySchema>;

export const policyUpdateSchema = strictFields({
  dailyBudget: amountSchema.optional(),
  maxPerPayment: amountSchema.optional(),
  cooldownSeconds: cooldownSchema.optional(),
  allowedServices: allowedServicesSchema.optional(),
  budgets: budgetsSchema.optional(),
  expiresAt: expiresAtSchema.optional(),
  warnAt: warnAtSchema.optional(),
  breaker: breakerSchema.optional(),
  askAbove: askAboveSchema.optional(),
  askNewRecipient: askNewRecipientSchema.optional(),
});
export type PolicyUpdate = z.infer<typeof policyUpdateSchema>;

/** The rail a move of money between the treasury and an agent is on (`sol` when left out). */
export const allocateBodySchema = strictFields({ amount: amountSchema, rail: railSchema.optional() });
/** Giving an agent's USDC back to the treasury: `amount`, or (left out) everything available. */
export const returnBodySchema = strictFields({ amount: amountSchema.optional(), rail: railSchema.optional() });
export const faucetBodySchema = allocateBodySchema;

export const renameBodySchema = strictFields({ displayName: displayNameSchema });

/** The body of a POST that takes none (kill, archive, a new key, approve, …): none at all, or `{}`. */
export const noBodySchema = z.strictObject({}, { error: 'this request takes no body: send none, or {}' });

export const payBodySchema = strictFields({
  service: serviceIdSchema,
  amount: amountSchema,
  currency: currencySchema,
  description: honestText(z.string().max(500, 'must be at most 500 characters')).optional(),
  recipient: recipientSchema.optional(),
  /** Which of a registry service's addresses is paid: its Solana one (the default) or its Base one. */
  rail: railSchema.optional(),
  nonce: z
    .string()
    .min(1)
    .max(200, 'must be at most 200 characters')
    .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII')
    .optional(),
});
export type PayBody = z.infer<typeof payBodySchema>;

/** Response headers as a plain map: names and values a 402 or a paid answer carries. */
const headersSchema = z
  .unknown()
  // A token, but no key a plain object keeps: zod's record leaves it out, and the headers read would lose it unsaid.
  .refine((headers) => typeof headers !== 'object' || headers === null || !Object.hasOwn(headers, '__proto__'), {
    message: 'a header named __proto__ cannot be read',
    abort: true,
  })
  .pipe(
    z.record(
      z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, 'header names are HTTP tokens (at most 100 characters)'),
      // What an HTTP header value can be: one line of Latin-1 text.
      z
        .string('header values are text')
        .max(16_384, 'header values are at most 16384 characters')
        .regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'header values are single lines of text'),
      'must be an object of header names to values',
    ),
  )
  // Typed as what it takes (a map of header names to values), not as the unknown its first step reads.
  .refine((headers) => Object.keys(headers).length <= 64, 'at most 64 headers') as unknown as z.ZodType<
  Record<string, string>,
  Record<string, string>
>;

/**
 * An x402 seller's 402, handed to Coffer to pay: the URL asked, and the answer as it came (status,
 * headers, body). Coffer reads the offer from it with the official x402 packages.
 */
export const x402PayBodySchema = strictFields({
  url: z
    .string()
    .max(2000, 'must be at most 2000 characters')
    .refine((text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), 'must be an http(s) URL')
    // Shown as given (the payment's resource, its default description): a URL as sent holds no space
    // and nothing that would lie on the owner's screen (the parser would drop or encode it).
    .refine(
      (text) => isHonestName(text) && !/\s/.test(text),
      'must be as sent: no spaces, control characters, bidirectional controls or invisible characters',
    )
    // It is the payment's `resource`, shown in the agent's history, the owner's activity and audit:
    // a password in it would be written down everywhere (no x402 seller's URL carries one).
    // However the parser reads one (`https:user:pw@host/`, one slash or none, a backslash), and an empty
    // one (`https://:@host/`) too: the parser drops that, and the URL shown would not be the one given.
    .refine(
      (text) =>
        !URL.canParse(text) ||
        (new URL(text).username === '' && new URL(text).password === '' && !/^[a-z][a-z0-9+.-]*:[/\\]*[^/\\?#]*@/i.test(text)),
      'must not carry a user name or password',
    )
    // Kept as sent ("https:a.example/x" is https://a.example/x; no #fragment): the URL recorded, shown
    // and compared is the one the seller was asked, however a client spelled it.
    .transform(urlAsSent),
  method: z
    .string()
    .regex(/^[A-Z]{3,7}$/, 'must be an HTTP method such as GET or POST')
    .optional(),
  status: z.literal(402, 'must be 402: only a payment request is paid'),
  headers: headersSchema,
  body: z.unknown().optional(),
  description: honestText(z.string().max(500, 'must be at most 500 characters')).optional(),
  /** The owner's yes to this purchase, held before (its approval's id): paid now with these fresh terms, once. */
  approvalId: z.string().regex(APPROVAL_ID, 'must be an approval id (apr_...)').optional(),
  /**
   * The rail to pay on, where the offer can be paid on both (left out: the owner's preferred rail
   * where the wallet there holds the amount, else the one whose wallet does, Solana first).
   */
  rail: railSchema.optional(),
});
export type X402PayBody = z.infer<typeof x402PayBodySchema>;

/** A seller's 402 that offers sign-in (x402 `sign-in-with-x`), handed over as for a payment. */
export const x402SignInBodySchema = x402PayBodySchema.pick({
  url: true,
  method: true,
  status: true,
  headers: true,
  body: true,
  rail: true,
});
export type X402SignInBody = z.infer<typeof x402SignInBodySchema>;

/** The paid answer's headers, for Coffer to learn which transaction the seller settled. */
export const x402SettledBodySchema = strictFields({ headers: headersSchema });

export const paymentPathSchema = z.object({
  agentId: agentIdSchema,
  paymentId: z.string().regex(/^pay_[A-Za-z0-9]{10,40}$/, 'must look like pay_ followed by 10 to 40 letters and digits'),
});

export const RESOLUTIONS = ['1k', '2k', '4k'] as const;

export const generateBodySchema = strictFields({
  prompt: honestText(z.string().trim().min(1, 'must not be empty').max(4000, 'must be at most 4000 characters')),
  modelId: z.string().min(1, 'is required').max(200, 'must be at most 200 characters'),
  resolution: z.enum(RESOLUTIONS, 'must be one of 1k, 2k, 4k'),
});
export type GenerateBody = z.infer<typeof generateBodySchema>;

/** The Idempotency-Key header, absent or 1-255 printable ASCII characters. */
export const idempotencyHeaderSchema = z.object({
  idempotencyKey: z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1-255 printable ASCII characters without spaces')
    .optional(),
});

/** A `limit` query parameter: a whole number from 1 to `max`, absent for the default. */
const limitQuery = (max: number) => {
  const message = `must be a whole number from 1 to ${max}`;
  return z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, message)
    .optional();
};

/**
 * A read's query, strict: a parameter it does not take is refused by name, as a body's unknown field
 * is (a misspelled filter would answer unfiltered). The owner's key (`?owner=`) is read before, by the
 * HTTP door, and is no read's parameter.
 */
const queryOf = <const S extends z.core.$ZodLooseShape>(shape: S) => strictFields(shape, 'query parameter');

export const spendHistoryQuerySchema = queryOf({ limit: limitQuery(LIST_LIMITS.spendHistory) });
export const taskListQuerySchema = queryOf({ limit: limitQuery(LIST_LIMITS.tasks) });
/** GET /v1/treasury/allocations: one agent's (`agentId`), or every agent's. */
export const allocationsQuerySchema = queryOf({ agentId: agentIdSchema.optional(), limit: limitQuery(LIST_LIMITS.allocations) });

export const searchQuerySchema = queryOf({
  q: z.string().max(200, 'must be at most 200 characters').optional(),
  limit: limitQuery(LIST_LIMITS.search),
});

/** Completing a link session: the new agent's name and starting policy, all optional. */
export const linkCompleteBodySchema = strictFields({
  agentId: agentIdSchema.optional(),
  displayName: displayNameSchema.optional(),
  dailyBudget: amountSchema.optional(),
  maxPerPayment: amountSchema.optional(),
  fund: amountSchema.optional(),
  /** The rail `fund` moves on (`sol` when left out), as a deploy's. */
  fundRail: railSchema.optional(),
});
export type LinkCompleteBody = z.infer<typeof linkCompleteBodySchema>;

/** Who is asking to be linked (shown to the owner): free text, short. */
export const linkClientSchema = z
  .object({
    name: honestLine(z.string().max(80, 'must be at most 80 characters')).optional(),
    hostname: honestLine(z.string().max(120, 'must be at most 120 characters')).optional(),
    user: honestLine(z.string().max(80, 'must be at most 80 characters')).optional(),
  })
  .strip();

/** Signing the dashboard in: the one-time token of a login URL. */
export const signInBodySchema = strictFields({
  loginToken: z.string().min(1, 'is required').max(200, 'must be at most 200 characters'),
});

/** The words of the recovery phrase the owner types back: each at its 1-based position. */
export const phraseConfirmBodySchema = strictFields({
  words: z
    .array(
      strictFields({
        position: z.number().int().min(1).max(24),
        word: z.string().min(1, 'is required').max(20, 'is not a word of the phrase'),
      }),
    )
    .min(1)
    .max(24),
});
export type PhraseConfirmBody = z.infer<typeof phraseConfirmBodySchema>;

/**
 * The passphrase a backup file is encrypted under. Long, because it alone guards every wallet's key
 * in a file that may travel (scrypt makes each guess cost, but cannot save a short one).
 */
export const backupPassphraseSchema = z
  .string()
  .min(12, 'must be at least 12 characters (a few words are easier to keep than symbols)')
  .max(1024, 'must be at most 1024 characters');
export const backupFileBodySchema = strictFields({ passphrase: backupPassphraseSchema });
export type BackupFileBody = z.infer<typeof backupFileBodySchema>;

/** Scheduled backups: a file every `everyHours` into `folder` (an absolute path), the newest `keep` kept. */
export const backupScheduleBodySchema = strictFields({
  folder: z.string().min(1, 'is required').max(1024, 'must be at most 1024 characters'),
  passphrase: backupPassphraseSchema,
  everyHours: z.number().int().min(1).max(720).default(24),
  keep: z.number().int().min(1).max(100).default(10),
});
export type BackupScheduleBody = z.infer<typeof backupScheduleBodySchema>;

/**
 * The desktop app's first start, restoring instead of making a new treasury: the passphrase of the
 * backup file sent before (any length: the file's own says whether it is right), or the recovery
 * phrase with the network its wallets are on (left out: the one Coffer was started for).
 */
export const firstStartFileBodySchema = strictFields({
  passphrase: z.string().min(1, 'is required').max(1024, 'must be at most 1024 characters'),
});
export const firstStartPhraseBodySchema = strictFields({
  phrase: z.string().min(1, 'is required').max(1024, 'must be at most 1024 characters'),
  network: z.enum(['devnet', 'mainnet']).optional(),
});

/** A waiting link request's id, as GET /v1/link-sessions lists it (its token's hash, shortened). */
export const LINK_REQUEST_ID = /^[0-9a-f]{16}$/;

/** Clearing waiting link requests: the ones named (ids from GET /v1/link-sessions), or all of them. */
export const linkClearBodySchema = strictFields({
  ids: z
    .array(z.string().regex(LINK_REQUEST_ID, 'must be a 16-character id as GET /v1/link-sessions lists them'))
    .max(500, 'holds at most 500 ids at once')
    .optional(),
});

export const approvalsQuerySchema = queryOf({
  status: z.enum(['pending', 'approved', 'denied', 'expired', 'failed', 'withdrawn']).optional(),
});

/** The longest a read of a request waits for the owner's decision (`?wait=`): spares polling, and no proxy times it out. */
export const MAX_WAIT_SECONDS = 60;
export const approvalReadQuerySchema = queryOf({
  wait: z
    .string()
    .regex(/^\d+$/, `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`)
    .transform(Number)
    .refine((n) => n <= MAX_WAIT_SECONDS, `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`)
    .optional(),
});

export const servicesQuerySchema = queryOf({ payTo: recipientSchema });

/** Which stable error code a problem with each field maps to (API.md's error table). */
const FIELD_CODES: Record<string, string> = {
  agentId: 'invalid_agent_id',
  amount: 'invalid_amount',
  dailyBudget: 'invalid_amount',
  maxPerPayment: 'invalid_amount',
  fund: 'invalid_amount',
  currency: 'unsupported_currency',
  recipient: 'invalid_recipient',
  payTo: 'invalid_recipient',
  cooldownSeconds: 'invalid_policy',
  allowedServices: 'invalid_policy',
  budgets: 'invalid_policy',
  expiresAt: 'invalid_policy',
  warnAt: 'invalid_policy',
  breaker: 'invalid_policy',
  askAbove: 'invalid_policy',
  askNewRecipient: 'invalid_policy',
  timeZone: 'invalid_time_zone',
  facilitator: 'invalid_facilitator_url',
  limit: 'invalid_limit',
  resolution: 'invalid_resolution',
  idempotencyKey: 'invalid_idempotency_key',
};

/**
 * The words for each request field in a message: the dashboard's labels, so an error reads the same
 * at a form's field, in the CLI and in an API answer ("Daily budget must be …").
 */
export const FIELD_LABELS: Record<string, string> = {
  agentId: 'Agent id',
  amount: 'Amount',
  dailyBudget: 'Daily budget',
  maxPerPayment: 'Max per payment',
  fund: 'Starting funds',
  cooldownSeconds: 'Cooldown',
  allowedServices: 'Allowed services',
  budgets: 'Budgets',
  expiresAt: 'Expires',
  warnAt: 'Warn at',
  breaker: 'Breaker',
  askAbove: 'Ask above',
  askNewRecipient: 'Ask for a new recipient',
  timeZone: 'Time zone',
  preferredRail: 'Preferred rail',
  displayName: 'Display name',
  service: 'Service',
  description: 'Description',
  currency: 'Currency',
  recipient: 'Recipient',
  payTo: 'payTo',
  nonce: 'Nonce',
  url: 'URL',
  method: 'Method',
  status: 'Status',
  headers: 'Headers',
  prompt: 'Prompt',
  modelId: 'Model',
  resolution: 'Resolution',
  idempotencyKey: 'Idempotency-Key',
  limit: 'limit',
  wait: 'wait',
  q: 'The search query',
  facilitator: 'Facilitator',
  loginToken: 'The login token',
  ids: 'ids',
  folder: 'Folder',
  passphrase: 'Passphrase',
  everyHours: 'Every (hours)',
  keep: 'Keep',
  paymentId: 'The payment id',
  name: 'Name',
  hostname: 'Hostname',
  user: 'User',
};

/** Whether `path` lies within `within` (an object's own problems and those of what it holds). */
const inside = (path: readonly PropertyKey[], within: readonly PropertyKey[]) => within.every((part, index) => path[index] === part);

/**
 * Each field's first problem, in describeIssues' words, keyed by the field (a form marks each one and
 * says them all at once; the server answers the first alone, as one refusal has one code). A problem
 * of the whole request, not of a field, is keyed "".
 */
export function fieldProblems(error: z.ZodError): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = typeof issue.path[0] === 'string' ? issue.path[0] : '';
    problems[field] ??= describeIssues(new z.ZodError([issue])).message;
  }
  return problems;
}

/**
 * The stable code and a readable message for the first problem zod found; an unknown field comes
 * before the other problems of the object that holds it (its typo is usually why one is missing).
 */
export function describeIssues(error: z.ZodError): { code: string; message: string } {
  const first = error.issues[0];
  if (!first) return { code: 'invalid_request', message: 'invalid request' };
  const issue = error.issues.find((each) => each.code === 'unrecognized_keys' && inside(first.path, each.path)) ?? first;
  const field = issue.path[0];
  // An unknown field of the request is its own fault; one inside a field (a budget's, a breaker's) is that field's.
  const code = (typeof field === 'string' && FIELD_CODES[field]) || 'invalid_request';
  const words = issueWords(issue);
  // The body as a whole: zod's words for it say "the request body"; a rule of the whole keeps its own.
  if (field === undefined) return { code, message: words === issue.message ? words : `The request body ${words}` };
  const label = (typeof field === 'string' && FIELD_LABELS[field]) || String(field);
  const rest = issue.path.slice(1);
  // "Allowed services, item 3 must …": an array's entries are counted from 1, as a person counts.
  const where =
    rest.length === 0
      ? label
      : `${label}, ${rest.map((part) => (typeof part === 'number' ? `item ${part + 1}` : String(part))).join(', ')}`;
  // Coffer's own rules read on from the name; zod's generic words (and an unknown field) follow a colon.
  return { code, message: /^(must|is|holds) /.test(words) ? `${where} ${words}` : `${where}: ${words}` };
}
