/**
 * The /v1 answers about link sessions: a terminal asking to be linked to a new agent (`coffer link`),
 * polling until the owner completed it, and the owner's view of what waits.
 */
import type { DeployFunding } from './agents.js';

/** `delivered`: the terminal collected its credentials (the token is used up). */
export type LinkSessionStatus = 'pending' | 'completed' | 'delivered';

/** POST /v1/link-sessions: the token to poll with, the code to match, and the page where the owner completes it. */
export type LinkSession = {
  token: string;
  linkUrl: string;
  expiresAt: string;
  code: string;
  pollIntervalSeconds: number;
};

/** GET /v1/link-sessions/:token: still waiting, or (once) the new agent's credentials. */
export type LinkPoll =
  | { status: 'pending'; expiresAt: string; code: string }
  | { status: 'completed'; expiresAt: string; agentId: string; walletAddress: string; apiKey: string; owner: string; url: string };

/** GET /v1/link-sessions/:token/details: who is asking, and the code to compare. */
export type LinkDetails = {
  code: string;
  client: Record<string, unknown>;
  status: LinkSessionStatus | 'expired';
  expiresAt: string;
  createdAt: string;
  agentId: string | null;
};

/** A link request waiting for the owner; `id` is the start of its token's hash (never the token). */
export type WaitingLinkSession = {
  id: string;
  code: string;
  client: Record<string, unknown>;
  createdAt: string;
  expiresAt: string;
  lastPolledAt: string | null;
  opened: boolean;
};

export type WaitingLinkSessions = {
  sessions: WaitingLinkSession[];
};

export type LinkCleared = {
  cleared: number;
};

export type LinkDenied = {
  status: 'denied';
};

/** POST /v1/link-sessions/:token/complete: the new agent (its key goes to the terminal), and its funding when asked for. */
export type LinkCompleted = {
  status: 'completed';
  agentId: string;
  funding?: DeployFunding;
};
