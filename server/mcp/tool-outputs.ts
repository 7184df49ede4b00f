// The MCP tools' outputs (outputSchema): what each tool's structuredContent holds, for hosts that read it.
import { z } from 'zod';
import { RAILS } from '../wire/rails.js';

/*
 * Shapes, not copies of the server's checks: they name the fields an agent reads and let the rest
 * through (loose objects: a host checks structuredContent against the JSON Schema, where a plain
 * object forbids other fields), so a field the API adds later does not turn an answer into an error.
 */
const usdc = (what: string) => z.string().describe(`${what}: USDC as a decimal string`);

/*
 * Written so that every host can map them (the MCP Inspector's --strict check, in the tests): an open
 * object says so (`additionalProperties: true`, not the bare `{}` that constrains nothing), and a
 * value that may be null is two described branches (`anyOf`), never a `type` array, which
 * single-type dialects such as Gemini's OpenAPI subset cannot take.
 */
const open = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape).meta({ additionalProperties: true });
const textOrNull = (what: string, whenNull: string) => z.union([z.string().describe(what), z.null().describe(whenNull)]);

/** Set when the request now waits for the owner (the API answered 202 with the approval). */
const waiting = {
  approvalId: z.string().optional().describe('set when the request waits for the owner: follow it with check_approval'),
  message: z.string().optional().describe('what happens next, in words'),
};

const policy = open({
  dailyBudget: usdc('the most spent over a rolling 24 h'),
  maxPerPayment: usdc('the most one payment may be'),
  cooldownSeconds: z.number().int(),
  allowedServices: z.array(z.string()).describe('empty for any service'),
});

const mcpConfig = z
  .object({ command: z.string(), args: z.array(z.string()), env: z.record(z.string(), z.string()) })
  .describe("the new agent's MCP host configuration");

const handOver = {
  apiKey: z.string().optional().describe("the new agent's key, shown only once"),
  mcpConfig: mcpConfig.optional(),
  nextSteps: z.array(z.string()).optional(),
};

const dollarPrices = z.record(z.string(), z.string()).describe('prices with the $ sign');

export const balanceOutput = open({
  agentId: z.string(),
  walletAddress: z.string().describe("the agent's Solana wallet"),
  balance: usdc("the agent's Solana wallet balance"),
  wallets: open({
    sol: z.string().describe('its Solana wallet'),
    base: textOrNull('its account for USDC on Base', 'none to fund: the Base rail is off on this Coffer, or no Base account yet'),
  }),
  balances: open({
    sol: usdc('on Solana'),
    base: textOrNull(
      'on Base: USDC as a decimal string',
      'not read: the Base rail is off, or its node did not answer (baseNetwork says which)',
    ),
  }),
  // Optional: an older Coffer's balance has none, and its answer must still pass.
  available: open({
    sol: usdc('free on Solana: less what payments still pending may take'),
    base: textOrNull('free on Base: USDC as a decimal string, less what payments still pending may take', 'not read, as in balances'),
  }).optional(),
  baseNetwork: textOrNull("the Base network this Coffer's Base rail is on", 'the Base rail is off on this Coffer'),
  // Optional, as `available` is.
  preferredRail: z
    .enum(['sol', 'base'])
    .nullable()
    .optional()
    .describe("the owner's preferred rail: paid on where a seller takes both and no rail is asked; null: the funds decide, Solana first"),
  currency: z.literal('USDC'),
  status: z.string().describe('active, or suspended (every payment refused)'),
  treasuryAddress: z.string().describe("the owner's treasury on Solana: the address that names the owner"),
});

export const findServiceOutput = open({
  results: z.array(
    open({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      pricing: dollarPrices,
      how: z.string().describe('how to call and pay it'),
    }),
  ),
  message: z.string(),
});

/** A budget now, as GET policy says it: what it holds, what was spent (or made), what remains, when it starts afresh. */
const budgetNow = open({
  window: z.string(),
  remaining: z.union([usdc('left, for an amount budget'), z.number().int().describe('payments left, for a count budget')]),
  resetsAt: textOrNull('when a calendar window starts afresh', 'a rolling or lifetime window'),
});

/** The day a policy ends on, beside the instant it resolved to (policy.expiresAt): the words to use with the owner. */
const endsOn = z
  .string()
  .optional()
  .describe(
    "set when the policy ends at the end of a day in the owner's time zone: that day (2026-12-31), as the owner typed it; say this day rather than policy.expiresAt, the instant it resolved to",
  );

export const policyOutput = open({
  agentId: z.string(),
  policy,
  spent24h: usdc('spent in the last 24 h, payments held for the owner included'),
  held24h: usdc("of spent24h, the payments held for the owner's yes: counted against the budget, not paid").optional(),
  pending24h: usdc(
    'of spent24h, the payments signed or sent and not settled yet: counted against the budget, and lapsing unsettled',
  ).optional(),
  budgets: z.array(budgetNow).optional().describe('each budget beyond the daily one, now'),
  endsOn,
  timeZone: z.string().describe("the owner's time zone (IANA name): say resetsAt and policy.expiresAt, instants, in it"),
});

export const setPolicyOutput = open({ agentId: z.string(), policy: policy.optional(), status: z.string().optional(), endsOn, ...waiting });

export const spendHistoryOutput = open({
  payments: z.array(
    open({
      id: z.string(),
      service: z.string(),
      amount: usdc('paid'),
      status: z.string(),
      timestamp: z.string(),
      errorCode: z
        .string()
        .optional()
        .describe('on a failed payment, why: payment_denied (the owner said no), approval_expired, dropped, ...'),
      approvedAt: z
        .string()
        .optional()
        .describe('on a held payment the owner approved: when (an x402 purchase, bought when the agent asks the seller again under it)'),
    }),
  ),
});

export const allocateOutput = open({ status: z.string().optional(), ...waiting });

export const deployOutput = open({
  agent: open({ agentId: z.string(), walletAddress: z.string() }).optional(),
  status: z.string().optional(),
  ...handOver,
  ...waiting,
});

export const agentStatusOutput = open({
  agentId: z.string(),
  status: z.string(),
  was: z.string().optional().describe('its status before: the same as status where nothing changed'),
  archivedAt: z.string().optional().describe('set when the agent is archived: stopped for good'),
  withdrawn: open({ requests: z.number(), heldPayments: z.number() })
    .optional()
    .describe('a stop: what it withdrew of what the agent had asked the owner (held payments are never paid)'),
  stillLanding: open({
    payments: z.number(),
    amount: z.string(),
    until: textOrNull('the last moment one may still land (on Base)', 'none on Base (Solana ones end within about a minute)'),
    agents: z.array(z.string()).optional().describe('the agents they were signed for, by id'),
  })
    .optional()
    .describe('a stop: x402 payments the agent signed and handed out before it, which a seller may still settle until `until`'),
  ...waiting,
});

export const renameOutput = open({ agentId: z.string(), displayName: z.string() });

export const approvalOutput = open({
  approvalId: z.string(),
  result: open({}).optional().describe('once approved: what was done (a held payment: the payment and its receipt)'),
  status: z.string().describe('pending, approved, denied, expired, failed or withdrawn'),
  kind: z.string(),
  targetAgentId: z.string(),
  next: z.string().optional().describe("what to do now, where the request ended without the owner's yes (withdrawn, expired)"),
  ...handOver,
});

export const modelsOutput = open({
  models: z.array(open({ id: z.string(), displayName: z.string(), provider: z.string(), description: z.string(), pricing: dollarPrices })),
});

/** Set on the payment that tripped the agent's breaker: it was paid, and the agent is stopped now. */
const agentStopped = z
  .object({ reason: z.string().describe("why, as the agent's statusReason says it") })
  .optional()
  .describe(
    'set when this payment tripped the breaker: it was paid, and every payment is refused from now until the owner resumes the agent',
  );

/** A payment made, or (approvalId set) held for the owner's yes: nothing paid yet. */
export const payOutput = open({
  paymentId: z.string().optional(),
  status: z.string().describe('confirmed; or pending while the payment waits for the owner'),
  amount: usdc('paid').optional(),
  currency: z.literal('USDC').optional(),
  txSignature: z.string().optional(),
  xPaymentHeader: z.string().optional().describe('the receipt: send it as the X-Payment header'),
  decisionUrl: z.string().optional().describe("where the owner decides (the dashboard's Approvals page)"),
  agentStopped,
  ...waiting,
});

/** fetch_paid's answer: the API's answer and what was paid; or (approvalId set) the payment still waits for the owner. */
export const fetchPaidOutput = open({
  status: z.number().int().optional().describe("the paid API's HTTP status"),
  contentType: textOrNull("the answer's Content-Type", 'the answer named none').optional(),
  body: z.string().optional(),
  // Its own words: the call it waits on is fetch_paid again (helper 189: "follow it with check_approval"
  // had a model see "approved" and never fetch, the purchase bought in the background and its body unread).
  approvalId: z
    .string()
    .optional()
    .describe(
      'set when the payment waits for the owner: call fetch_paid again with the same arguments and this approvalId to get the answer',
    ),
  message: waiting.message,
  decisionUrl: z.string().optional().describe('where the owner decides, while the payment waits'),
  payment: z
    .object({
      protocol: z.enum(['coffer', 'x402']),
      paymentId: z.string(),
      rail: z.enum(RAILS).describe('the rail it was paid on: sol (Solana) or base (Base)'),
      network: z.string().optional().describe("that rail's network as Coffer names it (sim, devnet, base-sepolia, base …)"),
      testMoney: z.boolean().optional().describe('whether USDC on that network is test money (worth nothing)'),
      txSignature: textOrNull('its transaction', 'an x402 payment whose transaction Coffer has not seen yet'),
      amount: usdc('paid'),
      status: z
        .string()
        .describe('confirmed; or pending for an x402 payment whose settlement Coffer has not seen yet (it was paid: never pay again)'),
      agentStopped,
    })
    .nullable()
    .optional()
    .describe('the payment made for this call, or null when none was asked'),
  signedIn: z
    .object({ address: z.string().describe('the wallet that proved it') })
    .optional()
    .describe('set when the seller let this agent in on its earlier purchase (x402 Sign-In-With-X): nothing was paid'),
});
