/** GET /v1/dashboard: the owner's overview in one answer. */
import type { AgentRow, ArchivedAgent } from './agents.js';
import type { BackupStatus } from './backup.js';
import type { Activity, Refusal } from './payments.js';

/** The treasury's wallet and balance; `amount` in micro-USDC (an integer string), `balance` in USDC. */
export type DashboardTreasury = {
  walletAddress: string;
  amount: string;
  currency: 'USDC';
  decimals: number;
  network: string;
  balance: string;
};

export type Dashboard = {
  treasury: DashboardTreasury;
  spent24h: string;
  backup: BackupStatus;
  agents: AgentRow[];
  /** Payments, newest first. */
  recentActivity: Activity[];
  archivedAgents: ArchivedAgent[];
  /** Payments the policy refused, newest first. */
  recentRefusals: Refusal[];
};
