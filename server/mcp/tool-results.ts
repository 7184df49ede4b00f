import type { MayWait } from '../client/answer.js';
import { CofferApiError } from '../client/client-error.js';
import { nextTool } from './refusal-next.js';

/** A tool's answer: the JSON as text (for hosts that only read text) and as structured content. */
export function reply(value: object) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * Expected failures are results with isError and the server's message (and its code), not protocol
 * errors; a refusal the agent can act on says which tool asks the owner for more. In text only: a
 * host's SDK holds an error's structuredContent to the tool's output schema too, which describes
 * the tool's answer, not its refusals.
 */
export function failure(error: unknown) {
  if (!(error instanceof CofferApiError)) return { isError: true, content: [{ type: 'text' as const, text: (error as Error).message }] };
  const next = nextTool(error.code, error.agentStopped !== undefined, error.message);
  const text = `${error.message} (${error.code})${next === null ? '' : `. Next: ${next}.`}`;
  return { isError: true, content: [{ type: 'text' as const, text }] };
}

export async function answered(run: () => Promise<object>) {
  try {
    return reply(await run());
  } catch (error) {
    return failure(error);
  }
}

/** Prices with the currency symbol, as the tool surface shows them. */
export const dollars = (pricing: Record<string, string>) => Object.fromEntries(Object.entries(pricing).map(([k, v]) => [k, `$${v}`]));

/**
 * The `wait` check_approval is told to take: as long as this bridge waits for the owner (its held
 * wait, 45 s unless COFFER_MCP_HELD_WAIT_SECONDS says otherwise), and at most the 60 s it takes.
 */
export const checkApprovalWait = (heldWaitMs: number): number => Math.min(60, Math.max(1, Math.floor(heldWaitMs / 1000)));

/** A request that now waits for the owner (HTTP 202) in words an agent can act on. */
export const pendingOrResult = <T extends object>(answer: MayWait<T>, what: string, heldWaitMs: number): object =>
  answer.status === 202
    ? {
        ...answer.body,
        message: `${what} needs the owner's approval; it is waiting in the owner's inbox (approval ${answer.body.approvalId}). Call check_approval with approvalId ${answer.body.approvalId} and wait ${checkApprovalWait(heldWaitMs)} to learn the answer.`,
      }
    : answer.body;

/** What to do with a new agent's key once it is handed over. */
export const NEW_AGENT_STEPS = [
  'Keep the apiKey: it is shown only once.',
  "Add mcpConfig to the new agent's MCP host configuration.",
  'Ask the owner to allocate USDC to the new wallet.',
];
