// A tool call that waits for the owner's yes (a payment the agent's policy holds), as the MCP host
// is shown it: the decision page by URL elicitation where the host can open one, progress otherwise.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
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
import type { Approval } from '../wire/answers/approvals.js';
import { heldPaymentWords, heldReason } from '../wire/held-words.js';

/** How often a host waiting on a held payment is told it still waits (its request kept alive). */
const HEARTBEAT_MS = 15_000;

/**
 * How long one call waits for the owner before answering that the payment still waits: under the 60 s
 * hosts give a request by default, so that a host that does not reset its timeout on progress still
 * gets an answer that names the approval, never a bare timeout. COFFER_MCP_HELD_WAIT_SECONDS sets it
 * for hosts that wait longer.
 */
export const DEFAULT_HELD_WAIT_MS = 45_000;

/** A held request waits at most a day for the owner (APPROVAL_TTL_MS); its round's state lives as long. */
const STATE_TTL_SECONDS = 26 * 60 * 60;

/**
 * How long a settled purchase no call has taken the answer of is kept at least (then dropped; the
 * payment stays in the ledger). It is kept until its approval ends where that is later: the agent
 * was told to ask again with the same arguments until then, and a dropped answer makes a call
 * asked again a second purchase.
 */
const KEEP_SETTLED_MS = 10 * 60_000;
/** The longest an answer is kept: a held request's round lives no longer. */
const KEEP_SETTLED_AT_MOST_MS = STATE_TTL_SECONDS * 1000;

/** How long a settled purchase's answer is kept: until its approval ends, within the bounds above. */
const keptFor = (approval: Approval) => {
  const untilEnd = Date.parse(approval.expiresAt) - Date.now();
  return Number.isFinite(untilEnd) ? Math.min(Math.max(untilEnd, KEEP_SETTLED_MS), KEEP_SETTLED_AT_MOST_MS) : KEEP_SETTLED_MS;
};

/** Where the owner decides on one request: the dashboard's Approvals page, opened on that request. */
export const decisionUrl = (cofferUrl: string, approvalId: string) => `${cofferUrl}/#/approvals/${encodeURIComponent(approvalId)}`;

/** A tool's work, settled either way: a followed purchase must never become an unhandled rejection. */
type Outcome = { ok: object } | { error: unknown };

/** A held purchase this bridge follows until the owner decides, and the approval it waits on. */
export interface Followed {
  key: string;
  approval: Approval;
  settled: Promise<Outcome>;
}

/** What a round carries back through the host (sealed: the host only echoes it). */
interface HeldState {
  tool: string;
  key: string;
  approvalId: string;
}

/** What one call makes of a followed purchase: its answer, or (the owner not decided yet) the approval still waiting. */
export type CallOutcome = { answer: object } | { error: unknown } | { stillWaiting: Approval };

/**
 * The held purchases of one `coffer mcp` process.
 *
 * A purchase the owner must approve is followed here, under a key of what was asked (for
 * `fetch_paid` the request, for `pay` its approval), until the owner decides: each call that asks for
 * it (the first, a host's returning round, the agent asking again with the same arguments) waits for
 * it a while and takes its answer, which is handed out once. So one purchase is paid once at most,
 * however often it is asked for, and the owner is asked once.
 *
 * A 2026-07-28 host that opens URLs is handed the decision page as an `input_required` round whose
 * state names the purchase; the state is HMAC-sealed with a key of this process (a host cannot forge
 * one; after a restart of this bridge an old one is refused).
 */
export class OwnerDecisions {
  private readonly codec: RequestStateCodec<HeldState> = createRequestStateCodec<HeldState>({
    key: randomBytes(32),
    ttlSeconds: STATE_TTL_SECONDS,
  });
  private readonly followed = new Map<string, Followed>();

  /** The hook the server runs on a returning round's state (a forged or stale one is refused with -32602). */
  readonly verify = (state: string, ctx: ServerContext) => this.codec.verify(state, ctx);

  constructor(private readonly cofferUrl: string) {}

  /** The key a fetch_paid purchase is followed under: what it asks for, exactly. */
  static requestKey(request: object): string {
    return `fetch:${createHash('sha256').update(JSON.stringify(request)).digest('base64url')}`;
  }

  /** The requests of the purchases followed now (waiting for the owner, or answered and not taken). */
  followedRequests(): string[] {
    return [...this.followed.values()].map((followed) => followed.approval.approvalId);
  }

  /** The purchase followed under this key, if one waits or has an answer not taken yet. */
  joined(key: string): Followed | undefined {
    return this.followed.get(key);
  }

  /** The purchase followed under this request, if any (whatever the call that asked it). */
  followedUnder(approvalId: string): Followed | undefined {
    return [...this.followed.values()].find((followed) => followed.approval.approvalId === approvalId);
  }

  /**
   * Follows a held purchase until it settles, or returns the one already followed under this key:
   * then `start` is not called (no second wait, no second purchase).
   */
  follow(key: string, approval: Approval, start: () => Promise<object>): Followed {
    const known = this.followed.get(key);
    if (known !== undefined) return known;
    const settled = start().then(
      (ok): Outcome => ({ ok }),
      (error: unknown): Outcome => ({ error }),
    );
    const followed = { key, approval, settled };
    this.followed.set(key, followed);
    // An answer no call comes back for is dropped once its approval ended.
    void settled.then(() =>
      setTimeout(() => {
        if (this.followed.get(key) === followed) this.followed.delete(key);
      }, keptFor(approval)).unref(),
    );
    return followed;
  }

  /**
   * Waits for the purchase at most `withinMs`: its answer (taken: handed out once), or that it still
   * waits for the owner (it stays followed, for the next call).
   */
  async outcome(followed: Followed, withinMs: number, cancelled?: AbortSignal): Promise<CallOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), withinMs)));
    const gone = new Promise<null>((resolve) =>
      cancelled?.aborted === true ? resolve(null) : cancelled?.addEventListener('abort', () => resolve(null), { once: true }),
    );
    const settled = await Promise.race([followed.settled, late, gone]);
    clearTimeout(timer);
    // A call its host cancelled (it gave up waiting) takes no answer: its answer would be dropped with
    // it, the purchase paid with nothing handed to the agent. It stays for the same call asked again.
    if (settled === null || cancelled?.aborted === true) return { stillWaiting: followed.approval };
    if (this.followed.get(followed.key) === followed) this.followed.delete(followed.key);
    return 'ok' in settled ? { answer: settled.ok } : { error: settled.error };
  }

  /** Whether this connection speaks 2026-07-28 (no server-to-client requests: rounds instead). */
  static modern(server: McpServer): boolean {
    return (server.server.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28';
  }

  /**
   * Whether the host opens a URL for the user (declared elicitation url mode), as the SDK judges it
   * in this era: on 2026-07-28 in the request's own envelope, on 2025 at initialize.
   */
  hostOpensUrls(server: McpServer, ctx: ServerContext): boolean {
    const capabilities = OwnerDecisions.modern(server)
      ? ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
      : server.server.getClientCapabilities();
    return capabilities?.elicitation?.url !== undefined;
  }

  /** The words a host shows its user with the decision page. */
  private pageWords(approval: Approval): string {
    return `Coffer holds ${thisPayment(approval)} for the owner's yes (${heldReason(approval)}; request ${approval.approvalId}). Open the page to approve or deny it; nothing is paid until then.`;
  }

  /** 2026-07-28: hands the host the decision page; it comes back with the state (`resumed`). */
  async park(tool: string, followed: Followed): Promise<InputRequiredResult> {
    const { approval } = followed;
    return inputRequired({
      inputRequests: {
        owner: inputRequired.elicitUrl({ message: this.pageWords(approval), url: decisionUrl(this.cofferUrl, approval.approvalId) }),
      },
      requestState: await this.codec.mint({ tool, key: followed.key, approvalId: approval.approvalId }),
    });
  }

  /**
   * 2025: asks the host to open the decision page (an elicitation pushed within the call), without
   * waiting for its answer: the owner's decision is what counts, and the call goes on waiting for it.
   */
  showPage(ctx: ServerContext, approval: Approval, withinMs: number): void {
    ctx.mcpReq
      .elicitInput(
        {
          mode: 'url',
          message: this.pageWords(approval),
          url: decisionUrl(this.cofferUrl, approval.approvalId),
          elicitationId: randomUUID(),
        },
        { timeout: withinMs },
      )
      .catch(() => undefined);
  }

  /**
   * The purchase a returning round carries the state of (whatever the host answered), undefined for
   * a first round, or null when this bridge no longer follows it (its answer taken, or dropped).
   */
  resumed(tool: string, ctx: ServerContext): { followed: Followed | null; approvalId: string } | undefined {
    const state = ctx.mcpReq.requestState<HeldState>();
    if (state === undefined) return undefined;
    // Another tool's state (sealed by this bridge, echoed to the wrong call) follows nothing here.
    const followed = state.tool === tool ? (this.followed.get(state.key) ?? null) : null;
    return { followed: followed?.approval.approvalId === state.approvalId ? followed : null, approvalId: state.approvalId };
  }
}

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

/** "this payment (0.01 USDC on Base for demo-weather)": the held payment, its rail said, as the agent is told of it. */
export function thisPayment(approval: Approval): string {
  const what = heldPaymentWords(approval);
  return what === null ? 'this payment' : `this payment (${what})`;
}
