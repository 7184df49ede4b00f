import { CofferApiError } from '../../client/client-error.js';
import type { Approval } from '../../wire/answers/approvals.js';
import { payingFetch } from '../../x402/paying-fetch/paying-fetch.js';
import { PaymentError } from '../../x402/paying-fetch/payment-error.js';
import { afterFailedCall } from '../../x402/paying-fetch/failed-call.js';
import { urlAsSent } from '../../wire/url-as-sent.js';
import type { Rail } from '../../wire/rails.js';
import { OwnerDecisions } from '../owner-decision.js';
import * as input from '../tool-inputs.js';
import * as output from '../tool-outputs.js';
import { CHANGES_STATE, defineTool, type ToolCall, type ToolContext, type ToolResult } from '../tool-definition.js';
import type { UnderWay } from '../purchases-under-way.js';
import { answered, failure } from '../tool-results.js';
import { returning, showAndWait, whenDecided } from './held-payment.js';
import { isTestMoney } from '../../wire/network-words.js';

export const fetchPaid = defineTool({
  name: 'fetch_paid',
  description:
    "Call a URL; if it answers 402 (Coffer terms, or an x402 offer on Solana devnet/mainnet or Base), pay within policy (never above the registry price) and retry with the payment. Returns the answer. A payment the policy holds for the owner waits for their yes (a host that opens URLs is shown the owner's decision page; others hear where as progress): the call answers once they decide, or after a while (45 s, or COFFER_MCP_HELD_WAIT_SECONDS) says it still waits; calling fetch_paid again with the same arguments and its approvalId then picks up the same purchase (never paid twice). A payment the chain has not confirmed is waited for a while (20 s); still unconfirmed, the call fails payment_pending: check get_spend_history before paying again. The same call asked again while its purchase is under way joins it (paid once).",
  inputSchema: input.fetchPaidInput,
  outputSchema: output.fetchPaidOutput,
  annotations: { ...CHANGES_STATE, openWorldHint: true },
  respond: async (request, call) => {
    const { ctx, server, extra } = call;
    if (ctx.notConfigured !== undefined) return failure(new CofferApiError(0, 'not_configured', ctx.notConfigured));
    // A call coming back from the owner's decision page: the same purchase, awaited.
    const resumed = ctx.decisions.resumed('fetch_paid', extra);
    if (resumed !== undefined) return returning(resumed, call, 'fetch_paid');
    // The same call asked again while its purchase waits for the owner (or its answer was not taken
    // yet): that purchase, whether or not it names the approval it waits under.
    const { approvalId, ...sameCall } = request;
    // Its URL as sent ("/a b" and "/a%20b", with or without a #fragment, are one purchase, as paid).
    const key = OwnerDecisions.requestKey({ ...sameCall, url: urlAsSent(sameCall.url) });
    const joined = ctx.decisions.joined(key);
    if (joined !== undefined) return whenDecided(joined, call, 'fetch_paid');
    // A request this bridge follows for another call (other arguments) is that call's, not this one's.
    const other = approvalId === undefined ? undefined : ctx.decisions.followedUnder(approvalId);
    if (other !== undefined) {
      return failure(
        new CofferApiError(
          409,
          'approval_mismatch',
          `request ${approvalId} waits for another fetch_paid call of this server (other arguments); call it with those, or this one without approvalId`,
        ),
      );
    }
    // The same call asked again while its purchase is under way (a host that gave up waiting asks
    // again), or just answered to a call its host gave up on: that purchase, paid once, answers it.
    const underWay = ctx.underWay.join(key, approvalId);
    if (underWay !== undefined) return joinUnderWay(underWay, key, call);
    let held!: (approval: Approval) => void;
    const heldNow = new Promise<Approval>((resolve) => (held = resolve));
    const work = purchase(ctx, request, held);
    ctx.underWay.start(key, { work, held: heldNow, approvalId }, extra.mcpReq.signal);
    const first = await Promise.race([
      work.then(
        () => null,
        () => null,
      ),
      heldNow,
    ]);
    if (first === null) return answered(() => work);
    let followed = ctx.decisions.follow(key, first, () => work);
    if (followed.approval.approvalId !== first.approvalId) {
      // Two calls of the same arguments that did not join (one names an approvalId, the other another
      // or none) both asked Coffer before either was held, so Coffer holds two requests. One purchase
      // is followed (the first held); this one's request is withdrawn, so the owner is asked once and
      // nothing is paid twice. Not withdrawn (the owner decided first, or Coffer did not answer), it is
      // a purchase of its own, followed as any held one: answered to this call, kept for it asked
      // again, withdrawn when the bridge ends.
      const withdrawn = await ctx.api.withdrawRequest(first.approvalId).then(
        () => true,
        () => false,
      );
      if (!withdrawn) followed = ctx.decisions.follow(`${key}:${first.approvalId}`, first, () => work);
    }
    return ctx.decisions.hostOpensUrls(server, extra)
      ? showAndWait(followed, call, 'fetch_paid')
      : whenDecided(followed, call, 'fetch_paid');
  },
});

/**
 * A call joining the purchase under way for the same arguments: its answer; or, where the owner's
 * yes is awaited meanwhile, that held purchase as the first call follows it (a turn later at most).
 */
async function joinUnderWay({ work, held }: UnderWay, key: string, call: ToolCall): Promise<ToolResult> {
  const heldNow = await Promise.race([
    work.then(
      () => null,
      () => null,
    ),
    held,
  ]);
  if (heldNow !== null) {
    await new Promise((resolve) => setImmediate(resolve));
    const followed = call.ctx.decisions.joined(key);
    if (followed !== undefined) {
      return call.ctx.decisions.hostOpensUrls(call.server, call.extra)
        ? showAndWait(followed, call, 'fetch_paid')
        : whenDecided(followed, call, 'fetch_paid');
    }
  }
  return answered(() => work);
}

/**
 * fetch_paid's purchase: the URL called through payingFetch as this agent, its answer as the tool
 * says it (without the spent credential). `onHeld` is told when the owner's yes is awaited.
 */
async function purchase(
  ctx: ToolContext,
  request: { url: string; method?: string; body?: string; headers?: Record<string, string>; rail?: Rail; approvalId?: string },
  onHeld: (approval: Approval) => void,
): Promise<object> {
  try {
    const { response, settlement, signedIn } = await payingFetch(
      request.url,
      { method: request.method ?? 'GET', body: request.body, headers: request.headers },
      {
        agent: { cofferUrl: ctx.api.base, owner: ctx.owner, agentId: ctx.agentId, apiKey: ctx.apiKey },
        onHeld,
        // A payment the chain has not confirmed is followed a short while: a host may give up on a call
        // after 60 s, and the first /pay alone can take longer (Solana's confirmation). A host that gave
        // up and calls again joins this purchase (PurchasesUnderWay) rather than paying anew.
        chainWaitMs: 20_000,
        // A URL that takes the call and never answers is given up inside a host's own 60 s, said
        // as url_unreachable (nothing paid) rather than the host's bare timeout.
        answerWaitMs: 45_000,
        ...(request.rail === undefined ? {} : { rail: request.rail }),
        // An earlier call's request (this bridge restarted since): used, not asked anew.
        ...(request.approvalId === undefined ? {} : { approvalId: request.approvalId }),
      },
    );
    // Coffer's word on the payment once the seller's answer reached it (a few milliseconds), as
    // `coffer fetch` says it: an x402 payment the seller settled is `confirmed`, with its transaction.
    const payment = await settlement;
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
              rail: payment.rail,
              ...(payment.network === null ? {} : { network: payment.network, testMoney: isTestMoney(payment.network) }),
              amount: payment.amount,
              status: payment.status,
              txSignature: payment.txSignature,
              ...(payment.agentStopped === undefined ? {} : { agentStopped: payment.agentStopped }),
            },
      // Let in on an earlier purchase (x402 Sign-In-With-X): nothing paid for this call.
      ...(signedIn === undefined ? {} : { signedIn }),
    };
  } catch (error) {
    // Coffer's own refusal code (max_per_payment_exceeded) says more than payment_refused.
    // What became of a payment behind a call that failed, as `coffer fetch` says it: an agent told
    // only "paid_call_failed" asks again, and pays again.
    if (error instanceof PaymentError) {
      const paid = error.details.payment;
      const message = paid === undefined ? error.message : `${error.message}. ${afterFailedCall(paid)}`;
      // The breaker it tripped carried along: the next step is then to ask to be resumed.
      throw new CofferApiError(error.details.status ?? 0, error.details.cofferCode ?? error.code, message, error.details.agentStopped);
    }
    throw error;
  }
}
