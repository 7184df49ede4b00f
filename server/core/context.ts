import type { Chain } from './ports/chain.js';
import type { Clock, KeyVault } from './ports/keys.js';
import type { ImageProvider } from './ports/image-provider.js';
import type { EventBus } from './events.js';
import type { AuditStore, Store } from './ports/store.js';
import type { X402Buyer } from './ports/x402.js';
import type { BackupWriter } from './ports/backup.js';
import type { Log } from './ports/log.js';
import type { DiscoveryReader } from './ports/discovery.js';
import type { PolicyReplays } from './ports/policy-replays.js';
import type { McpLaunch } from '../wire/mcp-config.js';
import { RefusalRepeats } from './payments/refusal-repeats.js';

/** Everything the core's rules talk to, all through ports it owns (what the boot provides). */
export interface EnginePorts {
  store: Store;
  /** The Solana rail's chain. */
  chain: Chain;
  /** The Base rail's chain (an EVM chain); null where this data dir has it off. */
  base?: Chain | null;
  vault: KeyVault;
  clock: Clock;
  mcpLaunch: McpLaunch;
  events: EventBus;
  /** Where image generation is forwarded; null when none is configured. */
  imageProvider: ImageProvider | null;
  /** Pays x402 sellers; null where x402 names no network (the sim chain, a local cluster). */
  x402: X402Buyer | null;
  /** Writes the encrypted backup files. */
  backups: BackupWriter;
  /** What went wrong that no caller is told (see ports/log.ts). */
  log: Log;
  /** The /v1 server's base URL, once it listens (for mcpConfig.env). */
  baseUrl: () => string;
  /** Where the demo API (coffer demo-api) listens now beside this Coffer, if it does. */
  demoApiUrl?: () => string | null;
  /** Reads a facilitator's Bazaar discovery list (absent: Bazaar discovery cannot read one). */
  discovery?: DiscoveryReader;
  /**
   * Where what-ifs replay a policy on an agent's history: off the serving thread where the ledger is
   * a file (server/boot). Absent, in this thread over `store` (the in-memory ledger of unit tests).
   */
  policyReplays?: PolicyReplays;
}

/** A wallet's balance as read from its chain (wallet-balance.ts). */
export interface BalanceReading {
  balance: bigint;
  /** The clock's time as the read was sent (how old it is). */
  asOf: number;
  /** The store's total of what it confirmed leaving the wallet (confirmedOutflowsTotal) as the read was sent. */
  outflowsBefore: bigint;
}

/**
 * What the engine keeps in memory while this process runs (nothing here survives a restart; the
 * ledger is the truth). Held on the context, not in module globals, so two engines in one process
 * (tests, a restart in place) never share it.
 */
export interface EngineState {
  /**
   * Rows this process is sending right now, by id. Reconciliation leaves them alone (they have an
   * owner), a replayed Idempotency-Key waits for them, and shutdown waits for all of them.
   */
  transfersInFlight: Map<string, Promise<unknown>>;
  /** Generation tasks this process is running right now, by id: a task is never started twice. */
  tasksRunning: Map<string, Promise<void>>;
  /** The refusals written per agent (`owner|agentId`) in the last 10 s, so a retry loop writes each once. */
  lastRefusals: RefusalRepeats;
  /**
   * What the log last said of each pending row reconciliation could not settle or send (reconcile.ts):
   * the chain watch tries it every 15 s until it lands or ends, so the same trouble is said once, and
   * again only once it changed or passed.
   */
  reconcileTroubleSaid: Map<string, string>;
  /** When each agent's recent refusals fell (`owner|agentId`), for a breaker that trips on refusals (policy/spending-watch.ts). */
  recentRefusals: Map<string, number[]>;
  /**
   * The last balance read of each agent's wallet per rail (`owner|agentId|rail`), which payments are
   * judged by, less what left the wallet since (wallet-balance.ts).
   */
  walletReadings: Map<string, BalanceReading>;
  /** Each agent key's what-ifs (`owner|agentId`): how many are running, when the last minute's began (policy/what-if-limits.ts). */
  whatIfs: Map<string, { running: number; admittedAt: number[] }>;
  /** The long polls waiting on a request's decision (approvals/decisions.ts), each ended by calling it. */
  decisionWaits: Set<() => void>;
  /**
   * The link sessions (by token hash) whose agent this process is deploying now, its funding with it:
   * polled meanwhile, still pending (agents/link-sessions.ts).
   */
  linksDeploying: Set<string>;
}

export interface EngineContext extends EnginePorts {
  state: EngineState;
}

export function createEngineContext(ports: EnginePorts): EngineContext {
  return {
    ...ports,
    state: {
      transfersInFlight: new Map(),
      tasksRunning: new Map(),
      lastRefusals: new RefusalRepeats(),
      reconcileTroubleSaid: new Map(),
      recentRefusals: new Map(),
      whatIfs: new Map(),
      decisionWaits: new Set(),
      linksDeploying: new Set(),
      walletReadings: new Map(),
    },
  };
}

/**
 * The context a module gets when it needs only part of the storage: the rest of the engine as is,
 * and only the aggregates it names (a registry lookup cannot reach payments).
 */
export type ContextWith<S> = Omit<EngineContext, 'store'> & { store: S };

export const DAY_MS = 24 * 60 * 60 * 1000;

export function audit(
  ctx: ContextWith<AuditStore>,
  entry: { actor: string; owner: string; agentId?: string | null; action: string; detail?: Record<string, unknown> },
): void {
  ctx.store.appendAudit({
    at: ctx.clock.now(),
    actor: entry.actor,
    owner: entry.owner,
    agentId: entry.agentId ?? null,
    action: entry.action,
    detail: entry.detail ?? {},
  });
}
