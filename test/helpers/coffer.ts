/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped on purpose: the tests assert their shape */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCoffer, type OpenedCoffer } from '../../server/boot/open-coffer.js';
import { startHttpServer, type RunningServer } from '../../server/boot/http-server.js';
import type { Clock } from '../../server/core/ports/keys.js';
import type { McpLaunch } from '../../server/wire/mcp-config.js';
import type { SimChain } from '../../server/chain/solana/sim/chain.js';
import type { SimLedger } from '../../server/chain/solana/sim/ledger.js';
import type { BreakerBody } from '../../server/wire/schemas.js';
import { UNLISTED_SELLER } from './unlisted-seller.js';

export { UNLISTED_SELLER };

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestCoffer {
  url: string;
  dataDir: string;
  owner: string;
  ownerKey: string;
  coffer: OpenedCoffer;
  server: RunningServer;
  /** Calls /v1 over real HTTP. `key` defaults to the owner key; pass null for none. */
  api<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; key?: string | null; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  /** Appends ?owner= (or &owner=) for the test's owner. */
  withOwner(path: string): string;
  stop(): Promise<void>;
}

/** The embedded chain's ledger of a Coffer opened on the sim network. */
export function simLedgerOf(coffer: OpenedCoffer): SimLedger {
  // A type, not the class: importing the embedded chain would load LiteSVM for every test of this helper.
  if (!coffer.chain.isSim) throw new Error(`this Coffer runs on ${coffer.chain.network}, not on the embedded chain`);
  return (coffer.chain as SimChain).ledger;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'coffer-test-'));
}

/** A controllable clock for rolling-window tests: starts at the wall clock, moves only when told. */
export function manualClock(start = Date.now()): Clock & { advance(ms: number): void; set(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
  };
}

/**
 * A real Coffer: real SQLite file in a temp dir, the embedded LiteSVM chain, a real HTTP server on
 * an ephemeral port. Keys go to 0600 files unless `keyStore: 'keychain'` is asked for.
 */
export async function startCoffer(
  options: {
    dataDir?: string;
    keyStore?: 'file' | 'keychain' | 'auto';
    clock?: Clock;
    keepDataDir?: boolean;
    /** Defaults to the embedded chain; an RPC URL (with its USDC mint) for the RPC adapter. */
    network?: string;
    usdcMint?: string;
    /** The Base rail's EVM RPC (a test node), or `off`; left out, the network's own (sim: the embedded chain). */
    baseRpc?: string;
    baseUsdc?: string;
    imageProviderUrl?: string;
    mcpLaunch?: McpLaunch;
    /** Where the engine's log goes (the default drops it). */
    log?: (message: string) => void;
  } = {},
): Promise<TestCoffer> {
  const dataDir = options.dataDir ?? tempDataDir();
  const coffer = await openCoffer({
    dataDir,
    network: options.network ?? 'sim',
    usdcMint: options.usdcMint,
    baseRpc: options.baseRpc,
    baseUsdc: options.baseUsdc,
    imageProviderUrl: options.imageProviderUrl,
    mcpLaunch: options.mcpLaunch,
    keyStore: options.keyStore ?? 'file',
    clock: options.clock,
    log: options.log ?? (() => undefined),
  });
  await coffer.embedded?.openUsdcAccounts([UNLISTED_SELLER]);
  const server = await startHttpServer({ coffer, port: 0, version: 'test', log: options.log ?? (() => undefined) });
  const withOwner = (path: string) => `${path}${path.includes('?') ? '&' : '?'}owner=${coffer.owner}`;
  return {
    url: server.url,
    dataDir,
    owner: coffer.owner,
    ownerKey: coffer.ownerKey,
    coffer,
    server,
    withOwner,
    api: async (method, path, { body, rawBody, key, headers } = {}) => {
      const bearer = key === undefined ? coffer.ownerKey : key;
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
          ...(body !== undefined || rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text so the assertion shows it
      }
      return { status: response.status, body: parsed as any, headers: response.headers };
    },
    stop: async () => {
      await server.stop();
      await coffer.close();
      if (!options.keepDataDir && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Signs a dashboard in as the owner: a one-time login link minted with the owner key, traded for a
 * session token (what the dashboard page sends as `Authorization: Bearer cof_ses_...`).
 */
export async function signIn(t: TestCoffer): Promise<string> {
  const link = await t.api('POST', t.withOwner('/v1/session/login-link'));
  const loginToken = new URL(link.body.url as string).searchParams.get('token');
  const session = await t.api('POST', '/v1/session', { key: null, body: { loginToken } });
  if (session.status !== 200) throw new Error(`sign-in failed: ${session.status} ${JSON.stringify(session.body)}`);
  return session.body.sessionToken as string;
}

/** Deploys an agent (owner key) and returns its id, wallet and key. */
export async function deployAgent(
  t: TestCoffer,
  agentId: string,
  policy: {
    dailyBudget?: string;
    maxPerPayment?: string;
    cooldownSeconds?: number;
    allowedServices?: string[];
    breaker?: BreakerBody;
    askAbove?: string;
  } = {},
) {
  const response = await t.api('POST', t.withOwner('/v1/agents/deploy'), {
    body: { agentId, dailyBudget: policy.dailyBudget ?? '100.00', maxPerPayment: policy.maxPerPayment ?? '10.00', ...policy },
  });
  if (response.status !== 200) throw new Error(`deploy failed: ${response.status} ${JSON.stringify(response.body)}`);
  return {
    agentId,
    walletAddress: response.body.agent.walletAddress as string,
    apiKey: response.body.apiKey as string,
  };
}

/**
 * Reconciliation rounds, 50 ms apart, until one confirms something (a move sent again at each round
 * until the cluster has it): what that round confirmed, 0 after 50 rounds.
 */
export async function reconcileUntilConfirmed(t: TestCoffer): Promise<number> {
  for (let round = 0; round < 50; round++) {
    const { confirmed } = await t.coffer.engine.reconcile();
    if (confirmed > 0) return confirmed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 0;
}

/** Deploys and funds an agent from the treasury. */
export async function fundedAgent(t: TestCoffer, agentId: string, amount: string, policy: Parameters<typeof deployAgent>[2] = {}) {
  const agent = await deployAgent(t, agentId, policy);
  const response = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount } });
  if (response.status !== 200) throw new Error(`allocate failed: ${response.status} ${JSON.stringify(response.body)}`);
  return agent;
}

/**
 * A paid API outside the registry, paid by its wallet's address, so any price goes (a registry
 * service, and its address under any name, is never paid more than its listed price). Its USDC
 * account on the sim chain is opened by startCoffer.
 */
export const UNLISTED_API = { service: 'test-api', recipient: UNLISTED_SELLER } as const;

/** Micro-USDC from a decimal string, for ledger arithmetic in tests. */
export const micro = (decimal: string): bigint => {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole ?? '0') * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
};

/**
 * What a refused or malformed call must never change: the treasury, deposits, recent payments, and
 * every agent's name, status, balance and policy. Compare one taken before with one taken after.
 */
export async function ownerState(t: TestCoffer) {
  const dashboard = await t.api('GET', t.withOwner('/v1/dashboard'));
  if (dashboard.status !== 200) throw new Error(`the dashboard answered ${dashboard.status}`);
  const deposits = await t.api('GET', t.withOwner('/v1/treasury/deposits'));
  return {
    treasury: dashboard.body.treasury.amount as string,
    deposits: (deposits.body.deposits as unknown[]).length,
    activity: (dashboard.body.recentActivity as unknown[]).length,
    agents: (dashboard.body.agents as Array<Record<string, unknown>>).map(({ agentId, displayName, status, balance, policy }) => ({
      agentId,
      displayName,
      status,
      balance,
      policy,
    })),
  };
}

/** A backup file of this Coffer as POST /v1/backup/file answers it (owner key), as bytes. */
export async function backupFileOf(t: TestCoffer, passphrase: string): Promise<Uint8Array<ArrayBuffer>> {
  const response = await fetch(`${t.url}${t.withOwner('/v1/backup/file')}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.ownerKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ passphrase }),
  });
  if (response.status !== 200) throw new Error(`backup failed: ${response.status} ${await response.text()}`);
  return new Uint8Array(await response.arrayBuffer());
}
