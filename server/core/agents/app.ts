/**
 * Agents: what the owner does with the agents they run. Read this first; each handler's rule lives in
 * the file it names: deploy.ts (a wallet, a policy, an API key), keys.ts (a new key, the MCP config),
 * kill-switch.ts (one agent stopped or resumed, or all), rename.ts, archive.ts (stopped for good),
 * agent-list.ts (agents with their balances and spending), dashboard.ts (the owner's overview) and
 * link-sessions.ts (a terminal asking to be linked to a new agent).
 */
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import type { ApprovalCarriers } from '../approvals/carriers.js';
import { ownerResult } from '../outcome.js';
import type { DeployBody, LinkCompleteBody } from '../../wire/schemas.js';
import { deployAgent } from './deploy.js';
import { agentBalance, agentsAtRest, listAgents } from './agent-list.js';
import { killAgent, killAll, resumeAgent, resumeAll } from './kill-switch.js';
import { archiveAgent } from './archive.js';
import { renameAgent } from './rename.js';
import { issueAgentKey, replaceAgentKey } from './keys.js';
import { dashboard } from './dashboard.js';
import {
  clearLinkSessions,
  completeLinkSession,
  createLinkSession,
  denyLinkSession,
  describeLinkSession,
  pollLinkSession,
  waitingLinkSessions,
} from './link-sessions.js';

export const agentsApp = (ctx: EngineContext) => ({
  deployAgent: (p: Principal, body: DeployBody, idempotencyKey: string | null = null) => deployAgent(ctx, p, body, { idempotencyKey }),
  listAgents: (p: Principal) => listAgents(ctx, p),
  agentsAtRest: (p: Principal) => agentsAtRest(ctx, p),
  balance: (p: Principal, agentId: string) => agentBalance(ctx, p, agentId),
  kill: (p: Principal, agentId: string, actor?: string) => killAgent(ctx, p, agentId, actor),
  resume: (p: Principal, agentId: string, actor?: string) => resumeAgent(ctx, p, agentId, actor),
  killAll: (p: Principal, actor?: string) => killAll(ctx, p, actor),
  resumeAll: (p: Principal, actor?: string) => resumeAll(ctx, p, actor),
  archive: (p: Principal, agentId: string) => archiveAgent(ctx, p, agentId),
  rename: (p: Principal, agentId: string, displayName: string) => renameAgent(ctx, p, agentId, displayName),
  replaceKey: (p: Principal, agentId: string) => replaceAgentKey(ctx, p, agentId),
  dashboard: (p: Principal) => dashboard(ctx, p),
  createLinkSession: (client: Record<string, string>) => createLinkSession(ctx, client),
  pollLinkSession: (token: string) => pollLinkSession(ctx, token),
  describeLinkSession: (p: Principal, token: string) => describeLinkSession(ctx, p, token),
  waitingLinkSessions: (p: Principal) => waitingLinkSessions(ctx, p),
  clearLinkSessions: (p: Principal, ids: string[] | null) => clearLinkSessions(ctx, p, ids),
  completeLinkSession: (p: Principal, token: string, body: LinkCompleteBody) => completeLinkSession(ctx, p, token, body),
  denyLinkSession: (p: Principal, token: string) => denyLinkSession(ctx, p, token),
});

/** The key of an agent a deploy made on another agent's request, minted when that agent collects it. */
export const keyForAskingAgent: ApprovalCarriers['issueAgentKey'] = (ctx, owner, agentId) => issueAgentKey(ctx, owner, agentId);

/** What an agent's approved requests for another agent, or to be resumed, carry out. */
export const agentApprovals: Pick<ApprovalCarriers['carryOut'], 'deploy' | 'resume'> = {
  deploy: async (ctx, approval, owner) => {
    // No key now: the agent that asked collects it with the approval (approvals/decisions.ts readApproval).
    const { agent, policy, funding } = ownerResult(await deployAgent(ctx, owner, approval.request as DeployBody, { issueKey: false }));
    // What became of the funds asked with it (moved, or why not): the agent exists either way.
    return { agent, policy, ...(funding === undefined ? {} : { funding }) };
  },
  resume: async (ctx, approval, owner) => ({
    ...ownerResult(resumeAgent(ctx, owner, approval.targetAgentId, `owner (approval ${approval.id})`)),
  }),
};
