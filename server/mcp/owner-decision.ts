// A tool call that waits for the owner's yes (a payment the agent's policy holds), as the MCP host
// is shown it: the decision page by URL elicitation where the host can open one, progress otherwise.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type ClientCapabilities,
  type InputRequiredResult,
  type McpServer,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CofferApiError } from '../client/client-error.js';
import type { Approval } from '../client/wire-types.js';

/** How often a host waiting on a held payment is told it still waits (its request kept alive). */
const HEARTBEAT_MS = 15_000;

/** A held request waits at most a day for the owner (APPROVAL_TTL_MS); its round's state lives as long. */
const STATE_TTL_SECONDS = 26 * 60 * 60;

/** How long a settled purchase no host came back for is kept (then its answer is dropped; the payment stays in the ledger). */
const KEEP_SETTLED_MS = 10 * 60_000;

/** Where the owner decides on one request: the dashboard's Approvals page, opened on that request. */
export const decisionUrl = (cofferUrl: string, approvalId: string) => `${cofferUrl}/#/approvals/${encodeURIComponent(approvalId)}`;

/** Why it waits, in the owner's policy's words. */
export const heldReason = (approval: Approval) =>
  (approval.request.reason as { message?: string } | undefined)?.message ?? "the agent's policy asks the owner";

/** A tool's work, settled either way: a parked purchase must never become an unhandled rejection. */
type Outcome = { ok: object } | { error: unknown };

/** What a round carries back through the host (sealed: the host only echoes it). */
interface HeldState {
  tool: string;
  purchaseId: string;
  approvalId: string;
}

/**
 * The held purchases of one `coffer mcp` process, followed between the rounds of a host that shows
 * the owner's decision page.
 *
 * A host that can open a URL (elicitation's url mode) is handed the decision page and comes back
 * with the same call (2026-07-28: `input_required`, then a retry carrying the sealed state; a 2025
 * host gets the same through the SDK's push elicitation). The purchase is one and the same throughout:
 * it goes on in this process while the owner decides, and the call that comes back awaits it, so a
 * payment is made once at most however often the host asks. Its state is HMAC-sealed with a key of
 * this process: a host cannot forge one, and after a restart of this bridge an old one is refused.
 */
export class OwnerDecisions {
  private readonly codec: RequestStateCodec<HeldState> = createRequestStateCodec<HeldState>({
    key: randomBytes(32),
    ttlSeconds: STATE_TTL_SECONDS,
  });
  private readonly followed = new Map<string, Promise<Outcome>>();

  /** The hook the server runs on a returning round's state (a forged or stale one is refused with -32602). */
  readonly verify = (state: string, ctx: ServerContext) => this.codec.verify(state, ctx);

  constructor(private readonly cofferUrl: string) {}

  /**
   * Whether the host opens a URL for the user (declared elicitation url mode): on 2026-07-28 in the
   * request's own envelope, on 2025 at initialize.
   */
  hostOpensUrls(server: McpServer, ctx: ServerContext): boolean {
    const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
      ClientCapabilities | undefined;
    const capabilities = declared ?? server.server.getClientCapabilities();
    return capabilities?.elicitation?.url !== undefined;
  }

  /**
   * Hands the host the decision page and keeps the purchase going: the call comes back (`resumed`)
   * and gets its answer.
   */
  async park(tool: string, work: Promise<object>, approval: Approval): Promise<InputRequiredResult> {
    const purchaseId = randomUUID();
    const settled = settle(work);
    this.followed.set(purchaseId, settled);
    // A host that never comes back: its answer is dropped a while after the owner decided.
    void settled.then(() => setTimeout(() => this.followed.delete(purchaseId), KEEP_SETTLED_MS).unref());
    return inputRequired({
      inputRequests: {
        owner: inputRequired.elicitUrl({
          message: `Coffer holds this payment for the owner's yes (${heldReason(approval)}). Open the page to approve or deny it; nothing is paid until then.`,
          url: decisionUrl(this.cofferUrl, approval.approvalId),
        }),
      },
      requestState: await this.codec.mint({ tool, purchaseId, approvalId: approval.approvalId }),
    });
  }

  /**
   * The purchase a returning round carries the state of (whatever the host answered: the owner's
   * decision is what counts), or undefined for a first round.
   */
  resumed(tool: string, ctx: ServerContext): { work: Promise<object>; approvalId: string } | undefined {
    const state = ctx.mcpReq.requestState<HeldState>();
    if (state === undefined) return undefined;
    // Another tool's state (sealed by this bridge, echoed to the wrong call) follows nothing here.
    const settled = state.tool === tool ? this.followed.get(state.purchaseId) : undefined;
    if (settled === undefined) {
      const lost = new CofferApiError(
        0,
        'purchase_not_followed',
        `this bridge no longer follows the held purchase (approval ${state.approvalId}); call check_approval with it to learn the owner's answer, and do not pay again`,
      );
      return { work: Promise.reject(lost), approvalId: state.approvalId };
    }
    this.followed.delete(state.purchaseId);
    return { work: settled.then(unsettle), approvalId: state.approvalId };
  }
}

const settle = (work: Promise<object>): Promise<Outcome> =>
  work.then(
    (ok) => ({ ok }),
    (error: unknown) => ({ error }),
  );

const unsettle = (outcome: Outcome): object => {
  if ('ok' in outcome) return outcome.ok;
  throw outcome.error;
};

/**
 * Tells the host, as progress on this call (which also keeps its request alive), that it waits for
 * the owner and where the owner decides, every HEARTBEAT_MS until stopped. Without a progress token
 * it says nothing.
 */
export function heartbeat(ctx: ServerContext, words: string): () => void {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let beats = 0;
  const tell = () =>
    void ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress: (beats += 1), message: words } })
      .catch(() => undefined);
  tell();
  const timer = setInterval(tell, HEARTBEAT_MS);
  return () => clearInterval(timer);
}
