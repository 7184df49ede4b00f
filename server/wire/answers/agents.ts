/**
 * The /v1 answers about agents: an agent as every door shows it, the owner's list of them, and what
 * deploying, stopping, resuming, renaming, archiving and replacing a key answer.
 */
import type { ErrorCode } from '../errors.js';
import type { McpServerConfig } from '../mcp-config.js';
import type { PolicyView } from './policy.js';
import type { Allocation } from './treasury.js';
import type { Rail } from '../rails.js';

/** `suspended`: stopped (by a person, or by its breaker); it pays nothing until resumed. */
export type AgentStatus = 'active' | 'suspended';

/** An agent's wallet on each rail: its Solana address (`walletAddress`) and its EVM account on Base. */
export type RailWallets = {
  sol: string;
  /** Null only for a wallet whose account the key store could not give yet. */
  base: string | null;
};

/** An agent as every door shows it. */
export type AgentView = {
  agentId: string;
  /** Its Solana wallet: the address that names it (the spec's field). */
  walletAddress: string;
  wallets: RailWallets;
  createdAt: string;
  displayName: string;
  status: AgentStatus;
  /** Why it stopped, when no person stopped it (its breaker tripped). */
  statusReason?: string;
  /** When the owner archived it (stopped for good); absent while it is in use. */
  archivedAt?: string;
};

/** The budget nearest its limit, the daily one included (an agent row's bar), and whether it passed the owner's first warning share. */
export type TightestBudget = {
  /** The budget in words: "50.00 USDC a month for demo-weather". */
  budget: string;
  /** What it used: "12.50 USDC", "3 payments". */
  used: string;
  percent: number;
  warned: boolean;
};

/** An agent in use with its balance, spending and policy: a row of GET /v1/agents and of the dashboard. */
export type AgentRow = AgentView & {
  /** What its Solana wallet holds (the spec's field); `balances.sol` says the same. */
  balance: string;
  /** What it holds on each rail: `base` null where the Base rail is off or its node did not answer. */
  balances: RailBalances;
  /** What counts against the daily budget now: pending and confirmed payments of the last 24 h, and those held for the owner's yes. */
  spent24h: string;
  /** Of spent24h, the payments held for the owner's yes: counted against the budget, not paid (and never paid unless approved). */
  held24h: string;
  lifetimeSpent: string;
  lifetimePayments: number;
  lastPaymentAt: string | null;
  policy: PolicyView;
  tightestBudget: TightestBudget;
};

/** An archived agent with what its wallet holds (USDC can still arrive from outside, to return). */
export type ArchivedAgent = AgentView & {
  /** What its Solana wallet holds (USDC that arrived after the archive, to return). */
  balance: string;
  /** What it holds on each rail: `base` null where the Base rail is off or its node did not answer. */
  balances: RailBalances;
};

export type AgentList = {
  agents: AgentRow[];
};

/** What a wallet holds on each rail (USDC); `base` is null where this data dir has no Base chain open, or its node did not answer. */
export type RailBalances = {
  sol: string;
  base: string | null;
};

/** GET /v1/agents/:id/balance, and whether the agent may pay at all. */
export type Balance = {
  agentId: string;
  /** Its Solana wallet, and `balance` what it holds (the spec's record). */
  walletAddress: string;
  balance: string;
  wallets: RailWallets;
  balances: RailBalances;
  /**
   * What it holds free on each rail: its balance less what its payments and returns to the treasury
   * still pending may take (what a return of all of it moves now); `base` null as in `balances`.
   */
  available: RailBalances;
  /**
   * The Base network where this Coffer's Base rail is open (`base-sepolia`), null where it is off:
   * with it, a null `balances.base` means its node did not answer (as the dashboard's treasury says).
   */
  baseNetwork: string | null;
  /**
   * The owner's preferred rail (settings), null where none is set: where a seller takes both rails
   * and the agent asks for neither, the one paid on when the wallet there holds the amount.
   */
  preferredRail: Rail | null;
  currency: 'USDC';
  status: AgentStatus;
  statusReason?: string;
};

/** An agent stopped or resumed. */
export type AgentStatusSet = {
  agentId: string;
  status: AgentStatus;
  /** Its status before this request: the same as `status` where nothing changed (a stop or resume is idempotent). */
  was: AgentStatus;
  /** Set when the agent is archived: stopped for good, whatever is asked of it. */
  archivedAt?: string;
};

/** What a stop withdrew of what the agents asked the owner: their requests, and the held payments among them (never paid). */
export type Withdrawn = {
  requests: number;
  heldPayments: number;
};

/**
 * x402 payments the stopped agents signed, and were handed, before the stop, not landed yet: a seller
 * may still settle them (nothing recalls them), each until its end; unsettled, they lapse and their
 * budget comes back.
 */
export type StillLanding = {
  payments: number;
  amount: string;
  /** The last of their ends on Base (an authorization's `validBefore`); null where none is on Base (Solana's end with their blockhash, about a minute). */
  until: string | null;
  /** The agents they were signed for, by id, in order (a stop of all counts every agent's, one stopped before among them). */
  agents: string[];
};

/** An agent stopped, what the stop withdrew (nothing where it was already stopped), and what may still land. */
export type Killed = AgentStatusSet & { withdrawn: Withdrawn; stillLanding: StillLanding };
export type Resumed = AgentStatusSet;

/** POST /v1/kill-all: the agents it stopped, and what it withdrew of what they asked. */
export type KilledAll = {
  suspended: string[];
  withdrawn: Withdrawn;
  stillLanding: StillLanding;
};

/** POST /v1/resume-all: the agents it resumed, and which of them their breaker had stopped, and why. */
export type ResumedAll = {
  resumed: string[];
  /** Those of `resumed` their breaker stopped (a person's stop has no why), with its `statusReason`. */
  breakerStops: { agentId: string; reason: string }[];
};

export type Archived = {
  agentId: string;
  status: 'archived';
  archivedAt: string;
};

export type Renamed = {
  agentId: string;
  displayName: string;
};

/** POST /v1/agents/:id/key: the new key (shown once), and the MCP config that carries it. */
export type ReplacedKey = {
  agentId: string;
  apiKey: string;
  mcpConfig: McpServerConfig;
};

/** The allocation asked for with a deploy; the agent exists either way, so a failure is said beside it. */
export type DeployFunding = { status: 'funded'; allocation: Allocation } | { status: 'failed'; code: ErrorCode; error: string };

/** POST /v1/agents/deploy, carried out. */
export type Deployed = {
  agent: AgentView;
  /** Shown once; absent where the deploy issues no key (one carried out for an approval or a link: the key is collected later). */
  apiKey?: string;
  policy: PolicyView;
  mcpConfig: McpServerConfig;
  funding?: DeployFunding;
};
