import type { LinkSessionStatus } from '../../../wire/answers/link-sessions.js';

/** Port: link sessions: a terminal's request (`coffer link`) to be linked to an agent, waiting for the owner, then polled for. */
export interface LinkSessionRecord {
  tokenHash: string;
  code: string;
  client: Record<string, unknown>;
  status: LinkSessionStatus;
  owner: string | null;
  agentId: string | null;
  createdAt: number;
  expiresAt: number;
  lastPolledAt: number | null;
  completedAt: number | null;
  /** When the owner first opened its page (then it never gives way to newer requests). */
  openedAt: number | null;
}

export interface LinkSessionStore {
  insertLinkSession(session: LinkSessionRecord): void;
  /** Keeps at most `keep` sessions waiting at `now`: the oldest the owner has not opened go first. */
  trimWaitingLinkSessions(now: number, keep: number): void;
  /** Sessions waiting for the owner at `now`, newest first. */
  listWaitingLinkSessions(now: number, limit: number): LinkSessionRecord[];
  /** Forgets waiting sessions: those whose id (the token hash's first 16 characters) is listed, or all. */
  clearWaitingLinkSessions(ids: string[] | null): number;
  markLinkSessionOpened(tokenHash: string, at: number): void;
  /** Forgets sessions that expired before `before` (used, completed or not). */
  pruneLinkSessions(before: number): void;
  getLinkSession(tokenHash: string): LinkSessionRecord | null;
  touchLinkSession(tokenHash: string, at: number): void;
  completeLinkSession(tokenHash: string, owner: string, agentId: string, at: number): boolean;
  markLinkSessionDelivered(tokenHash: string): boolean;
  /** Undoes a claim whose deploy failed, so the owner can try again. */
  reopenLinkSession(tokenHash: string): void;
}
