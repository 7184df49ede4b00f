import { authenticate, authenticateCredential, type Principal, type SessionOwner } from './auth.js';
import { createEngineContext, type EnginePorts } from './context.js';
import {
  agentBalance,
  agentsAtRest,
  archiveAgent,
  listAgents,
  deployAgent,
  killAgent,
  killAll,
  readPolicy,
  renameAgent,
  replaceAgentKey,
  resumeAgent,
  resumeAll,
  updatePolicy,
} from './agents.js';
import { allocate, returnFunds } from './allocations.js';
import { dashboard } from './dashboard.js';
import { pay, spendHistory } from './payments.js';
import { payX402, reportX402Settlement } from './x402-payments.js';
import { signInX402 } from './x402-sign-in.js';
import { reconcilePending } from './reconcile.js';
import { getService, listModels, searchServices, servicesPaidTo } from './registry.js';
import { lookupTransfer } from './chain-lookup.js';
import { ensureOwner, faucet, listDeposits, pollDeposits } from './treasury.js';
import { generate, listTasks, readTask, resumeTasks, settleTasks } from './generation.js';
import type { DeployBody, GenerateBody, LinkCompleteBody, PayBody, PolicyUpdate, X402PayBody, X402SignInBody } from '../wire/schemas.js';
import { approve, deny, listApprovals, readApproval, recoverInterruptedApprovals } from './approvals.js';
import { expireWaiting } from './approval-requests.js';
import {
  clearLinkSessions,
  completeLinkSession,
  denyLinkSession,
  createLinkSession,
  describeLinkSession,
  pollLinkSession,
  waitingLinkSessions,
} from './link-sessions.js';
import type { ApprovalStatus } from './ports/store.js';
import { backupStatus, confirmRecoveryPhrase, revealRecoveryPhrase } from './backup.js';
import { writeBackupFile } from './backup-files.js';
import { recoverTreasury } from './phrase-recovery.js';
import { clearBackupSchedule, runDueBackups, setBackupSchedule } from './backup-schedule.js';
import { remindOfExpiries } from './expiry-notices.js';
import { readSettings, updateSettings } from './settings.js';
import { readBazaar, refreshBazaar, setBazaar, stopBazaar } from './bazaar.js';
import { policyWhatIf } from './policy-what-if.js';
import type { BackupFileBody, BackupScheduleBody, BazaarBody, PhraseConfirmBody, SettingsBody } from '../wire/schemas.js';

/**
 * The engine: every rule of Coffer behind named handlers. HTTP routes, MCP tools, CLI commands and
 * tray items are thin doors onto these same calls.
 */
export function createEngine(ports: EnginePorts) {
  const ctx = createEngineContext(ports);
  return {
    ctx,
    network: ctx.chain.network,
    authenticate: (owner: unknown, bearer: string | null, session: SessionOwner | null = null) =>
      authenticate(ctx.store, owner, bearer, session),
    authenticateCredential: (owner: unknown, bearer: string | null, session: SessionOwner | null = null) =>
      authenticateCredential(ctx.store, owner, bearer, session),
    ensureOwner: () => ensureOwner(ctx),
    /** An empty ledger's treasury brought back from its recovery phrase, with the agent wallets found in use. */
    recoverTreasury: (recover: { phrase: string; agents: number[] }) => recoverTreasury(ctx, recover),
    reconcile: () => reconcilePending(ctx),
    recoverApprovals: () => recoverInterruptedApprovals(ctx),
    /** Requests nobody decided in time expire, and their held payments with them (the minute timer). */
    expireWaiting: () => expireWaiting(ctx),
    pollDeposits: (owner: string) => pollDeposits(ctx, owner),

    backupStatus: (p: Principal) => backupStatus(ctx, p),
    revealRecoveryPhrase: (p: Principal) => revealRecoveryPhrase(ctx, p),
    confirmRecoveryPhrase: (p: Principal, body: PhraseConfirmBody) => confirmRecoveryPhrase(ctx, p, body),
    /** Writes a backup file into `folder` (the door's own, from which it hands the file over). */
    writeBackupFile: (p: Principal, body: BackupFileBody, folder: string) => writeBackupFile(ctx, p, body, folder),
    setBackupSchedule: (p: Principal, body: BackupScheduleBody) => setBackupSchedule(ctx, p, body),
    clearBackupSchedule: (p: Principal) => clearBackupSchedule(ctx, p),
    /** Writes the scheduled backups that are due (a timer of the opened data dir calls it). */
    runDueBackups: () => runDueBackups(ctx),
    remindOfExpiries: () => remindOfExpiries(ctx),
    readSettings: (p: Principal) => readSettings(ctx, p),
    updateSettings: (p: Principal, body: SettingsBody) => updateSettings(ctx, p, body),
    /** Bazaar discovery: the facilitator whose list the registry shows (bazaar.ts). */
    bazaar: (p: Principal) => readBazaar(ctx, p),
    setBazaar: (p: Principal, body: BazaarBody) => setBazaar(ctx, p, body),
    refreshBazaar: (p: Principal) => refreshBazaar(ctx, p),
    /** Stops a discovery read under way (the data dir closes). */
    stopBazaar: () => stopBazaar(ctx),

    deployAgent: (p: Principal, body: DeployBody) => deployAgent(ctx, p, body),
    listAgents: (p: Principal) => listAgents(ctx, p),
    agentsAtRest: (p: Principal) => agentsAtRest(ctx, p),
    balance: (p: Principal, agentId: string) => agentBalance(ctx, p, agentId),
    readPolicy: (p: Principal, agentId: string) => readPolicy(ctx, p, agentId),
    policyWhatIf: (p: Principal, agentId: string, update: PolicyUpdate) => policyWhatIf(ctx, p, agentId, update),
    updatePolicy: (p: Principal, agentId: string, update: PolicyUpdate) => updatePolicy(ctx, p, agentId, update),
    allocate: (p: Principal, agentId: string, amount: string, idempotencyKey: string | null = null) =>
      allocate(ctx, p, agentId, amount, idempotencyKey),
    returnFunds: (p: Principal, agentId: string, amount: string | null, idempotencyKey: string | null = null) =>
      returnFunds(ctx, p, agentId, amount, idempotencyKey),
    kill: (p: Principal, agentId: string, actor?: string) => killAgent(ctx, p, agentId, actor),
    resume: (p: Principal, agentId: string, actor?: string) => resumeAgent(ctx, p, agentId, actor),
    killAll: (p: Principal, actor?: string) => killAll(ctx, p, actor),
    resumeAll: (p: Principal, actor?: string) => resumeAll(ctx, p, actor),
    archive: (p: Principal, agentId: string) => archiveAgent(ctx, p, agentId),
    rename: (p: Principal, agentId: string, displayName: string) => renameAgent(ctx, p, agentId, displayName),
    replaceKey: (p: Principal, agentId: string) => replaceAgentKey(ctx, p, agentId),
    pay: (p: Principal, agentId: string, body: PayBody, idempotencyKey: string | null) => pay(ctx, p, agentId, body, idempotencyKey),
    payX402: (p: Principal, agentId: string, body: X402PayBody, idempotencyKey: string | null) =>
      payX402(ctx, p, agentId, body, idempotencyKey),
    reportX402Settlement: (p: Principal, agentId: string, paymentId: string, headers: Record<string, string>) =>
      reportX402Settlement(ctx, p, agentId, paymentId, headers),
    signInX402: (p: Principal, agentId: string, body: X402SignInBody) => signInX402(ctx, p, agentId, body),
    spendHistory: (p: Principal, agentId: string, limit?: number) => spendHistory(ctx, p, agentId, limit),
    dashboard: (p: Principal) => dashboard(ctx, p),
    deposits: (p: Principal) => listDeposits(ctx, p),
    faucet: (p: Principal, amount: string, idempotencyKey: string | null = null) => faucet(ctx, p, amount, idempotencyKey),
    generate: (p: Principal, agentId: string, body: GenerateBody, idempotencyKey: string | null) =>
      generate(ctx, p, agentId, body, idempotencyKey),
    task: (p: Principal, agentId: string, taskId: string) => readTask(ctx, p, agentId, taskId),
    tasks: (p: Principal, agentId: string, limit?: number) => listTasks(ctx, p, agentId, limit),
    resumeTasks: (options?: { retryFailedRefunds: boolean }) => resumeTasks(ctx, options),
    settleTasks: () => settleTasks(ctx),
    approvals: (p: Principal, status: ApprovalStatus | null) => listApprovals(ctx, p, status),
    /** One request; with `waitSeconds`, answered once it is decided (a long poll), or when the wait runs out. */
    approval: (p: Principal, id: string, waitSeconds?: number) => readApproval(ctx, p, id, waitSeconds),
    approve: (p: Principal, id: string) => approve(ctx, p, id),
    deny: (p: Principal, id: string) => deny(ctx, p, id),
    createLinkSession: (client: Record<string, string>) => createLinkSession(ctx, client),
    pollLinkSession: (token: string) => pollLinkSession(ctx, token),
    describeLinkSession: (p: Principal, token: string) => describeLinkSession(ctx, p, token),
    waitingLinkSessions: (p: Principal) => waitingLinkSessions(ctx, p),
    clearLinkSessions: (p: Principal, ids: string[] | null) => clearLinkSessions(ctx, p, ids),
    completeLinkSession: (p: Principal, token: string, body: LinkCompleteBody) => completeLinkSession(ctx, p, token, body),
    denyLinkSession: (p: Principal, token: string) => denyLinkSession(ctx, p, token),
    events: ctx.events,
    searchServices: (query: string, limit?: number) => searchServices(ctx, query, limit),
    listModels: () => listModels(ctx),
    service: (id: string) => getService(ctx, id),
    servicesPaidTo: (payTo: string) => servicesPaidTo(ctx, payTo),
    lookupTransfer: (txSignature: string) => lookupTransfer(ctx, txSignature),
  };
}

export type Engine = ReturnType<typeof createEngine>;
