// The one typed client of /v1: one method per endpoint its clients call (dashboard, CLI, MCP bridge, payingFetch), each path written once.
import type { z } from 'zod';
import type {
  allocateBodySchema,
  backupFileBodySchema,
  backupScheduleBodySchema,
  deployBodySchema,
  faucetBodySchema,
  linkClientSchema,
  linkCompleteBodySchema,
  payBodySchema,
  phraseConfirmBodySchema,
  policyUpdateSchema,
  settingsBodySchema,
  bazaarBodySchema,
  renameBodySchema,
  returnBodySchema,
  x402PayBodySchema,
  x402SignInBodySchema,
} from '../wire/schemas.js';
import { keyTransport, type Method, type Transport } from './transport.js';
import type {
  AgentList,
  Archived,
  Balance,
  Deployed,
  Killed,
  KilledAll,
  Renamed,
  ReplacedKey,
  Resumed,
  ResumedAll,
} from '../wire/answers/agents.js';
import type { Approval, ApprovalRead, Approvals, ApprovalStatus, Decided } from '../wire/answers/approvals.js';
import type { BackupScheduleSet, BackupStatus, RecoveryPhrase } from '../wire/answers/backup.js';
import type { Dashboard } from '../wire/answers/dashboard.js';
import type { ImageTasks } from '../wire/answers/generation.js';
import type {
  LinkCleared,
  LinkCompleted,
  LinkDenied,
  LinkDetails,
  LinkPoll,
  LinkSession,
  WaitingLinkSessions,
} from '../wire/answers/link-sessions.js';
import type { Payment, SpendHistory, X402Payment, X402Settlement, X402SignIn } from '../wire/answers/payments.js';
import type { PolicyResponse, PolicyWhatIf } from '../wire/answers/policy.js';
import type { Bazaar, Models, SearchResult, ServiceListing, ServicesPaidTo } from '../wire/answers/registry.js';
import type { Health, LoginLink, Session, SessionStarted, SignedOut } from '../wire/answers/session.js';
import type { Settings } from '../wire/answers/settings.js';
import type { Allocation, Deposits, FaucetResult, FundsMoves, Returned } from '../wire/answers/treasury.js';
import type { MayWait } from './answer.js';

type Body<S extends z.ZodType> = z.input<S>;

const seg = encodeURIComponent;
const agentPath = (agentId: string) => `/v1/agents/${seg(agentId)}`;

export function createCofferClient(transport: Transport) {
  const call = async <T>(
    method: Method,
    path: string,
    options: { body?: unknown; query?: Record<string, string | undefined>; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ) => (await transport.send<T>({ method, path, ...options })).body;
  /** A request the owner may have to approve first: the status tells which answer it is. */
  const mayWait = <T>(path: string, body?: unknown, headers?: Record<string, string>) =>
    transport.send<unknown>({ method: 'POST', path, body, headers }) as Promise<MayWait<T>>;
  const idempotency = (key?: string) => (key === undefined ? undefined : { 'idempotency-key': key });

  return {
    base: transport.base,
    /** The URL of the owner's event stream (EventSource signs in by the URL it is given). */
    eventsUrl: () => transport.url('/v1/events'),

    health: () => call<Health>('GET', '/v1/health'),
    session: () => call<Session>('GET', '/v1/session'),
    /** Trades a login URL's one-time token for a session token. */
    signIn: (loginToken: string) => call<SessionStarted>('POST', '/v1/session', { body: { loginToken } }),
    loginLink: () => call<LoginLink>('POST', '/v1/session/login-link'),
    /** Signs the session in the transport out: its token is dead at once. */
    signOut: () => call<SignedOut>('DELETE', '/v1/session'),

    dashboard: () => call<Dashboard>('GET', '/v1/dashboard'),
    backupStatus: () => call<BackupStatus>('GET', '/v1/backup'),
    /** The recovery phrase and the positions of the words to type back (owner; a fresh sign-in). */
    revealRecoveryPhrase: () => call<RecoveryPhrase>('POST', '/v1/backup/phrase'),
    confirmRecoveryPhrase: (body: Body<typeof phraseConfirmBodySchema>) =>
      call<BackupStatus>('POST', '/v1/backup/phrase/confirm', { body }),
    /** An encrypted backup file of the ledger and every wallet's key (owner; a fresh sign-in), as it arrives. */
    backupFile: (body: Body<typeof backupFileBodySchema>) => transport.download({ method: 'POST', path: '/v1/backup/file', body }),
    /** Scheduled backup files into a folder (owner; a fresh sign-in): the first is written at once. */
    setBackupSchedule: (body: Body<typeof backupScheduleBodySchema>) => call<BackupScheduleSet>('POST', '/v1/backup/schedule', { body }),
    clearBackupSchedule: () => call<BackupScheduleSet>('DELETE', '/v1/backup/schedule'),
    settings: () => call<Settings>('GET', '/v1/settings'),
    updateSettings: (body: Body<typeof settingsBodySchema>) => call<Settings>('POST', '/v1/settings', { body }),
    /** Bazaar discovery: the facilitator set and where its list stands; set it (null: off); read it now. */
    bazaar: () => call<Bazaar>('GET', '/v1/bazaar'),
    setBazaar: (body: Body<typeof bazaarBodySchema>) => call<Bazaar>('POST', '/v1/bazaar', { body }),
    refreshBazaar: () => call<Bazaar>('POST', '/v1/bazaar/refresh'),
    agents: () => call<AgentList>('GET', '/v1/agents'),
    deposits: () => call<Deposits>('GET', '/v1/treasury/deposits'),
    allocations: (query: { agentId?: string; limit?: number } = {}) =>
      call<FundsMoves>('GET', '/v1/treasury/allocations', {
        query: { agentId: query.agentId, limit: query.limit === undefined ? undefined : String(query.limit) },
      }),
    faucet: (body: Body<typeof faucetBodySchema>) => call<FaucetResult>('POST', '/v1/treasury/faucet', { body }),
    /** The owner's deploy under an Idempotency-Key is finished when asked again (its funds moved once, a new key). */
    deploy: (body: Body<typeof deployBodySchema>, idempotencyKey?: string) =>
      mayWait<Deployed>('/v1/agents/deploy', body, idempotency(idempotencyKey)),
    killAll: () => call<KilledAll>('POST', '/v1/kill-all'),
    resumeAll: () => call<ResumedAll>('POST', '/v1/resume-all'),

    balance: (agentId: string) => call<Balance>('GET', `${agentPath(agentId)}/balance`),
    policy: (agentId: string) => call<PolicyResponse>('GET', `${agentPath(agentId)}/policy`),
    updatePolicy: (agentId: string, body: Body<typeof policyUpdateSchema>) => mayWait<PolicyResponse>(`${agentPath(agentId)}/policy`, body),
    policyWhatIf: (agentId: string, body: Body<typeof policyUpdateSchema>) =>
      call<PolicyWhatIf>('POST', `${agentPath(agentId)}/policy/what-if`, { body }),
    allocate: (agentId: string, body: Body<typeof allocateBodySchema>) => mayWait<Allocation>(`${agentPath(agentId)}/allocate`, body),
    returnFunds: (agentId: string, body: Body<typeof returnBodySchema>) => call<Returned>('POST', `${agentPath(agentId)}/return`, { body }),
    tasks: (agentId: string, limit?: number) =>
      call<ImageTasks>('GET', `${agentPath(agentId)}/tasks`, { query: { limit: limit === undefined ? undefined : String(limit) } }),
    replaceKey: (agentId: string) => call<ReplacedKey>('POST', `${agentPath(agentId)}/key`),
    rename: (agentId: string, body: Body<typeof renameBodySchema>) => call<Renamed>('POST', `${agentPath(agentId)}/rename`, { body }),
    archive: (agentId: string) => call<Archived>('POST', `${agentPath(agentId)}/archive`),
    kill: (agentId: string) => call<Killed>('POST', `${agentPath(agentId)}/kill`),
    resume: (agentId: string) => mayWait<Resumed>(`${agentPath(agentId)}/resume`),
    spendHistory: (agentId: string, limit?: number) =>
      call<SpendHistory>('GET', `${agentPath(agentId)}/spend-history`, {
        query: { limit: limit === undefined ? undefined : String(limit) },
      }),
    /**
     * Pays, or (202) holds the payment for the owner's yes when the agent's policy asks; the same
     * Idempotency-Key answers the same payment again (a retry never pays twice), or the approval it waits for.
     */
    pay: (agentId: string, body: Body<typeof payBodySchema>, idempotencyKey?: string) =>
      mayWait<Payment>(`${agentPath(agentId)}/pay`, body, idempotency(idempotencyKey)),
    /** Pays an x402 offer, or (202) holds it for the owner's yes: then bought again with fresh terms and `approvalId`. */
    payX402: (agentId: string, body: Body<typeof x402PayBodySchema>, idempotencyKey?: string) =>
      mayWait<X402Payment>(`${agentPath(agentId)}/x402`, body, idempotency(idempotencyKey)),
    reportX402Settlement: (agentId: string, paymentId: string, headers: Record<string, string>) =>
      call<X402Settlement>('POST', `${agentPath(agentId)}/x402/${seg(paymentId)}/settlement`, { body: { headers } }),
    /** Signs a seller's sign-in challenge (x402 `sign-in-with-x`) with the agent's wallet, where it paid that seller before. */
    signInX402: (agentId: string, body: Body<typeof x402SignInBodySchema>) =>
      call<X402SignIn>('POST', `${agentPath(agentId)}/x402/sign-in`, { body }),

    approvals: (status?: ApprovalStatus) => call<Approvals>('GET', '/v1/approvals', { query: { status } }),
    /**
     * One request; `waitSeconds` (at most 60) answers once it is decided, or when the wait runs out (a
     * long poll), given up where `signal` aborts.
     */
    approval: (approvalId: string, waitSeconds?: number, signal?: AbortSignal) =>
      call<ApprovalRead>('GET', `/v1/approvals/${seg(approvalId)}`, {
        query: { wait: waitSeconds === undefined ? undefined : String(waitSeconds) },
        ...(signal === undefined ? {} : { signal }),
      }),
    approve: (approvalId: string) => call<Decided>('POST', `/v1/approvals/${seg(approvalId)}/approve`),
    deny: (approvalId: string) => call<Approval>('POST', `/v1/approvals/${seg(approvalId)}/deny`),
    /** The asking agent's own request, taken back while it waits. */
    withdrawRequest: (approvalId: string) => call<Approval>('POST', `/v1/approvals/${seg(approvalId)}/withdraw`),

    createLinkSession: (client: Body<typeof linkClientSchema>) => call<LinkSession>('POST', '/v1/link-sessions', { body: client }),
    pollLinkSession: (token: string) => call<LinkPoll>('GET', `/v1/link-sessions/${seg(token)}`),
    linkRequests: () => call<WaitingLinkSessions>('GET', '/v1/link-sessions'),
    clearLinkRequests: (ids?: string[]) => call<LinkCleared>('POST', '/v1/link-sessions/clear', { body: ids === undefined ? {} : { ids } }),
    linkDetails: (token: string) => call<LinkDetails>('GET', `/v1/link-sessions/${seg(token)}/details`),
    denyLink: (token: string) => call<LinkDenied>('POST', `/v1/link-sessions/${seg(token)}/deny`),
    completeLink: (token: string, body: Body<typeof linkCompleteBodySchema>) =>
      call<LinkCompleted>('POST', `/v1/link-sessions/${seg(token)}/complete`, { body }),

    searchServices: (query: string, limit?: number) =>
      call<SearchResult>('GET', '/v1/services/search', {
        query: { q: query, limit: limit === undefined ? undefined : String(limit) },
      }),
    /** A registry listing by id; 404 (a CofferApiError) when none. */
    service: (serviceId: string) => call<ServiceListing>('GET', `/v1/services/${seg(serviceId)}`),
    servicesPaidTo: (payTo: string) => call<ServicesPaidTo>('GET', '/v1/services', { query: { payTo } }),
    models: () => call<Models>('GET', '/v1/models'),
  };
}

export type CofferClient = ReturnType<typeof createCofferClient>;

/** The CLI's and the MCP bridge's client: signed in by an owner or agent key. */
export const keyClient = (baseUrl: string, credentials: { owner?: string; key?: string }, fetchImpl?: typeof fetch): CofferClient =>
  createCofferClient(keyTransport(baseUrl, credentials, fetchImpl));
