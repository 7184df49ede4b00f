import { CofferError, givenTimesWords } from '../wire/errors.js';
import { isSolanaAddress } from '../wire/rails.js';
import { hashApiKey } from './ids.js';
import type { ApiKeyStore, OwnerStore } from './ports/store.js';

/** All authentication reads: whether the owner is known, and whose a key is. */
type CredentialStore = OwnerStore & ApiKeyStore;

/**
 * Who is calling: the owner (owner key, or a dashboard session, which carries when it signed in) or
 * one agent (its agent key).
 */
export type Principal = { kind: 'owner'; owner: string; signedInAt?: number } | { kind: 'agent'; owner: string; agentId: string };

/** A signed-in dashboard session: whose, and since when. */
export interface SessionOwner {
  owner: string;
  signedInAt: number;
}

/** How long after signing in a dashboard session may mint what outlives it, or move money. */
export const FRESH_SIGN_IN_MS = 10 * 60 * 1000;

/** What needs a fresh sign-in, in the refusal's words. */
export const FRESH_FOR = {
  /** A login link or an agent's API key: lasting access, which must not outlive a session left open or taken. */
  minting: 'this creates a key or a login link',
  /**
   * Allocating, paying as the owner, loosening a policy, resuming, approving an agent's request: what
   * moves money out of the owner's reach or lets an agent spend more. A session token taken from an
   * open tab could otherwise drain the treasury for 12 hours.
   */
  money: 'this moves money or lets an agent spend more',
  /**
   * The time zone: calendar budgets start afresh at its midnights, so another zone can give an agent
   * a fresh budget hours early.
   */
  timeZone: 'this moves where calendar budgets start afresh, which can free an agent’s budget early',
  /** The recovery phrase: whoever reads it holds every wallet, on any computer. */
  phrase: 'this shows the recovery phrase',
  /** A backup file holds every wallet's key, under a passphrase its maker chooses. */
  backup: "this writes every wallet's key into a backup file",
} as const;

/**
 * Needs the owner's key, or a dashboard sign-in from the last ten minutes (see FRESH_FOR). Reading,
 * stopping, tightening, denying and returning money to the treasury never do: the brake is never
 * behind a sign-in. Signing in again is opening a new login link (`coffer open`, the tray); a link a
 * session mints itself signs in as of that session's own sign-in (DashboardSessions), so a session
 * cannot keep itself fresh.
 */
export function requireFreshSignIn(principal: Principal, now: number, what: string = FRESH_FOR.minting): void {
  if (principal.kind !== 'owner' || principal.signedInAt === undefined) return;
  if (now - principal.signedInAt <= FRESH_SIGN_IN_MS) return;
  throw new CofferError(
    'confirmation_required',
    `${what}, which needs a sign-in from the last 10 minutes: sign in again (run coffer open, or use the tray's Open dashboard) and try again`,
  );
}

/**
 * Resolves the `owner` query parameter and the bearer key (or a signed-in dashboard session) into a
 * principal. Order matters and follows
 * API.md: owner shape, owner known, key known, key belongs to that owner.
 * Keys are looked up by SHA-256, so the stored value never has to be compared in plain text.
 */
export function authenticate(
  store: CredentialStore,
  owner: unknown,
  bearer: string | null,
  session: SessionOwner | null = null,
): Principal {
  if (owner === undefined || owner === null || owner === '') {
    throw new CofferError('owner_required', 'the owner query parameter (the treasury wallet address) is required');
  }
  if (Array.isArray(owner)) throw new CofferError('invalid_owner', givenTimesWords('owner', owner.length));
  if (typeof owner !== 'string' || !isSolanaAddress(owner)) {
    throw new CofferError('invalid_owner', 'owner must be a Solana wallet address');
  }
  if (store.getOwner(owner) === null) throw new CofferError('owner_not_found', `no treasury with owner ${owner} here`);
  if (session !== null) {
    if (session.owner !== owner) throw new CofferError('wrong_owner', 'this session belongs to another owner');
    return { kind: 'owner', owner, signedInAt: session.signedInAt };
  }
  if (bearer === null || bearer === '') {
    throw new CofferError('unauthorized', 'missing API key: send Authorization: Bearer <key>');
  }
  const scope = store.findApiKey(hashApiKey(bearer));
  if (scope === null) throw unknownKey(store, bearer);
  if (scope.owner !== owner) throw new CofferError('wrong_owner', 'this API key belongs to another owner');
  return scope.kind === 'owner' ? { kind: 'owner', owner } : { kind: 'agent', owner, agentId: scope.agentId };
}

/**
 * For the endpoints the spec exempts from `owner` (the link-session endpoints): the owner is the one
 * the key or the sign-in belongs to. An `owner` that is given anyway is checked as everywhere else.
 */
export function authenticateCredential(
  store: CredentialStore,
  owner: unknown,
  bearer: string | null,
  session: SessionOwner | null = null,
): Principal {
  if (owner !== undefined && owner !== '') return authenticate(store, owner, bearer, session);
  if (session !== null) return { kind: 'owner', owner: session.owner, signedInAt: session.signedInAt };
  if (bearer === null || bearer === '') {
    throw new CofferError('unauthorized', 'missing API key: send Authorization: Bearer <key>');
  }
  const scope = store.findApiKey(hashApiKey(bearer));
  if (scope === null) throw unknownKey(store, bearer);
  return scope.kind === 'owner' ? { kind: 'owner', owner: scope.owner } : { kind: 'agent', owner: scope.owner, agentId: scope.agentId };
}

/**
 * A key that is not in use: one revoked is told why (its holder had it, so nothing is learned that it
 * did not know: whose it was); any other only that it is invalid. Either way 401, nothing done.
 */
function unknownKey(store: CredentialStore, bearer: string): CofferError {
  const revoked = store.findRevokedApiKey(hashApiKey(bearer));
  if (revoked === null) return new CofferError('unauthorized', 'invalid API key');
  const at = new Date(revoked.at).toISOString();
  if (revoked.kind === 'owner') {
    return new CofferError(
      'unauthorized',
      `this owner key was replaced by a new one at ${at}: the running Coffer's connection file has it`,
    );
  }
  const whose = `this API key of agent "${revoked.agentId}"`;
  return new CofferError(
    'unauthorized',
    revoked.reason === 'archived'
      ? `${whose} was revoked at ${at}: the owner archived the agent`
      : `${whose} was replaced by a new one at ${at}: the owner has it (coffer key ${revoked.agentId} makes another)`,
  );
}

export function requireOwner(principal: Principal): void {
  if (principal.kind !== 'owner') {
    throw new CofferError('owner_only', 'only the owner can do this; an agent key cannot');
  }
}

/** The agent's own key or the owner's key. */
export function requireAgentScope(principal: Principal, agentId: string): void {
  if (principal.kind === 'agent' && principal.agentId !== agentId) {
    // Whose key it is, and that it acts for that agent alone ("belongs to another agent" read as if
    // the key were someone else's). The path's agentId is checked before this, so it is safe to repeat;
    // said before the agent is looked up, it tells nothing of whether that agent exists.
    throw new CofferError(
      'wrong_agent',
      `this API key is agent "${principal.agentId}"'s and acts for that agent alone, not for "${agentId}"`,
    );
  }
}

export const actorOf = (principal: Principal): string => (principal.kind === 'owner' ? 'owner' : `agent:${principal.agentId}`);
