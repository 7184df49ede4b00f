import type { CallToolResult, InputRequiredResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { mcpServerConfig } from '../wire/mcp-config.js';
import * as input from './tool-inputs.js';
import * as output from './tool-outputs.js';
import type { CofferClient } from '../client/coffer-client.js';
import { CofferApiError } from '../client/client-error.js';
import type { Approval, MayWait } from '../client/wire-types.js';
import { approvedOrThrow } from '../client/held-payment.js';
import { payingFetch, PaymentError } from '../x402/paying-fetch.js';
import { decisionUrl, heartbeat, heldReason, OwnerDecisions, type Followed } from './owner-decision.js';

export interface ToolContext {
  api: CofferClient;
  /** The held payments this bridge follows while the owner decides. */
  decisions: OwnerDecisions;
  /** How long one call waits for the owner before answering that the payment still waits. */
  heldWaitMs: number;
  agentId: string;
  owner: string;
  apiKey: string;
  /** Why this bridge has no agent to act as (its credentials missing): every tool answers it. */
  notConfigured?: string;
}

type Json = Record<string, unknown>;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const CHANGES_STATE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/** A tool's answer: the JSON as text (for hosts that only read text) and as structured content. */
function reply(value: object) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }], structuredContent: value as Json };
}

/** Expected failures are results with isError and the server's message (and its code), not protocol errors. */
function failure(error: unknown) {
  const text = error instanceof CofferApiError ? `${error.message} (${error.code})` : (error as Error).message;
  return { isError: true, content: [{ type: 'text' as const, text }] };
}

async function guarded(run: () => Promise<object>) {
  try {
    return reply(await run());
  } catch (error) {
    return failure(error);
  }
}

/** Prices with the currency symbol, as the tool surface shows them. */
const dollars = (pricing: Record<string, string>) => Object.fromEntries(Object.entries(pricing).map(([k, v]) => [k, `$${v}`]));

/** A request that now waits for the owner (HTTP 202) in words an agent can act on. */
const pendingOrResult = <T extends object>(answer: MayWait<T>, what: string): object =>
  answer.status === 202
    ? {
        ...answer.body,
        message: `${what} needs the owner's approval; it is waiting in the owner's inbox (approval ${answer.body.approvalId}).`,
      }
    : answer.body;

export function registerTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'check_balance',
    {
      description: "This agent's USDC balance, its wallet and the owner's treasury address.",
      outputSchema: output.balanceOutput,
      annotations: READ_ONLY,
    },
    () =>
      guarded(async () => {
        return { ...(await ctx.api.balance(ctx.agentId)), treasuryAddress: ctx.owner };
      }),
  );

  server.registerTool(
    'find_service',
    {
      description: 'Search the registry of paid services and models (for example "weather", "image", "translate").',
      inputSchema: input.findServiceInput,
      outputSchema: output.findServiceOutput,
      annotations: READ_ONLY,
    },
    ({ query }) =>
      guarded(async () => {
        const body = await ctx.api.searchServices(query);
        const results = body.results.map((s) => {
          const [method = 'GET', path = s.endpoint] = s.endpoint.includes(' ') ? s.endpoint.split(' ', 2) : [];
          const onCoffer = `${method} ${ctx.api.base}${path.replace('{agentId}', ctx.agentId)}`;
          return {
            id: s.id,
            name: s.name,
            description: s.description,
            pricing: s.pricePerCall ? { perCall: `$${s.pricePerCall}` } : dollars(s.pricing),
            how:
              // x402 APIs (the shipped marketplace, a facilitator's Bazaar list): `endpoint` is "METHOD URL".
              s.source === 'x402-marketplace' || s.source === 'x402-bazaar'
                ? `Call fetch_paid with method ${method} and url ${path}: it pays ${s.pricePerCall ?? 'the asked price'} USDC a call within your policy.`
                : s.source === 'model-registry'
                  ? `Image model: ${onCoffer} with {"prompt", "modelId": "${s.id.replace(/^model:/, '')}", "resolution": "1k"|"2k"|"4k"}; the price is charged to your wallet.`
                  : `${onCoffer} with your API key; the price is charged to your wallet.`,
          };
        });
        return {
          results,
          message: results.length
            ? `Found ${results.length} service${results.length === 1 ? '' : 's'} for "${query}".`
            : `No service in the registry matches "${query}". Try other words, or look on the x402 marketplace: any API that answers 402 with a USDC-on-Solana price (Coffer terms, or x402 on devnet or mainnet) can be paid with fetch_paid.`,
        };
      }),
  );

  server.registerTool(
    'get_policy',
    { description: "This agent's spending policy.", outputSchema: output.policyOutput, annotations: READ_ONLY },
    () => guarded(() => ctx.api.policy(ctx.agentId)),
  );

  server.registerTool(
    'set_policy',
    {
      description: "Change this agent's policy. Tightening applies at once; loosening waits for the owner's approval.",
      inputSchema: input.setPolicyInput,
      outputSchema: output.setPolicyOutput,
      annotations: { ...CHANGES_STATE, idempotentHint: true },
    },
    (update) => guarded(async () => pendingOrResult(await ctx.api.updatePolicy(ctx.agentId, update), 'Loosening the policy')),
  );

  server.registerTool(
    'get_spend_history',
    {
      description: "This agent's payments, newest first.",
      inputSchema: input.spendHistoryInput,
      outputSchema: output.spendHistoryOutput,
      annotations: READ_ONLY,
    },
    ({ limit }) => guarded(() => ctx.api.spendHistory(ctx.agentId, limit ?? 20)),
  );

  server.registerTool(
    'allocate_budget',
    {
      description: "Ask for USDC from the owner's treasury into an agent's wallet (this agent by default). The owner approves it.",
      inputSchema: input.allocateInput,
      outputSchema: output.allocateOutput,
      annotations: CHANGES_STATE,
    },
    ({ amount, agentId }) =>
      guarded(async () => pendingOrResult(await ctx.api.allocate(agentId ?? ctx.agentId, { amount }), 'An allocation')),
  );

  server.registerTool(
    'deploy_agent',
    {
      description: 'Ask for a new agent with its own wallet and policy. The owner approves it.',
      inputSchema: input.deployInput,
      outputSchema: output.deployOutput,
      annotations: CHANGES_STATE,
    },
    (input) =>
      guarded(async () => {
        const answer = await ctx.api.deploy(input);
        if (answer.status === 202) return pendingOrResult(answer, 'A new agent');
        const { body } = answer;
        return {
          ...body,
          mcpConfig: { ...body.mcpConfig, env: { ...body.mcpConfig.env, COFFER_AGENT_ID: input.agentId } },
          nextSteps: [
            'Keep the apiKey: it is shown only once.',
            "Add mcpConfig to the new agent's MCP host configuration.",
            'Ask the owner to allocate USDC to the new wallet.',
          ],
        };
      }),
  );

  server.registerTool(
    'kill_agent',
    {
      description: 'Stop an agent (this one by default): every payment is refused until the owner resumes it.',
      inputSchema: input.someAgentInput,
      outputSchema: output.agentStatusOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ agentId }) => guarded(() => ctx.api.kill(agentId ?? ctx.agentId)),
  );

  server.registerTool(
    'resume_agent',
    {
      description: "Resume a stopped agent. An agent resuming itself waits for the owner's approval.",
      inputSchema: input.someAgentInput,
      outputSchema: output.agentStatusOutput,
      annotations: { ...CHANGES_STATE, idempotentHint: true },
    },
    ({ agentId }) => guarded(async () => pendingOrResult(await ctx.api.resume(agentId ?? ctx.agentId), 'Resuming')),
  );

  server.registerTool(
    'rename_agent',
    {
      description: "Change an agent's display name (owner only).",
      inputSchema: input.renameInput,
      outputSchema: output.renameOutput,
      annotations: { ...CHANGES_STATE, idempotentHint: true },
    },
    ({ agentId, displayName }) => guarded(() => ctx.api.rename(agentId, { displayName })),
  );

  server.registerTool(
    'check_approval',
    {
      description:
        'Follow a request waiting for the owner (from pay, set_policy, allocate_budget, resume_agent or deploy_agent); with wait, answers once the owner decides (at most 60 s). An approved payment carries its receipt in result. For an approved new agent, returns its key once, with its mcpConfig.',
      inputSchema: input.approvalInput,
      outputSchema: output.approvalOutput,
      // Not read-only: the first read after a deploy is approved hands over the new agent's key, once.
      annotations: CHANGES_STATE,
    },
    ({ approvalId, wait }) =>
      guarded(async () => {
        const body = await ctx.api.approval(approvalId, wait);
        if (!('apiKey' in body) || typeof body.apiKey !== 'string') return body;
        const agentId = String(body.targetAgentId);
        // Launched as this bridge was: the same node and script (the tray's bridge or the CLI's).
        const launch = { command: process.execPath, args: [process.argv[1] ?? 'coffer', 'mcp'] };
        return {
          ...body,
          mcpConfig: mcpServerConfig(launch, { url: ctx.api.base, owner: ctx.owner, agentId, apiKey: body.apiKey }),
          nextSteps: [
            'Keep the apiKey: it is shown only once.',
            "Add mcpConfig to the new agent's MCP host configuration.",
            'Ask the owner to allocate USDC to the new wallet.',
          ],
        };
      }),
  );

  server.registerTool(
    'list_models',
    { description: 'Image models and their prices per resolution.', outputSchema: output.modelsOutput, annotations: READ_ONLY },
    () =>
      guarded(async () => {
        const body = await ctx.api.models();
        return {
          models: body.models.map(({ id, displayName, provider, description, pricing }) => ({
            id,
            displayName,
            provider,
            description,
            pricing: dollars(pricing),
          })),
        };
      }),
  );

  server.registerTool(
    'pay',
    {
      description:
        "Pay for a service from this agent's wallet, within its policy. Returns the receipt to send as X-Payment. When the policy asks the owner first: a host that opens URLs is shown the owner's decision page and the call answers once they decide (or, after 45 s, that it still waits); otherwise it returns the approval it waits for (follow it with check_approval).",
      inputSchema: input.payInput,
      outputSchema: output.payOutput,
      annotations: CHANGES_STATE,
    },
    async (input, extra): Promise<CallToolResult | InputRequiredResult> => {
      const resumed = ctx.decisions.resumed('pay', extra);
      if (resumed !== undefined) return returning(resumed, extra, 'pay');
      let answer;
      try {
        answer = await ctx.api.pay(ctx.agentId, { ...input, currency: 'USDC', description: input.description ?? 'paid through MCP' });
      } catch (error) {
        return failure(error);
      }
      if (answer.status === 200) return reply(answer.body);
      const approval = answer.body;
      // Held for the owner. A host that cannot open the page gets the approval at once, said plainly.
      if (!ctx.decisions.hostOpensUrls(server, extra)) return reply(stillWaiting(approval, 'pay'));
      // Followed once per approval: Coffer answers the same request with the same approval.
      const followed = ctx.decisions.follow(`approval:${approval.approvalId}`, approval, () =>
        approvedOrThrow(ctx.api, approval).then((approved) => approved.result as object),
      );
      return showAndWait(followed, extra, 'pay');
    },
  );

  server.registerTool(
    'fetch_paid',
    {
      description:
        "Call a URL; if it answers 402 (Coffer terms, or an x402 offer on devnet/mainnet), pay within policy (never above the registry price) and retry with the payment. Returns the answer. A payment the policy holds for the owner waits for their yes (a host that opens URLs is shown the owner's decision page; others hear where as progress): the call answers once they decide, or after a while (45 s) says it still waits; calling fetch_paid again with the same arguments then picks up the same purchase (never paid twice).",
      inputSchema: input.fetchPaidInput,
      outputSchema: output.fetchPaidOutput,
      annotations: { ...CHANGES_STATE, openWorldHint: true },
    },
    async (request, extra): Promise<CallToolResult | InputRequiredResult> => {
      if (ctx.notConfigured !== undefined) return failure(new CofferApiError(0, 'not_configured', ctx.notConfigured));
      // A call coming back from the owner's decision page: the same purchase, awaited.
      const resumed = ctx.decisions.resumed('fetch_paid', extra);
      if (resumed !== undefined) return returning(resumed, extra, 'fetch_paid');
      // The same call asked again while its purchase waits for the owner (or its answer was not taken yet): that purchase.
      const key = OwnerDecisions.requestKey(request);
      const joined = ctx.decisions.joined(key);
      if (joined !== undefined) return whenDecided(joined, extra, 'fetch_paid');
      let held!: (approval: Approval) => void;
      const heldNow = new Promise<Approval>((resolve) => (held = resolve));
      const work = purchase(ctx, request, held);
      const first = await Promise.race([
        work.then(
          () => null,
          () => null,
        ),
        heldNow,
      ]);
      if (first === null) return guarded(() => work);
      const followed = ctx.decisions.follow(key, first, () => work);
      return ctx.decisions.hostOpensUrls(server, extra)
        ? showAndWait(followed, extra, 'fetch_paid')
        : whenDecided(followed, extra, 'fetch_paid');
    },
  );

  /** A held purchase shown to a host that opens URLs: a round (2026-07-28), or an elicitation pushed within the call (2025). */
  function showAndWait(followed: Followed, extra: ServerContext, tool: HeldTool): Promise<CallToolResult | InputRequiredResult> {
    if (OwnerDecisions.modern(server)) return ctx.decisions.park(tool, followed);
    ctx.decisions.showPage(extra, followed.approval, ctx.heldWaitMs);
    return whenDecided(followed, extra, tool);
  }

  /** A round back from the decision page: its purchase, or (this bridge no longer follows it) how to learn the owner's answer. */
  function returning(resumed: { followed: Followed | null; approvalId: string }, extra: ServerContext, tool: HeldTool) {
    if (resumed.followed !== null) return whenDecided(resumed.followed, extra, tool);
    return failure(
      new CofferApiError(
        0,
        'purchase_not_followed',
        `this bridge no longer follows the held payment (approval ${resumed.approvalId}); call check_approval with it to learn the owner's answer, and do not pay again`,
      ),
    );
  }

  /**
   * A held purchase's answer for this call, waited for at most `heldWaitMs`, the host told as
   * progress where the owner decides; undecided by then, the approval it still waits on and how to
   * get the answer (the purchase goes on: it is paid once at most).
   */
  async function whenDecided(followed: Followed, extra: ServerContext, tool: HeldTool): Promise<CallToolResult> {
    const { approval } = followed;
    const stop = heartbeat(
      extra,
      `The payment waits for the owner's yes (${heldReason(approval)}); the owner decides at ${decisionUrl(ctx.api.base, approval.approvalId)} (request ${approval.approvalId}, until ${approval.expiresAt}). Nothing is paid until then.`,
    );
    try {
      const outcome = await ctx.decisions.outcome(followed, ctx.heldWaitMs);
      if ('answer' in outcome) return reply(outcome.answer);
      if ('error' in outcome) return failure(outcome.error);
      return reply(stillWaiting(outcome.stillWaiting, tool));
    } finally {
      stop();
    }
  }

  /** A payment that waits for the owner, in words an agent can act on: where the owner decides, and how to get the answer. */
  function stillWaiting(approval: Approval, tool: HeldTool): object {
    const next =
      tool === 'pay'
        ? `Call check_approval with approvalId ${approval.approvalId} and wait 60 to learn the answer; once approved, its result is the payment with its receipt (xPaymentHeader).`
        : `Call fetch_paid again with the same arguments to get the answer once the owner decides (the same purchase: it is never paid twice), or check_approval with approvalId ${approval.approvalId}.`;
    return {
      ...(tool === 'pay' ? approval : { approvalId: approval.approvalId, expiresAt: approval.expiresAt }),
      decisionUrl: decisionUrl(ctx.api.base, approval.approvalId),
      message: `Nothing is paid yet: this payment waits for the owner's yes (${heldReason(approval)}) until ${approval.expiresAt}. ${next}`,
    };
  }
}

type HeldTool = 'pay' | 'fetch_paid';

/**
 * fetch_paid's purchase: the URL called through payingFetch as this agent, its answer as the tool
 * says it (without the spent credential). `onHeld` is told when the owner's yes is awaited.
 */
async function purchase(
  ctx: ToolContext,
  request: { url: string; method?: string; body?: string; headers?: Record<string, string> },
  onHeld: (approval: Approval) => void,
): Promise<object> {
  try {
    const { response, payment, signedIn } = await payingFetch(
      request.url,
      { method: request.method ?? 'GET', body: request.body, headers: request.headers },
      { agent: { cofferUrl: ctx.api.base, owner: ctx.owner, agentId: ctx.agentId, apiKey: ctx.apiKey }, onHeld },
    );
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: text.length > 100_000 ? `${text.slice(0, 100_000)}… (truncated)` : text,
      // What was paid, without the spent credential (its header): a model has no use for it, and
      // it would weigh on every answer.
      payment:
        payment === null
          ? null
          : {
              protocol: payment.protocol,
              paymentId: payment.paymentId,
              amount: payment.amount,
              status: payment.status,
              txSignature: payment.txSignature,
            },
      // Let in on an earlier purchase (x402 Sign-In-With-X): nothing paid for this call.
      ...(signedIn === undefined ? {} : { signedIn }),
    };
  } catch (error) {
    // Coffer's own refusal code (max_per_payment_exceeded) says more than payment_refused.
    if (error instanceof PaymentError)
      throw new CofferApiError(error.details.status ?? 0, error.details.cofferCode ?? error.code, error.message);
    throw error;
  }
}
