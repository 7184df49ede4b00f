import type { Engine } from '../server/core/engine.js';
import { describeRequest } from '../server/wire/describe-request.js';
import type { Principal } from '../server/core/auth.js';
import type { Rail } from '../server/wire/rails.js';
import type { RailBalances } from '../server/wire/answers/agents.js';
import type { TrayAction, TrayBalances, TrayState } from './tray-model.js';

/** Balances as last read from the chain, on each rail (`base` null where its node did not answer). */
export interface BalanceSnapshot {
  treasury: RailBalances;
  agents: Map<string, TrayBalances>;
}

/**
 * Balances come from the chain, which may be slow or away: they are read now and then, and the tray
 * shows the last ones known. One read at a time; a read that fails keeps the last ones.
 */
export function createBalanceCache(engine: Engine, owner: string) {
  const principal: Principal = { kind: 'owner', owner };
  let last: BalanceSnapshot | null = null;
  let reading: Promise<boolean> | null = null;
  return {
    last: (): BalanceSnapshot | null => last,
    refresh(): Promise<boolean> {
      reading ??= readBalances(engine, principal)
        .then(
          (snapshot) => {
            last = snapshot;
            return true;
          },
          () => false,
        )
        .finally(() => {
          reading = null;
        });
      return reading;
    },
  };
}
export type BalanceCache = ReturnType<typeof createBalanceCache>;

/**
 * The treasury's and each agent's balances on each rail, all from the dashboard's one answer (it reads
 * Base once for a page of agents; `base` null where the rail is off or its node did not answer).
 */
async function readBalances(engine: Engine, principal: Principal): Promise<BalanceSnapshot> {
  const dashboard = await engine.dashboard(principal);
  return { treasury: dashboard.treasury.balances, agents: new Map(dashboard.agents.map((a) => [a.agentId, a.balances])) };
}

const UNREAD: TrayBalances = { sol: null, base: null };

/**
 * The tray's state: agents, their status and what waits come from the ledger (local, never waiting on
 * the chain); balances from the last read, on the rails open. Everything the tray does goes through the
 * engine, as the owner, audited as "tray".
 */
export function trayState(
  engine: Engine,
  owner: string,
  { balances, rails, startAtLogin }: { balances: BalanceSnapshot | null; rails: readonly Rail[]; startAtLogin: TrayState['startAtLogin'] },
): TrayState {
  const principal: Principal = { kind: 'owner', owner };
  const { timeZone } = engine.readSettings(principal);
  return {
    network: engine.network,
    rails,
    treasury: balances?.treasury ?? UNREAD,
    agents: engine.agentsAtRest(principal).agents.map((a) => ({
      agentId: a.agentId,
      displayName: a.displayName,
      status: a.status,
      statusReason: a.statusReason ?? null,
      warning: a.tightestBudget.warned ? `${a.tightestBudget.percent} % of ${a.tightestBudget.budget}` : null,
      balances: balances?.agents.get(a.agentId) ?? UNREAD,
    })),
    pendingApprovals: engine.approvals(principal, 'pending').approvals.map((a) => ({
      approvalId: a.approvalId,
      agentId: a.agentId,
      summary: describeRequest(a.kind, a.request, null, timeZone),
    })),
    notBackedUp: notBackedUp(engine.backupStatus(principal)),
    startAtLogin,
  };
}

/** What the tray says is not backed up, by the engine's one rule (`backedUp`). */
const notBackedUp = (status: ReturnType<Engine['backupStatus']>) =>
  status.backedUp ? null : status.recoveryPhrase === 'none' || !status.phraseRestores ? ('file' as const) : ('phrase' as const);

export interface TrayEffects {
  open(route: string): void;
  toggleStartAtLogin(): void;
  quit(): void;
}

/**
 * Carries out a tray click. Kills and stop-all apply at once: the tray is the owner's hand on the
 * brake. Answers the agents it stopped.
 */
export function runTrayAction(engine: Engine, owner: string, action: TrayAction, effects: TrayEffects): { stopped: string[] } {
  const principal: Principal = { kind: 'owner', owner };
  switch (action.kind) {
    case 'kill':
      engine.kill(principal, action.agentId, 'tray');
      return { stopped: [action.agentId] };
    case 'resume':
      engine.resume(principal, action.agentId, 'tray');
      return { stopped: [] };
    case 'stop-all':
      return { stopped: engine.killAll(principal, 'tray').suspended };
    case 'open':
      effects.open(action.route);
      return { stopped: [] };
    case 'toggle-start-at-login':
      effects.toggleStartAtLogin();
      return { stopped: [] };
    case 'quit':
      effects.quit();
      return { stopped: [] };
  }
}
