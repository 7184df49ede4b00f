import { approvedOrThrow } from '../../client/held-payment.js';
import * as input from '../tool-inputs.js';
import * as output from '../tool-outputs.js';
import { CHANGES_STATE, defineTool } from '../tool-definition.js';
import { failure, reply } from '../tool-results.js';
import { returning, showAndWait, stillWaiting } from './held-payment.js';

export const pay = defineTool({
  name: 'pay',
  description:
    "Pay for a service from this agent's wallet, within its policy. Returns the receipt to send as X-Payment. When the policy asks the owner first: a host that opens URLs is shown the owner's decision page and the call answers once they decide (or, after 45 s or COFFER_MCP_HELD_WAIT_SECONDS, that it still waits); otherwise it returns the approval it waits for (follow it with check_approval).",
  inputSchema: input.payInput,
  outputSchema: output.payOutput,
  annotations: CHANGES_STATE,
  respond: async (request, call) => {
    const { ctx, server, extra } = call;
    const resumed = ctx.decisions.resumed('pay', extra);
    if (resumed !== undefined) return returning(resumed, call, 'pay');
    let answer;
    try {
      answer = await ctx.api.pay(ctx.agentId, { ...request, currency: 'USDC', description: request.description ?? 'paid through MCP' });
    } catch (error) {
      return failure(error);
    }
    if (answer.status === 200) return reply(answer.body);
    const approval = answer.body;
    // Held for the owner. A host that cannot open the page gets the approval at once, said plainly.
    if (!ctx.decisions.hostOpensUrls(server, extra)) return reply(stillWaiting(ctx.api.base, approval, 'pay', false, ctx.heldWaitMs));
    // Followed once per approval: Coffer answers the same request with the same approval.
    const followed = ctx.decisions.follow(`approval:${approval.approvalId}`, approval, () =>
      approvedOrThrow(ctx.api, approval).then((approved) => approved.result as object),
    );
    return showAndWait(followed, call, 'pay');
  },
});
