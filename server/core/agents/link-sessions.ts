import { randomBytes, randomInt } from 'node:crypto';
import { CofferError } from '../../wire/errors.js';
import { requireFreshSignIn, requireOwner, type Principal } from '../auth.js';
import { audit, DAY_MS, type EngineContext } from '../context.js';
import { deployAgent } from './deploy.js';
import { issueAgentKey } from './keys.js';
import { getAgentOrThrow, refuseTakenAgentId } from '../agent-lookup.js';
import { ownerResult } from '../outcome.js';
import { hashApiKey } from '../ids.js';
import type { LinkSessionRecord } from '../ports/store.js';
import type { LinkCompleteBody } from '../../wire/schemas.js';
import { iso } from '../../wire/views.js';
import { startingLimits } from '../../wire/policy/policy.js';
import type {
  LinkCleared,
  LinkCompleted,
  LinkDenied,
  LinkDetails,
  LinkPoll,
  LinkSession,
  WaitingLinkSessions,
} from '../../wire/answers/link-sessions.js';

export const LINK_TOKEN_PREFIX = 'lnk_';
/** A link session's lifetime: long enough to switch to the browser and sign in. */
export const LINK_TTL_MS = 10 * 60 * 1000;
/** The fastest a terminal may poll (the spec's 2 seconds). */
export const LINK_POLL_INTERVAL_MS = 2000;
/**
 * Sessions that may wait for the owner at once. Anyone on the machine may ask to be linked, so a
 * request is never refused for others waiting (that let one process lock linking out); past this
 * bound the oldest waiting session the owner has not opened gives way, which keeps what waits (and
 * the disk) bounded. The owner sees what waits, and clears it.
 */
const MAX_PENDING_LINK_SESSIONS = 500;
/** Credentials of a completed session wait this long for their poller. */
const COLLECT_GRACE_MS = 10 * 60 * 1000;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const matchingCode = () =>
  Array.from({ length: 8 }, (_, i) => (i === 4 ? '-' : '') + CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');

function sessionOrThrow(ctx: EngineContext, token: string): LinkSessionRecord {
  const session = token.startsWith(LINK_TOKEN_PREFIX) ? ctx.store.getLinkSession(hashApiKey(token)) : null;
  if (session === null) {
    throw new CofferError(
      'link_not_found',
      'no such link session (unknown, denied or cleared by the owner, or long expired); run `coffer link` again for a new one',
    );
  }
  return session;
}

/**
 * A terminal asks to be linked: a single-use token (only its hash is stored), a short code to match
 * in the terminal and on the dashboard page, and the dashboard URL where the owner completes it.
 */
export function createLinkSession(ctx: EngineContext, client: Record<string, string>): LinkSession {
  const token = `${LINK_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
  const now = ctx.clock.now();
  const session: LinkSessionRecord = {
    tokenHash: hashApiKey(token),
    code: matchingCode(),
    client,
    status: 'pending',
    owner: null,
    agentId: null,
    createdAt: now,
    expiresAt: now + LINK_TTL_MS,
    lastPolledAt: null,
    completedAt: null,
    openedAt: null,
  };
  ctx.store.transaction(() => {
    ctx.store.pruneLinkSessions(now - DAY_MS);
    ctx.store.insertLinkSession(session);
    ctx.store.trimWaitingLinkSessions(now, MAX_PENDING_LINK_SESSIONS);
  });
  return {
    token,
    linkUrl: `${ctx.baseUrl()}/link?token=${encodeURIComponent(token)}`,
    expiresAt: iso(session.expiresAt),
    code: session.code,
    pollIntervalSeconds: LINK_POLL_INTERVAL_MS / 1000,
  };
}

/**
 * The terminal's poll. At most every 2 s (429 slow_down otherwise). Once the owner completed the
 * session, the first poll mints the new agent's API key and hands over the credentials; the token is
 * used up then (410 link_used after), and an unused one expires (410 link_expired).
 */
export function pollLinkSession(ctx: EngineContext, token: string): LinkPoll {
  const session = sessionOrThrow(ctx, token);
  const now = ctx.clock.now();
  if (session.status === 'delivered') throw new CofferError('link_used', 'this link session was already used');
  const deadline = session.status === 'completed' ? session.expiresAt + COLLECT_GRACE_MS : session.expiresAt;
  if (now > deadline) throw new CofferError('link_expired', 'this link session expired; run `coffer link` again');
  if (session.lastPolledAt !== null && now - session.lastPolledAt < LINK_POLL_INTERVAL_MS) {
    throw new CofferError('slow_down', 'poll at most every 2 seconds', {
      retryAfterSeconds: Math.ceil((LINK_POLL_INTERVAL_MS - (now - session.lastPolledAt)) / 1000),
    });
  }
  ctx.store.touchLinkSession(session.tokenHash, now);
  if (session.status === 'pending') return { status: 'pending' as const, expiresAt: iso(session.expiresAt), code: session.code };

  const owner = session.owner!;
  const agentId = session.agentId!;
  // Claimed but the agent is still being created, or funded: not ready yet. Handed out between its
  // row and its funding, the terminal was told its wallet was empty, and to ask for money the owner
  // had just moved (helper 183).
  if (ctx.state.linksDeploying.has(session.tokenHash) || ctx.store.getAgent(owner, agentId) === null)
    return { status: 'pending' as const, expiresAt: iso(session.expiresAt), code: session.code };
  return ctx.store.transaction(() => {
    if (!ctx.store.markLinkSessionDelivered(session.tokenHash)) throw new CofferError('link_used', 'this link session was already used');
    const agent = getAgentOrThrow(ctx, owner, agentId);
    const apiKey = issueAgentKey(ctx, owner, agentId);
    audit(ctx, { actor: 'system', owner, agentId, action: 'link.delivered', detail: { client: session.client } });
    return {
      status: 'completed' as const,
      expiresAt: iso(session.expiresAt),
      agentId,
      walletAddress: agent.walletAddress,
      apiKey,
      owner,
      url: ctx.baseUrl(),
    };
  });
}

/** The id the owner knows a waiting session by: the start of its token's hash (never the token). */
const sessionId = (session: LinkSessionRecord) => session.tokenHash.slice(0, 16);

/**
 * What the dashboard's link page shows the owner: who is asking, and the code to compare. Opening it
 * marks the session as the owner's to decide: it no longer gives way to newer requests.
 */
export function describeLinkSession(ctx: EngineContext, principal: Principal, token: string): LinkDetails {
  requireOwner(principal);
  const session = sessionOrThrow(ctx, token);
  if (session.openedAt === null && session.status === 'pending') ctx.store.markLinkSessionOpened(session.tokenHash, ctx.clock.now());
  const expired = session.status === 'pending' && ctx.clock.now() > session.expiresAt;
  return {
    code: session.code,
    client: session.client,
    status: expired ? ('expired' as const) : session.status,
    expiresAt: iso(session.expiresAt),
    createdAt: iso(session.createdAt),
    agentId: session.agentId,
  };
}

/**
 * The signed-in owner completes a session: a new agent with the name and starting policy the owner
 * chose. Its key is minted later, when the terminal collects it.
 */
export async function completeLinkSession(
  ctx: EngineContext,
  principal: Principal,
  token: string,
  body: LinkCompleteBody,
): Promise<LinkCompleted> {
  requireOwner(principal);
  const session = sessionOrThrow(ctx, token);
  // The terminal is handed a new agent's key: lasting access, so a dashboard session must be fresh.
  requireFreshSignIn(principal, ctx.clock.now());
  if (session.status !== 'pending') throw new CofferError('link_used', 'this link session was already completed');
  if (ctx.clock.now() > session.expiresAt) throw new CofferError('link_expired', 'this link session expired; run `coffer link` again');
  const agentId = body.agentId ?? `agent-${randomBytes(3).toString('hex')}`;
  // A terminal takes an agent in use by a new key of it, not by a link (which makes a new agent).
  refuseTakenAgentId(
    ctx,
    principal.owner,
    agentId,
    `a link makes a new agent; to have that terminal act as this one, coffer key ${agentId} --config FILE writes a new key to its config FILE (the agent's older keys stop working)`,
  );
  // Claim the session before deploying, so two completions racing create one agent, not two.
  if (!ctx.store.completeLinkSession(session.tokenHash, principal.owner, agentId, ctx.clock.now())) {
    throw new CofferError('link_used', 'this link session was completed meanwhile');
  }
  let deployed;
  ctx.state.linksDeploying.add(session.tokenHash);
  try {
    deployed = ownerResult(
      await deployAgent(
        ctx,
        principal,
        {
          agentId,
          displayName: body.displayName,
          ...startingLimits(body.dailyBudget, body.maxPerPayment),
          ...(body.fund === undefined ? {} : { fund: body.fund }),
          ...(body.fundRail === undefined ? {} : { fundRail: body.fundRail }),
        },
        { issueKey: false },
      ),
    );
  } catch (error) {
    ctx.store.reopenLinkSession(session.tokenHash);
    throw error;
  } finally {
    ctx.state.linksDeploying.delete(session.tokenHash);
  }
  audit(ctx, { actor: 'owner', owner: principal.owner, agentId, action: 'link.completed', detail: { client: session.client } });
  return { status: 'completed' as const, agentId, ...(deployed.funding === undefined ? {} : { funding: deployed.funding }) };
}

/** Link requests waiting for the owner, newest first: who asks, the code their terminal shows, since when. */
export function waitingLinkSessions(ctx: EngineContext, principal: Principal): WaitingLinkSessions {
  requireOwner(principal);
  return {
    sessions: ctx.store.listWaitingLinkSessions(ctx.clock.now(), MAX_PENDING_LINK_SESSIONS).map((session) => ({
      id: sessionId(session),
      code: session.code,
      client: session.client,
      createdAt: iso(session.createdAt),
      expiresAt: iso(session.expiresAt),
      lastPolledAt: session.lastPolledAt === null ? null : iso(session.lastPolledAt),
      opened: session.openedAt !== null,
    })),
  };
}

/** The owner clears waiting link requests (the ones named, or all): their terminals are told no such session. */
export function clearLinkSessions(ctx: EngineContext, principal: Principal, ids: string[] | null): LinkCleared {
  requireOwner(principal);
  const cleared = ctx.store.clearWaitingLinkSessions(ids);
  audit(ctx, { actor: 'owner', owner: principal.owner, action: 'link.cleared', detail: { cleared, all: ids === null } });
  return { cleared };
}

/**
 * The owner says no to one waiting request from its page (the code did not match, or nobody asked):
 * it is removed, and its terminal's next poll is told there is no such session.
 */
export function denyLinkSession(ctx: EngineContext, principal: Principal, token: string): LinkDenied {
  requireOwner(principal);
  const session = sessionOrThrow(ctx, token);
  if (session.status !== 'pending') throw new CofferError('link_used', 'this link session was already completed');
  ctx.store.clearWaitingLinkSessions([sessionId(session)]);
  audit(ctx, { actor: 'owner', owner: principal.owner, action: 'link.denied', detail: { client: session.client } });
  return { status: 'denied' as const };
}
