/** GET /v1/dashboard: the owner's overview in one answer. */
import type { AgentRow, ArchivedAgent, RailBalances, RailWallets } from './agents.js';
import type { BackupStatus } from './backup.js';
import type { Activity, Refusal } from './payments.js';

/** The treasury's wallet and balance; `amount` in micro-USDC (an integer string), `balance` in USDC. */
export type DashboardTreasury = {
  /** Its Solana wallet: the address that names the owner (the spec's field). */
  walletAddress: string;
  /** Its wallet on each rail: where USDC is deposited on Solana and on Base. */
  wallets: RailWallets;
  /** What it holds on each rail; `amount` and `balance` are its Solana wallet's. */
  balances: RailBalances;
  /**
   * The gas its Base account holds for the moves it sends (every move on Base): ETH, about how many
   * moves that pays for, and `low` under 100 of them. Null where Base is off or its node does not answer.
   */
  baseGas: { balance: string; moves: number; low: boolean } | null;
  /** The Base rail's network where it is open (`sim`, `base-sepolia`, `base`, `evm-<chain id>`); null where it is off. */
  baseNetwork: string | null;
  amount: string;
  currency: 'USDC';
  decimals: number;
  network: string;
  balance: string;
};

export type Dashboard = {
  treasury: DashboardTreasury;
  /** What the agents spent in the last 24 h: their rows' spent24h, and what agents archived since spent. */
  spent24h: string;
  /** Of spent24h, the payments held for the owner's yes (counted as spent24h is). */
  held24h: string;
  backup: BackupStatus;
  agents: AgentRow[];
  /** Payments, newest first. */
  recentActivity: Activity[];
  archivedAgents: ArchivedAgent[];
  /** Payments the policy refused, newest first. */
  recentRefusals: Refusal[];
};
