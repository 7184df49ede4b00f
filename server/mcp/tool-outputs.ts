// The MCP tools' outputs (outputSchema): what each tool's structuredContent holds, for hosts that read it.
import { z } from 'zod';

/*
 * Shapes, not copies of the server's checks: they name the fields an agent reads and let the rest
 * through (loose objects: a host checks structuredContent against the JSON Schema, where a plain
 * object forbids other fields), so a field the API adds later does not turn an answer into an error.
 */
const usdc = (what: string) => z.string().describe(`${what}: USDC as a decimal string`);

/** Set when the request now waits for the owner (the API answered 202 with the approval). */
const waiting = {
  approvalId: z.string().optional().describe('set when the request waits for the owner: follow it with check_approval'),
  message: z.string().optional().describe('what happens next, in words'),
};

const policy = z.looseObject({
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

export const balanceOutput = z.looseObject({
  agentId: z.string(),
  walletAddress: z.string(),
  balance: usdc("the agent's wallet balance"),
  currency: z.literal('USDC'),
  status: z.string().describe('active, or suspended (every payment refused)'),
  treasuryAddress: z.string().describe("the owner's treasury"),
});

export const findServiceOutput = z.looseObject({
  results: z.array(
    z.looseObject({
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
const budgetNow = z.looseObject({
  window: z.string(),
  remaining: z.union([z.string(), z.number()]).describe('USDC left for an amount, payments left for a count'),
  resetsAt: z.string().nullable().describe('when a calendar window starts afresh; null for rolling and lifetime ones'),
});

export const policyOutput = z.looseObject({
  agentId: z.string(),
  policy,
  spent24h: usdc('spent in the last 24 h'),
  budgets: z.array(budgetNow).optional().describe('each budget beyond the daily one, now'),
});

export const setPolicyOutput = z.looseObject({ agentId: z.string(), policy: policy.optional(), status: z.string().optional(), ...waiting });

export const spendHistoryOutput = z.looseObject({
  payments: z.array(
    z.looseObject({ id: z.string(), service: z.string(), amount: usdc('paid'), status: z.string(), timestamp: z.string() }),
  ),
});

export const allocateOutput = z.looseObject({ status: z.string().optional(), ...waiting });

export const deployOutput = z.looseObject({
  agent: z.looseObject({ agentId: z.string(), walletAddress: z.string() }).optional(),
  status: z.string().optional(),
  ...handOver,
  ...waiting,
});

export const agentStatusOutput = z.looseObject({ agentId: z.string(), status: z.string(), ...waiting });

export const renameOutput = z.looseObject({ agentId: z.string(), displayName: z.string() });

export const approvalOutput = z.looseObject({
  approvalId: z.string(),
  result: z.looseObject({}).optional().describe('once approved: what was done (a held payment: the payment and its receipt)'),
  status: z.string().describe('pending, approved, denied, expired, failed or withdrawn'),
  kind: z.string(),
  targetAgentId: z.string(),
  ...handOver,
});

export const modelsOutput = z.looseObject({
  models: z.array(
    z.looseObject({ id: z.string(), displayName: z.string(), provider: z.string(), description: z.string(), pricing: dollarPrices }),
  ),
});

/** A payment made, or (approvalId set) held for the owner's yes: nothing paid yet. */
export const payOutput = z.looseObject({
  paymentId: z.string().optional(),
  status: z.string().describe('confirmed; or pending while the payment waits for the owner'),
  amount: usdc('paid').optional(),
  currency: z.literal('USDC').optional(),
  txSignature: z.string().optional(),
  xPaymentHeader: z.string().optional().describe('the receipt: send it as the X-Payment header'),
  decisionUrl: z.string().optional().describe("where the owner decides (the dashboard's Approvals page)"),
  ...waiting,
});

export const fetchPaidOutput = z.looseObject({
  status: z.number().int().describe("the paid API's HTTP status"),
  contentType: z.string().nullable(),
  body: z.string(),
  payment: z
    .object({
      protocol: z.enum(['coffer', 'x402']),
      paymentId: z.string(),
      txSignature: z.string().nullable(),
      amount: usdc('paid'),
      status: z
        .string()
        .describe(
          'confirmed; or pending for an x402 payment the seller settled and Coffer confirms just after (it was paid: never pay again)',
        ),
    })
    .nullable()
    .describe('the payment made for this call, or null when none was asked'),
});
