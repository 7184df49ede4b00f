// What /v1 answers, typed from the engine's own results (they are already wire-shaped: money as decimal strings, times as ISO).
import type { Engine } from '../core/engine.js';
import type { ApprovalView } from '../core/views.js';
import type { ResultOf } from '../core/outcome.js';

/** What an engine handler resolves to, as the route sends it (res.json of the same value). */
type Result<K extends keyof Engine> = Engine[K] extends (...args: never[]) => infer R ? Awaited<R> : never;
/** A result that may wait for the owner (an Outcome): what it answers once carried out, the 200 body. */
type Settled<K extends keyof Engine> = ResultOf<Result<K>>;

export type Dashboard = Result<'dashboard'>;
export type BackupStatus = Result<'backupStatus'>;
export type Settings = Result<'readSettings'>;
export type Bazaar = Result<'bazaar'>;
export type PolicyWhatIf = Result<'policyWhatIf'>;
export type BackupScheduleSet = { schedule: BackupStatus['schedule'] };
export type RecoveryPhrase = Result<'revealRecoveryPhrase'>;
export type AgentList = Result<'listAgents'>;
export type AgentRow = AgentList['agents'][number];
export type Activity = Dashboard['recentActivity'][number];
export type SpendHistory = Result<'spendHistory'>;
export type SpendRecord = SpendHistory['payments'][number];
export type Deployed = Settled<'deployAgent'>;
export type ReplacedKey = Result<'replaceKey'>;
export type Balance = Result<'balance'>;
export type PolicyResponse = Settled<'updatePolicy'>;
export type Policy = PolicyResponse['policy'];
export type Allocation = Settled<'allocate'>;
export type Returned = Result<'returnFunds'>;
export type Deposits = Result<'deposits'>;
export type Deposit = Deposits['deposits'][number];
export type FaucetResult = Result<'faucet'>;
export type SearchResult = Result<'searchServices'>;
export type Service = SearchResult['results'][number];
export type ServiceListing = Result<'service'>;
export type ServicesPaidTo = Result<'servicesPaidTo'>;
export type Models = Result<'listModels'>;
export type Model = Models['models'][number];
export type Payment = Settled<'pay'>;
export type X402Payment = Settled<'payX402'>;
export type X402Settlement = Result<'reportX402Settlement'>;
export type X402SignIn = Result<'signInX402'>;
export type Approval = ApprovalView;
export type Approvals = Result<'approvals'>;
export type ApprovalRead = Result<'approval'>;
export type Decided = Result<'approve'>;
export type Killed = Result<'kill'>;
export type Resumed = Settled<'resume'>;
export type KilledAll = Result<'killAll'>;
export type ResumedAll = Result<'resumeAll'>;
export type Archived = Result<'archive'>;
export type Renamed = Result<'rename'>;
export type ImageTasks = Result<'tasks'>;
export type ImageTask = ImageTasks['tasks'][number];
export type LinkSession = Result<'createLinkSession'>;
export type LinkPoll = Result<'pollLinkSession'>;
export type LinkDetails = Result<'describeLinkSession'>;
export type WaitingLinkSessions = Result<'waitingLinkSessions'>;
export type WaitingLinkSession = WaitingLinkSessions['sessions'][number];
export type LinkCleared = Result<'clearLinkSessions'>;
export type LinkDenied = Result<'denyLinkSession'>;
export type LinkCompleted = Result<'completeLinkSession'>;

/** A request that may wait for the owner: the result (200), or the approval it now waits in (202). */
export type MayWait<T> = { status: 200; body: T } | { status: 202; body: ApprovalView };

/*
 * Answers the HTTP door makes itself (no engine handler returns them), written here once.
 */
/** GET /v1/session (server/http/dashboard.ts). */
export interface Session {
  owner: string;
  network: string;
  usdcMint: string;
  signedInAt: string;
  expiresAt: string;
}
/** DELETE /v1/session. */
export interface SignedOut {
  signedOut: true;
}
/** POST /v1/session/login-link. */
export interface LoginLink {
  url: string;
  expiresInSeconds: number;
}
/** GET /v1/health. */
export interface Health {
  ok: boolean;
  network: string;
  version: string;
  usdcMint: string;
}
