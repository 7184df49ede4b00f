import type { Engine } from '../server/core/engine.js';
import type { Principal } from '../server/core/auth.js';
import type { TrayAction, TrayState } from './tray-model.js';

/** Everything the tray does goes through the engine, as the owner, audited as "tray". */
export function trayState(engine: Engine, owner: string, startAtLogin: boolean): Promise<TrayState> {
  const principal: Principal = { kind: 'owner', owner };
  return engine.dashboard(principal).then((dashboard) => {
    const pending = engine.approvals(principal, 'pending').approvals;
    return {
      network: dashboard.treasury.network,
      treasuryBalance: dashboard.treasury.balance,
      agents: dashboard.agents.map((a) => ({ agentId: a.agentId, displayName: a.displayName, status: a.status, balance: a.balance })),
      pendingApprovals: pending.map((a) => ({ approvalId: a.approvalId, agentId: a.agentId, summary: summarize(a.kind, a.request) })),
      startAtLogin,
    };
  });
}

function summarize(kind: string, request: Record<string, unknown>): string {
  if (kind === 'allocate') return `wants ${String(request.amount)} USDC`;
  if (kind === 'resume') return 'asks to resume';
  if (kind === 'deploy') return `asks for agent ${String(request.agentId)}`;
  return 'asks for a looser policy';
}

export interface TrayEffects {
  open(route: string): void;
  toggleStartAtLogin(): void;
  quit(): void;
}

/** Carries out a tray click. Kills and stop-all apply at once: the tray is the owner's hand on the brake. */
export async function runTrayAction(engine: Engine, owner: string, action: TrayAction, effects: TrayEffects): Promise<void> {
  const principal: Principal = { kind: 'owner', owner };
  switch (action.kind) {
    case 'kill':
      engine.kill(principal, action.agentId, 'tray');
      return;
    case 'resume':
      engine.resume(principal, action.agentId, 'tray');
      return;
    case 'stop-all':
      engine.killAll(principal, 'tray');
      return;
    case 'open':
      effects.open(action.route);
      return;
    case 'toggle-start-at-login':
      effects.toggleStartAtLogin();
      return;
    case 'quit':
      effects.quit();
      return;
  }
}
