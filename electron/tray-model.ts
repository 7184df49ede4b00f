import { groupThousands } from '../server/wire/money.js';
import { railName } from '../server/wire/rail-words.js';
import type { Rail } from '../server/wire/rails.js';
/**
 * The tray, as plain data computed from the engine's state: what the icon shows and what the menu
 * holds. No Electron here, so every rule is unit-tested; tray-controller.ts turns it into a real menu.
 * Agents, their status and what waits are the ledger's (local, always there); balances come from the
 * chain, so they may be unknown (never read yet, or the chain is away): the brake never waits for them.
 */

/** What a wallet holds on each rail, as last read: null while none was read (or that rail's node did not answer). */
export interface TrayBalances {
  sol: string | null;
  base: string | null;
}

export interface TrayAgent {
  agentId: string;
  displayName: string;
  status: 'active' | 'suspended';
  /** Why it stopped when its breaker stopped it; null otherwise. */
  statusReason: string | null;
  /** Its budget nearest the limit, once past the owner's first warning share ("85 % of 5.00 USDC in any 24 hours"); null below it. */
  warning: string | null;
  /** Last known balance of its wallet on each rail. */
  balances: TrayBalances;
}

export interface TrayState {
  network: string;
  /** The rails open on this data dir, Solana first: a rail that is off (Base, COFFER_BASE_RPC=off) is not shown. */
  rails: readonly Rail[];
  /** Last known balance of the treasury on each rail. */
  treasury: TrayBalances;
  agents: TrayAgent[];
  pendingApprovals: { approvalId: string; agentId: string; summary: string }[];
  /**
   * What is not backed up yet (then the menu says so): the recovery phrase still waits to be written
   * down, or, where no phrase brings the treasury back (one made before phrases, or on sim), no backup
   * file holds every wallet it has.
   */
  notBackedUp?: 'phrase' | 'file' | null;
  /** Whether Coffer starts at login; null where that is not offered (not a packaged app). */
  startAtLogin: 'on' | 'off' | 'needs-approval' | null;
  /** Quitting: in-flight payments are finishing. */
  stopping?: boolean;
}

const amount = (balance: string | null) => (balance === null ? '…' : groupThousands(balance));

/**
 * A wallet's balances on the rails open, in one short phrase, the unit said once as a person would:
 * "4.00 USDC on Solana, 2.00 on Base"; "…" for a balance not read yet.
 */
const onRails = (balances: TrayBalances, rails: readonly Rail[]) =>
  rails.map((rail, index) => `${amount(balances[rail])}${index === 0 ? ' USDC' : ''} on ${railName(rail)}`).join(', ');

export type IconState = 'normal' | 'attention';

export type TrayAction =
  | { kind: 'open'; route: string }
  | { kind: 'kill'; agentId: string }
  | { kind: 'resume'; agentId: string }
  | { kind: 'stop-all' }
  | { kind: 'toggle-start-at-login' }
  | { kind: 'quit' };

export type TrayItem =
  | { type: 'label'; label: string }
  | { type: 'separator' }
  | { type: 'action'; label: string; action: TrayAction; enabled?: boolean; checked?: boolean }
  | { type: 'submenu'; label: string; items: TrayItem[] };

/** The icon asks for attention while an agent is stopped or near a limit, or an approval waits. */
export function iconState(state: TrayState): IconState {
  return state.agents.some((a) => a.status === 'suspended' || a.warning !== null) || state.pendingApprovals.length > 0
    ? 'attention'
    : 'normal';
}

export function tooltip(state: TrayState): string {
  if (state.stopping) return 'Coffer: stopping…';
  const stopped = state.agents.filter((a) => a.status === 'suspended').length;
  const parts = [`Coffer: ${onRails(state.treasury, state.rails)} (${state.network})`];
  if (stopped > 0) parts.push(`${stopped} agent${stopped === 1 ? '' : 's'} stopped`);
  const near = state.agents.filter((a) => a.status === 'active' && a.warning !== null).length;
  if (near > 0) parts.push(`${near} near a limit`);
  if (state.pendingApprovals.length > 0)
    parts.push(`${state.pendingApprovals.length} approval${state.pendingApprovals.length === 1 ? '' : 's'} waiting`);
  return parts.join(' · ');
}

/** At most this many agents get their own line; the rest are reached through the dashboard. */
export const MAX_AGENT_ITEMS = 15;
/** A menu item stays one readable line: a longer request is cut, its whole text is in the dashboard. */
export const MAX_REQUEST_LABEL = 72;
const oneLine = (text: string) => (text.length <= MAX_REQUEST_LABEL ? text : `${text.slice(0, MAX_REQUEST_LABEL - 1).trimEnd()}…`);

/** The menu when the state cannot be read: the brake, the dashboard and Quit, all the same. */
export const UNREADABLE_STATE_MENU: TrayItem[] = [
  { type: 'action', label: 'Stop all agents', action: { kind: 'stop-all' } },
  { type: 'label', label: 'Coffer could not read its state' },
  { type: 'action', label: 'Open dashboard', action: { kind: 'open', route: '#/' } },
  { type: 'separator' },
  { type: 'action', label: 'Quit Coffer', action: { kind: 'quit' } },
];

/**
 * How the platform shows the menu, which decides what it may hold:
 * - `built-as-it-opens` (macOS, Windows): the menu is made from the state at the click that opens it
 *   and never replaced while it shows, so it says everything: balances, budgets near their limit,
 *   what waits for the owner.
 * - `set-ahead` (Linux): the panel shows a menu set on the tray beforehand, and setting another drops
 *   a click from the one showing (see tray-controller.ts). So it holds nothing a payment changes:
 *   no balances, no budget shares, no list or count of what waits (those are in the tooltip, the
 *   icon and the dashboard). It changes with what the owner changes, and when an agent stops.
 */
export type MenuKind = 'built-as-it-opens' | 'set-ahead';

/**
 * The menu. "Stop all agents" is its first item on every platform, always the same item (enabled
 * with nothing left running: stopping nothing is harmless, and the brake never moves or greys out).
 */
export function trayMenu(state: TrayState, kind: MenuKind = 'built-as-it-opens'): TrayItem[] {
  // While quitting nothing more may start: the menu says so and offers nothing.
  if (state.stopping) return [{ type: 'label', label: 'Stopping… (in-flight payments finish first)' }];
  const live = kind === 'built-as-it-opens';
  const held = (balances: TrayBalances) => (live ? ` · ${onRails(balances, state.rails)}` : '');
  const items: TrayItem[] = [
    { type: 'action', label: 'Stop all agents', action: { kind: 'stop-all' } },
    { type: 'separator' },
    {
      type: 'label',
      label: live ? `Treasury: ${onRails(state.treasury, state.rails)} · ${state.network}` : `Treasury · ${state.network}`,
    },
  ];
  if (state.notBackedUp) {
    const what = state.notBackedUp === 'phrase' ? 'write down your recovery phrase…' : 'make an encrypted backup file…';
    items.push({ type: 'action', label: `Not backed up: ${what}`, action: { kind: 'open', route: '#/backup' } });
  }
  items.push({ type: 'separator' });
  if (state.agents.length === 0) items.push({ type: 'label', label: 'No agents yet' });
  for (const agent of state.agents.slice(0, MAX_AGENT_ITEMS)) items.push(agentItem(agent, live, held));
  if (state.agents.length > MAX_AGENT_ITEMS) {
    items.push({
      type: 'action',
      label: `${state.agents.length - MAX_AGENT_ITEMS} more in the dashboard…`,
      action: { kind: 'open', route: '#/' },
    });
  }
  items.push({ type: 'separator' });
  if (!live) items.push({ type: 'action', label: 'Approvals…', action: { kind: 'open', route: '#/approvals' } });
  else if (state.pendingApprovals.length > 0) {
    items.push({ type: 'label', label: `Waiting for you (${state.pendingApprovals.length})` });
    for (const approval of state.pendingApprovals.slice(0, 5)) {
      items.push({
        type: 'action',
        label: oneLine(`${approval.agentId}: ${approval.summary}`),
        action: { kind: 'open', route: '#/approvals' },
      });
    }
    items.push({ type: 'separator' });
  }
  items.push({ type: 'action', label: 'Open dashboard', action: { kind: 'open', route: '#/' } });
  if (state.startAtLogin === 'needs-approval') {
    // Asked for, but macOS waits for the owner to allow it: the item takes them there.
    items.push({ type: 'action', label: 'Start at login: allow Coffer in System Settings…', action: { kind: 'toggle-start-at-login' } });
  } else if (state.startAtLogin !== null) {
    items.push({
      type: 'action',
      label: 'Start at login',
      action: { kind: 'toggle-start-at-login' },
      checked: state.startAtLogin === 'on',
    });
  }
  items.push({ type: 'separator' }, { type: 'action', label: 'Quit Coffer', action: { kind: 'quit' } });
  return items;
}

/** An agent's line: its status (and, built as it opens, its balance on each rail and a budget near its limit), its stop or resume. */
function agentItem(agent: TrayAgent, live: boolean, held: (balances: TrayBalances) => string): TrayItem {
  const stopped = agent.status === 'suspended';
  const near = live && !stopped && agent.warning !== null;
  const mark = stopped ? (agent.statusReason !== null ? ' · stopped by its breaker' : ' · stopped') : near ? ' · near a limit' : '';
  // Why it stopped, or which budget is near its limit, in words (cut to one line).
  const why = stopped ? agent.statusReason : near ? agent.warning : null;
  return {
    type: 'submenu',
    label: `${stopped ? '■ ' : near ? '▲ ' : '● '}${agent.displayName}${held(agent.balances)}${mark}`,
    items: [
      ...(why === null ? [] : [{ type: 'label' as const, label: oneLine(why.charAt(0).toUpperCase() + why.slice(1)) }]),
      stopped
        ? { type: 'action', label: `Resume ${agent.displayName}`, action: { kind: 'resume', agentId: agent.agentId } }
        : { type: 'action', label: `Stop ${agent.displayName}`, action: { kind: 'kill', agentId: agent.agentId } },
      { type: 'action', label: 'Open its page', action: { kind: 'open', route: `#/agents/${encodeURIComponent(agent.agentId)}` } },
    ],
  };
}
