// The MCP tools' inputs: the core request schemas (server/wire/schemas.ts) with a description each, never re-declared;
// an unknown field refused in /v1's words (a misspelled one was dropped, and the call went on without it).
import { z } from 'zod';
import {
  agentIdSchema,
  allocateBodySchema,
  amountSchema,
  askAboveSchema,
  budgetWith,
  budgetsOf,
  deployBodySchema,
  payBodySchema,
  railSchema,
  policyUpdateSchema,
  renameBodySchema,
  searchQuerySchema,
  strictFields,
} from '../wire/schemas.js';

/**
 * An amount of USDC. The API takes a decimal string; some MCP hosts send a JSON number for "0.01".
 * A number is read as the text it prints as (String(n)) and judged by the same amount rule, so one
 * that is not exact (0.1 + 0.2 prints 0.30000000000000004, 1e-7 prints in exponent form) is refused
 * with the rule rather than rounded into a payment.
 */
const amountText = <S extends z.ZodType<unknown, string>>(rule: S) =>
  z
    // Two described branches (anyOf), not a `type` array: single-type dialects cannot take one.
    .union([z.string().describe('a decimal string such as "0.01"'), z.number().describe('a JSON number, read as the text it prints as')], {
      // Neither (true, null where none is taken, an object): the rule in words, not the union's "Invalid input".
      error: 'must be an amount of USDC: a decimal string such as "0.01", or a JSON number',
    })
    .transform((value) => (typeof value === 'number' ? String(value) : value))
    .pipe(rule);
export const amountInput = (what: string) =>
  amountText(amountSchema).describe(`${what}: USDC as a decimal string such as "0.01" (at most 6 decimals)`);

/** A budget as set_policy takes it: the API's, its amount as amountInput reads one. */
const budgetInput = budgetWith(amountInput('the most paid within the window'));

const agentIdInput = (what: string) => agentIdSchema.describe(what);
const thisAgentByDefault = agentIdInput('the agent (this one when left out)').optional();

export const findServiceInput = strictFields({
  query: searchQuerySchema.shape.q.unwrap().describe('what the service should do, in a few words'),
});

export const setPolicyInput = strictFields({
  dailyBudget: amountInput('the most this agent may spend over a rolling 24 h').optional(),
  maxPerPayment: amountInput('the most one payment may be').optional(),
  cooldownSeconds: policyUpdateSchema.shape.cooldownSeconds.describe('seconds to wait between two payments (0 for none)'),
  allowedServices: policyUpdateSchema.shape.allowedServices.describe('the service ids this agent may pay (empty for any)'),
  budgets: budgetsOf(budgetInput)
    .optional()
    .describe(
      'budgets beyond the daily one, replacing the current list: each {amount (USDC) or count (payments), window (hour, 24h, 7d, 30d, day, week, month, lifetime), service? or recipient?}',
    ),
  expiresAt: policyUpdateSchema.shape.expiresAt.describe(
    'when this agent\'s payments end: a day ("2026-12-31", its end in the owner\'s time zone) or a time with its offset; null for never',
  ),
  warnAt: policyUpdateSchema.shape.warnAt.describe('the shares of a budget (percent) at which the owner is told; default [80, 95]'),
  breaker: policyUpdateSchema.shape.breaker.describe(
    'when this agent stops itself: {refusals?: {count, minutes}, spending?: {percent, minutes}} (a share of an amount budget spent within minutes; budgets that count payments do not trip it); null for none',
  ),
  askAbove: amountText(askAboveSchema.unwrap())
    .nullable()
    .optional()
    .describe(
      'payments above this amount (USDC, such as "5.00"; "0" for every one) wait for the owner\'s yes; null for none. Lowering it applies at once',
    ),
  askNewRecipient: policyUpdateSchema.shape.askNewRecipient.describe(
    "true: the first payment to a recipient this agent never paid waits for the owner's yes",
  ),
});

/** A number here, where the HTTP query takes it as text (spendHistoryQuerySchema): the same 1 to 500. */
export const spendHistoryInput = strictFields({
  limit: z.number().int().min(1).max(500).optional().describe('how many payments, newest first (default 20, at most 500)'),
});

export const allocateInput = strictFields({
  amount: amountInput('how much to move from the treasury'),
  agentId: thisAgentByDefault,
  rail: allocateBodySchema.shape.rail.describe(
    "which of the agent's wallets it goes to: sol (its Solana wallet, the default) or base (its account on Base, from the treasury's there)",
  ),
});

export const deployInput = strictFields({
  agentId: deployBodySchema.shape.agentId.describe('the new agent\'s id (a-z, 0-9, "_" and "-")'),
  dailyBudget: amountInput('its daily budget'),
  maxPerPayment: amountInput('the most one of its payments may be'),
});

export const someAgentInput = strictFields({ agentId: thisAgentByDefault });

export const renameInput = strictFields({
  agentId: agentIdInput('the agent to rename'),
  displayName: renameBodySchema.shape.displayName.describe('its new name, as the owner sees it'),
});

export const approvalInput = strictFields({
  approvalId: z.string().min(1).max(100).describe('the approvalId a request that waits for the owner answered'),
  wait: z
    .number()
    .int()
    .min(0)
    .max(60)
    .optional()
    .describe(
      'seconds to wait for the owner to decide before answering (at most 60, and at most 45 unless COFFER_MCP_HELD_WAIT_SECONDS says more); left out, answers at once',
    ),
});

export const payInput = strictFields({
  service: payBodySchema.shape.service.describe('registry service id, or a name with recipient'),
  amount: amountInput('the price to pay'),
  recipient: payBodySchema.shape.recipient.describe(
    'Solana address, or an EVM address (0x…, paid in USDC on Base), for a service outside the registry',
  ),
  rail: payBodySchema.shape.rail.describe(
    "which of a registry service's addresses to pay: sol (its Solana one, the default) or base (its Base one, from your Base account)",
  ),
  nonce: payBodySchema.shape.nonce.describe(
    "the paid API's nonce from its 402 (printable ASCII); left out, a Coffer paywall takes the receipt once, and a registry service is paid at least its listed price",
  ),
  description: payBodySchema.shape.description.describe('what the payment is for, shown in the spend history'),
});

export const fetchPaidInput = strictFields({
  url: z.url().describe('the URL to call'),
  method: z.enum(['GET', 'POST', 'PUT', 'DELETE']).optional().describe('the HTTP method (default GET)'),
  body: z.string().max(65_536).optional().describe('the request body, as text'),
  headers: z.record(z.string(), z.string()).optional().describe('request headers, name to value'),
  rail: railSchema
    .optional()
    .describe(
      "the rail to pay on (sol, base), refused where the 402 does not offer it; left out, a 402 payable on both (an x402 offer, or Coffer's own offering Base) is paid on the owner's preferred rail where the wallet there holds the amount and the policy allows that rail's price, else on the one where both hold, Solana first",
    ),
  approvalId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'the approvalId an earlier fetch_paid of this very call answered while its payment waited for the owner: that request is waited for and used, never asked anew (needed only where this server restarted since)',
    ),
})
  // fetch sends no body with GET: said as the mistake it is, before anything is called (it was
  // "could not be reached").
  .refine((input) => input.body === undefined || (input.method ?? 'GET') !== 'GET', {
    message: 'a GET request carries no body: leave body out, or send it with method POST or PUT',
    path: ['body'],
  });
