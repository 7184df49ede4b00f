// How pay and fetch_paid answer a payment the policy holds for the owner: where the owner decides,
// how long the call waits, and what the agent is told when it is still undecided.
import { CofferApiError } from '../../client/client-error.js';
import type { Approval } from '../../wire/answers/approvals.js';
import { decisionUrl, heartbeat, OwnerDecisions, thisPayment, type Followed } from '../owner-decision.js';
import { heldReason } from '../../wire/held-words.js';
import type { ToolCall, ToolResult } from '../tool-definition.js';
import { checkApprovalWait, failure, reply } from '../tool-results.js';

export type HeldTool = 'pay' | 'fetch_paid';

/** A held purchase shown to a host that opens URLs: a round (2026-07-28), or an elicitation pushed within the call (2025). */
export function showAndWait(followed: Followed, call: ToolCall, tool: HeldTool): Promise<ToolResult> {
  const { ctx, server, extra } = call;
  if (OwnerDecisions.modern(server)) return ctx.decisions.park(tool, followed);
  ctx.decisions.showPage(extra, followed.approval, ctx.heldWaitMs);
  return whenDecided(followed, call, tool);
}

/** A round back from the decision page: its purchase, or (this bridge no longer follows it) how to learn the owner's answer. */
export function returning(resumed: { followed: Followed | null; approvalId: string }, call: ToolCall, tool: HeldTool) {
  if (resumed.followed !== null) return whenDecided(resumed.followed, call, tool);
  return failure(
    new CofferApiError(
      0,
      'purchase_not_followed',
      // Not followed: restarted since (fetch_paid with the id picks it up), or its answer was
      // handed out already (check_approval says what became of it).
      `this bridge no longer follows the held payment (approval ${resumed.approvalId}); ${tool === 'fetch_paid' ? `call fetch_paid again with the same arguments and approvalId ${resumed.approvalId} (if this call's answer was given already, check_approval with it says what became of it)` : "call check_approval with it to learn the owner's answer"}, and do not pay again`,
    ),
  );
}

/**
 * A held purchase's answer for this call, waited for at most `heldWaitMs`, the host told as
 * progress where the owner decides; undecided by then, the approval it still waits on and how to
 * get the answer (the purchase goes on: it is paid once at most).
 */
export async function whenDecided(followed: Followed, { ctx, extra }: ToolCall, tool: HeldTool): Promise<ToolResult> {
  const { approval } = followed;
  const stop = heartbeat(
    extra,
    `${capitalized(thisPayment(approval))} waits for the owner's yes (${heldReason(approval)}); the owner decides at ${decisionUrl(ctx.api.base, approval.approvalId)} (request ${approval.approvalId}, until ${approval.expiresAt}). Nothing is paid until then.`,
  );
  try {
    const outcome = await ctx.decisions.outcome(followed, ctx.heldWaitMs, extra.mcpReq.signal);
    if ('answer' in outcome) return reply(outcome.answer);
    if ('error' in outcome) return failure(outcome.error);
    return reply(stillWaiting(ctx.api.base, outcome.stillWaiting, tool, true, ctx.heldWaitMs));
  } finally {
    stop();
  }
}

/**
 * A payment that waits for the owner, in words an agent can act on: where the owner decides, and how
 * to get the answer. `followed`: this bridge follows the request, and withdraws it when it ends; a
 * held `pay` it does not follow (its host opens no URLs) is paid at the owner's yes whether or not
 * this server still runs.
 */
export function stillWaiting(cofferUrl: string, approval: Approval, tool: HeldTool, followed: boolean, heldWaitMs: number): object {
  const next =
    tool === 'pay'
      ? `Call check_approval with approvalId ${approval.approvalId} and wait ${checkApprovalWait(heldWaitMs)} to learn the answer; once approved, its result is the payment with its receipt (xPaymentHeader).`
      : `Call fetch_paid again with the same arguments and approvalId ${approval.approvalId} to get the answer once the owner decides (the same purchase, until ${approval.expiresAt}: it is never paid twice).`;
  return {
    ...(tool === 'pay' ? approval : { approvalId: approval.approvalId, expiresAt: approval.expiresAt }),
    decisionUrl: decisionUrl(cofferUrl, approval.approvalId),
    // A host that starts the server for one call and closes it after would never see the answer:
    // the bridge withdraws what it follows when it ends (mcp-server.ts), so that is said too; what it
    // does not follow stands without it, and the owner's yes pays it.
    message: `Nothing is paid yet: ${thisPayment(approval)} waits for the owner's yes (${heldReason(approval)}) until ${approval.expiresAt}. ${next} ${
      followed
        ? 'Keep this MCP server running until then: closed, it withdraws the request and nothing is paid.'
        : "The owner's yes pays it whether or not this MCP server still runs: do not pay it again."
    }`,
  };
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
