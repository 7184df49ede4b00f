/** SQLite adapter of the agents port: agents and their policies. */
import type { AgentRecord, AgentStatus, AgentStore } from '../../core/ports/store.js';
import type { Policy } from '../../wire/policy/policy.js';
import type { Breaker } from '../../wire/policy/breaker.js';
import type { SqliteDatabase } from '../sqlite-driver.js';
import { budgetsFromJson, budgetsToJson, createBudgetSpend } from './budget-spend.js';
import { allRows, bigintStatement, oneRow, optionalNumber, optionalText, text, type Row } from './rows.js';

function toAgent(row: Row): AgentRecord {
  return {
    owner: text(row.owner),
    agentId: text(row.agent_id),
    walletAddress: text(row.wallet_address),
    displayName: text(row.display_name),
    status: row.status as AgentStatus,
    statusReason: optionalText(row.status_reason),
    statusChangedAt: optionalNumber(row.status_changed_at),
    createdAt: Number(row.created_at),
    archivedAt: optionalNumber(row.archived_at),
  };
}

const toPolicy = (row: Row): Policy => ({
  dailyBudget: BigInt(row.daily_budget as bigint),
  maxPerPayment: BigInt(row.max_per_payment as bigint),
  cooldownSeconds: Number(row.cooldown_seconds),
  allowedServices: JSON.parse(text(row.allowed_services)) as string[],
  budgets: budgetsFromJson(text(row.budgets)),
  expiresAt: optionalNumber(row.expires_at),
  warnAt: JSON.parse(text(row.warn_at)) as number[],
  breaker: row.breaker === null ? null : (JSON.parse(text(row.breaker)) as Breaker),
  askAbove: row.ask_above === null ? null : BigInt(row.ask_above as bigint),
  askNewRecipient: row.ask_new_recipient === 1n || row.ask_new_recipient === 1,
});

export function createAgentStore(db: SqliteDatabase): AgentStore {
  const stmts = {
    insertAgent: db.prepare(
      'INSERT INTO agents (owner, agent_id, wallet_address, display_name, status, created_at, deploy_key, deploy_request_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    deployKeyOf: db.prepare(
      'SELECT deploy_key, deploy_request_hash FROM agents WHERE owner = ? AND agent_id = ? AND deploy_key IS NOT NULL',
    ),
    getAgent: db.prepare('SELECT * FROM agents WHERE owner = ? AND agent_id = ?'),
    listAgents: db.prepare('SELECT * FROM agents WHERE owner = ? AND archived_at IS NULL ORDER BY created_at, agent_id'),
    listArchivedAgents: db.prepare('SELECT * FROM agents WHERE owner = ? AND archived_at IS NOT NULL ORDER BY archived_at DESC, agent_id'),
    findArchivedAgentByWallet: db.prepare('SELECT * FROM agents WHERE wallet_address = ? AND archived_at IS NOT NULL'),
    archiveAgent: db.prepare(
      "UPDATE agents SET archived_at = ?, status = 'suspended', status_reason = NULL WHERE owner = ? AND agent_id = ? AND archived_at IS NULL",
    ),
    // Rows are never deleted, so a rowid above the one read at the start of a watch is a row added since.
    lastMoveRow: db.prepare('SELECT COALESCE(MAX(rowid), 0) FROM transfers').pluck(),
    movesInto: db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM transfers WHERE owner = @owner AND agent_id = @agentId AND kind IN ('allocation', 'refund')
                          AND (status = 'pending' OR rowid > @since))
             OR EXISTS (SELECT 1 FROM transfers WHERE kind = 'payment' AND status = 'pending'
                          AND recipient IN (SELECT value FROM json_each(@addresses)))
             OR EXISTS (SELECT 1 FROM transfers WHERE kind = 'payment' AND rowid > @since
                          AND recipient IN (SELECT value FROM json_each(@addresses)))`,
      )
      .pluck(),
    hasMovedInto: db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM transfers WHERE owner = @owner AND agent_id = @agentId AND rail = @rail
                          AND (kind = 'allocation' OR (kind = 'refund' AND destination = 'agent'))
                          AND status IN ('pending', 'confirmed'))
             OR EXISTS (SELECT 1 FROM transfers WHERE kind = 'payment' AND recipient = @address AND rail = @rail
                          AND status IN ('pending', 'confirmed'))`,
      )
      .pluck(),
    setAgentStatus: db.prepare('UPDATE agents SET status = ?, status_reason = ?, status_changed_at = ? WHERE owner = ? AND agent_id = ?'),
    setAgentDisplayName: db.prepare('UPDATE agents SET display_name = ? WHERE owner = ? AND agent_id = ?'),
    getPolicy: bigintStatement(db, 'SELECT * FROM policies WHERE owner = ? AND agent_id = ?'),
    listPolicies: bigintStatement(db, 'SELECT * FROM policies WHERE owner = ?'),
    listPoliciesOf: bigintStatement(db, 'SELECT * FROM policies WHERE owner = ? AND agent_id IN (SELECT value FROM json_each(?))'),
    upsertPolicy: db.prepare(
      `INSERT INTO policies (owner, agent_id, daily_budget, max_per_payment, cooldown_seconds, allowed_services, updated_at, budgets,
         expires_at, warn_at, breaker, ask_above, ask_new_recipient)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner, agent_id) DO UPDATE SET daily_budget = excluded.daily_budget,
         max_per_payment = excluded.max_per_payment, cooldown_seconds = excluded.cooldown_seconds,
         allowed_services = excluded.allowed_services, updated_at = excluded.updated_at, budgets = excluded.budgets,
         expires_at = excluded.expires_at, warn_at = excluded.warn_at, breaker = excluded.breaker,
         ask_above = excluded.ask_above, ask_new_recipient = excluded.ask_new_recipient`,
    ),
  };
  const budgetSpend = createBudgetSpend(db);
  // The policy and the scopes its budgets name are written together (the caller's transaction).
  const savePolicy = (owner: string, agentId: string, policy: Policy, at: number) => {
    stmts.upsertPolicy.run(
      owner,
      agentId,
      policy.dailyBudget,
      policy.maxPerPayment,
      policy.cooldownSeconds,
      JSON.stringify(policy.allowedServices),
      at,
      budgetsToJson(policy.budgets),
      policy.expiresAt,
      JSON.stringify(policy.warnAt),
      policy.breaker === null ? null : JSON.stringify(policy.breaker),
      policy.askAbove,
      policy.askNewRecipient ? 1 : 0,
    );
    budgetSpend.syncScopes(owner, agentId, policy.budgets, at);
  };
  return {
    insertAgent: (agent, policy, deployedUnder = null) => {
      stmts.insertAgent.run(
        agent.owner,
        agent.agentId,
        agent.walletAddress,
        agent.displayName,
        agent.status,
        agent.createdAt,
        deployedUnder?.key ?? null,
        deployedUnder?.requestHash ?? null,
      );
      savePolicy(agent.owner, agent.agentId, policy, agent.createdAt);
    },
    deployKeyOf: (owner, agentId) =>
      oneRow(stmts.deployKeyOf, (row) => ({ key: text(row.deploy_key), requestHash: text(row.deploy_request_hash) }), owner, agentId),
    getAgent: (owner, agentId) => oneRow(stmts.getAgent, toAgent, owner, agentId),
    listAgents: (owner) => allRows(stmts.listAgents, toAgent, owner),
    listArchivedAgents: (owner) => allRows(stmts.listArchivedAgents, toAgent, owner),
    findArchivedAgentByWallet: (walletAddress) => oneRow(stmts.findArchivedAgentByWallet, toAgent, walletAddress),
    archiveAgent: (owner, agentId, at) => stmts.archiveAgent.run(at, owner, agentId).changes === 1,
    watchMovesInto: (owner, agentId, addresses) => {
      const since = stmts.lastMoveRow.get() as number;
      const listed = JSON.stringify(addresses);
      return () => stmts.movesInto.get({ owner, agentId, addresses: listed, since }) === 1;
    },
    hasMovedInto: (owner, agentId, rail, address) => stmts.hasMovedInto.get({ owner, agentId, rail, address }) === 1,
    setAgentStatus: (owner, agentId, status, reason, at) => void stmts.setAgentStatus.run(status, reason, at, owner, agentId),
    setAgentDisplayName: (owner, agentId, displayName) => void stmts.setAgentDisplayName.run(displayName, owner, agentId),
    getPolicy: (owner, agentId) => {
      const policy = oneRow(stmts.getPolicy, toPolicy, owner, agentId);
      if (!policy) throw new Error(`no policy for ${owner}/${agentId}`);
      return policy;
    },
    listPolicies: (owner, agentIds) =>
      new Map(
        agentIds === undefined
          ? allRows(stmts.listPolicies, (row) => [text(row.agent_id), toPolicy(row)] as const, owner)
          : allRows(stmts.listPoliciesOf, (row) => [text(row.agent_id), toPolicy(row)] as const, owner, JSON.stringify(agentIds)),
      ),
    setPolicy: savePolicy,
  };
}
