import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The server's routes, read from its sources (server/http/app.ts, routes/*.ts, dashboard.ts, and what
 * the embedded chain serves beside /v1: server/chain/solana/sim/images-route.ts, json-rpc/route.ts) so a new route is fuzzed the day it appears, and classified by who may call it
 * (docs/SECURITY.md "Who may do what", API.md). A route found in the sources but missing from the table below
 * is reported as unclassified: the auth matrix cannot judge it until it is added here.
 */
export type Auth =
  /** anyone on this machine */
  | 'public'
  /** the owner key or the dashboard session */
  | 'owner'
  /** the owner, or the agent key of the agent in the path */
  | 'agent'
  /** like 'agent', but what loosens is not applied for an agent key: 202 and an approval */
  | 'agent-approval'
  /** any agent key of the owner may ask (202), the owner does (200) */
  | 'ask'
  /** the owner, or the agent that asked */
  | 'approval-read'
  /** the owner, or any agent key of the owner (which is answered what concerns it alone) */
  | 'any-key'
  /** the dashboard's session cookie only */
  | 'session'
  /** browser pages outside /v1 */
  | 'page';

export interface RouteSpec {
  method: string;
  pattern: string;
  auth: Auth | 'unclassified';
  source: string;
}

const TABLE: Record<string, Auth> = {
  'GET /v1/session': 'session',
  /** Sign-out: the session token it is sent with is dead afterwards. */
  'DELETE /v1/session': 'session',
  /** Trades a login URL's one-time token for a session token: the token is the credential. */
  'POST /v1/session': 'public',
  'POST /v1/session/login-link': 'owner',
  'GET /v1/health': 'public',
  'POST /v1/agents/deploy': 'ask',
  'GET /v1/agents': 'owner',
  'POST /v1/kill-all': 'owner',
  'POST /v1/resume-all': 'owner',
  'POST /v1/agents/:agentId/return': 'owner',
  'POST /v1/agents/:agentId/archive': 'owner',
  'GET /v1/agents/:agentId/balance': 'agent',
  'GET /v1/agents/:agentId/policy': 'agent',
  'POST /v1/agents/:agentId/policy': 'agent-approval',
  'POST /v1/agents/:agentId/allocate': 'agent-approval',
  'POST /v1/agents/:agentId/kill': 'agent',
  'POST /v1/agents/:agentId/resume': 'agent-approval',
  'POST /v1/agents/:agentId/rename': 'owner',
  'POST /v1/agents/:agentId/key': 'owner',
  'GET /v1/agents/:agentId/spend-history': 'agent',
  'POST /v1/agents/:agentId/policy/what-if': 'agent',
  'POST /v1/agents/:agentId/pay': 'agent',
  'POST /v1/agents/:agentId/x402': 'agent',
  'POST /v1/agents/:agentId/x402/sign-in': 'agent',
  'POST /v1/agents/:agentId/x402/:paymentId/settlement': 'agent',
  'POST /v1/agents/:agentId/generate': 'agent',
  'GET /v1/agents/:agentId/tasks': 'agent',
  'GET /v1/agents/:agentId/tasks/:taskId': 'agent',
  'GET /v1/approvals': 'owner',
  'GET /v1/approvals/:id': 'approval-read',
  'POST /v1/approvals/:id/approve': 'owner',
  'POST /v1/approvals/:id/deny': 'owner',
  'GET /v1/events': 'any-key',
  'POST /v1/link-sessions': 'public',
  'GET /v1/link-sessions': 'owner',
  'POST /v1/link-sessions/clear': 'owner',
  'GET /v1/link-sessions/:token': 'public',
  'GET /v1/link-sessions/:token/details': 'owner',
  'POST /v1/link-sessions/:token/complete': 'owner',
  'POST /v1/link-sessions/:token/deny': 'owner',
  'GET /v1/services/search': 'public',
  'GET /v1/services': 'public',
  'GET /v1/services/:serviceId': 'public',
  'GET /v1/models': 'public',
  'GET /v1/chain/transactions/:signature': 'public',
  'GET /v1/dashboard': 'owner',
  'GET /v1/backup': 'owner',
  'POST /v1/backup/phrase': 'owner',
  'POST /v1/backup/phrase/confirm': 'owner',
  /** An encrypted backup file of the ledger and every key: owner, fresh sign-in. */
  'POST /v1/backup/file': 'owner',
  /** Scheduled backup files into a folder: owner, fresh sign-in to set; owner to turn off. */
  'POST /v1/backup/schedule': 'owner',
  'DELETE /v1/backup/schedule': 'owner',
  /** The owner's time zone: read by the owner; set with a fresh sign-in. */
  'GET /v1/settings': 'owner',
  'POST /v1/settings': 'owner',
  /** Bazaar discovery: the facilitator whose list the registry shows; read, set and refreshed by the owner. */
  'GET /v1/bazaar': 'owner',
  'POST /v1/bazaar': 'owner',
  'POST /v1/bazaar/refresh': 'owner',
  'GET /v1/treasury/deposits': 'owner',
  'POST /v1/treasury/faucet': 'owner',
  'GET /': 'page',
  'GET /login': 'page',
  'GET /link': 'page',
  'GET /sim-images/:file': 'page',
  'POST /rpc': 'public',
};

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HTTP_DIR = join(ROOT, 'server', 'http');
/** The embedded chain's routes, which the HTTP server mounts at its root (server/chain/rail.ts httpRoutes). */
const RAIL_ROUTE_FILES = ['server/chain/solana/sim/images-route.ts', 'server/chain/solana/sim/json-rpc/route.ts'].map((file) =>
  join(ROOT, file),
);
const ROUTE_CALL = /\b(router|v1|app)\.(get|post|put|patch|delete|all)\(\s*('[^']+'|\[[^\]]*\])/g;
const MOUNT = /\b(v1|app)\.use\(\s*(?:'([^']*)'\s*,\s*)?(\w+)\(/g;

/**
 * Every route the sources register, with its class. Where a router factory's routes live comes from
 * how app.ts mounts it (`v1.use(sessionRoutes(...))` is under /v1, `app.use(dashboardRoutes(...))` at
 * the root); a factory app.ts does not name is taken to be under /v1 if it sits in routes/.
 */
export function enumerateRoutes(): RouteSpec[] {
  const appText = readFileSync(join(HTTP_DIR, 'app.ts'), 'utf8');
  const mounts = new Map<string, string>();
  for (const match of appText.matchAll(MOUNT)) {
    const [, receiver, path, factory] = match as unknown as [string, string, string | undefined, string];
    mounts.set(factory, `${receiver === 'v1' ? '/v1' : ''}${path ?? ''}`);
  }
  const files = [
    join(HTTP_DIR, 'app.ts'),
    ...readdirSync(HTTP_DIR)
      // first-start-app.ts is another server (a first start's, before any treasury exists), tested on its own.
      .filter((f) => f.endsWith('.ts') && f !== 'app.ts' && f !== 'first-start-app.ts')
      .map((f) => join(HTTP_DIR, f)),
    ...readdirSync(join(HTTP_DIR, 'routes'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(HTTP_DIR, 'routes', f)),
    ...RAIL_ROUTE_FILES,
  ];
  const seen = new Map<string, RouteSpec>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const inRoutes = file.includes(`${join('http', 'routes')}`);
    const factories = [...text.matchAll(/export function (\w+)\(/g)].map((m) => ({ name: m[1]!, at: m.index }));
    for (const match of text.matchAll(ROUTE_CALL)) {
      const [, receiver, method, paths] = match as unknown as [string, string, string, string];
      const factory = factories.filter((f) => f.at < match.index).at(-1)?.name ?? '';
      const prefix = receiver === 'v1' ? '/v1' : receiver === 'app' ? '' : (mounts.get(factory) ?? (inRoutes ? '/v1' : ''));
      for (const [, path] of paths.matchAll(/'([^']+)'/g)) {
        const pattern = `${prefix}${path}`;
        const key = `${method.toUpperCase()} ${pattern}`;
        if (!seen.has(key)) {
          seen.set(key, {
            method: method.toUpperCase(),
            pattern,
            auth: TABLE[key] ?? 'unclassified',
            source: relative(ROOT, file),
          });
        }
      }
    }
  }
  return [...seen.values()];
}

/** Known routes the sources no longer register (the table is stale). */
export function missingFromSources(routes: RouteSpec[]): string[] {
  const found = new Set(routes.map((r) => `${r.method} ${r.pattern}`));
  return Object.keys(TABLE).filter((key) => !found.has(key));
}

export interface RouteParams {
  agentId: string;
  taskId: string;
  id: string;
  token: string;
  signature: string;
  serviceId: string;
  file: string;
}

export function fillPath(pattern: string, params: Partial<Record<keyof RouteParams | string, string>>): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_m, name: string) => params[name] ?? 'x');
}

/** Owner routes that name the owner by the key or session alone: no `?owner=` (it is ignored). */
const NO_OWNER_PARAM = new Set([
  'GET /v1/link-sessions',
  'POST /v1/link-sessions/clear',
  'GET /v1/link-sessions/:token/details',
  'POST /v1/link-sessions/:token/complete',
  'POST /v1/link-sessions/:token/deny',
]);

/** Routes whose principal reads `?owner=`. */
export const takesOwner = (route: RouteSpec): boolean =>
  route.pattern.startsWith('/v1') &&
  route.auth !== 'public' &&
  route.auth !== 'session' &&
  !NO_OWNER_PARAM.has(`${route.method} ${route.pattern}`);

/**
 * What the probe knows of the server's world: Base's chain, where its rail is open (sim opens it on
 * the embedded EVM), and the Bazaar facilitator the probe serves itself (an empty list), if any.
 */
export interface ProbeWorld {
  base: { chainId: number; usdc: string } | null;
  bazaar?: string | null;
}

/** An EVM account nobody holds the key of, paid by the probe's x402 offers on Base. */
export const PROBE_BASE_PAY_TO = '0x000000000000000000000000000000000000dEaD';

/**
 * A seller's 402 as Coffer's /x402 takes it: on Base an x402 v2 offer of 0.001 USDC that Coffer pays
 * (the authorization is signed and stays pending: no seller settles it); without Base an x402 v1
 * offer with no terms, refused before anything is signed. `signIn`: the v2 offer also offers
 * Sign-In-With-X on Base for the URL's origin (Coffer signs it for an agent that paid PROBE_BASE_PAY_TO).
 */
export function x402Asked(url: string, world: ProbeWorld, signIn = false) {
  if (world.base === null) return { url, status: 402, headers: {}, body: { x402Version: 1, accepts: [] } };
  const required = {
    x402Version: 2,
    resource: { url, description: 'a probe', mimeType: 'application/json' },
    accepts: [
      {
        scheme: 'exact',
        network: `eip155:${world.base.chainId}`,
        amount: '1000',
        asset: world.base.usdc,
        payTo: PROBE_BASE_PAY_TO,
        maxTimeoutSeconds: 60,
        extra: { name: 'USDC', version: '2' },
      },
    ],
    ...(signIn ? { extensions: { 'sign-in-with-x': signInChallenge(url, world.base.chainId) } } : {}),
  };
  return { url, status: 402, headers: { 'payment-required': Buffer.from(JSON.stringify(required)).toString('base64') }, body: {} };
}

/** A seller's Sign-In-With-X challenge for the URL's origin, taking proofs from Base accounts (EIP-191). */
const signInChallenge = (url: string, chainId: number) => ({
  info: {
    domain: new URL(url).host,
    uri: new URL(url).origin,
    version: '1',
    nonce: Math.random().toString(36).slice(2, 12),
    issuedAt: new Date().toISOString(),
    statement: 'Sign in to the probe',
    resources: [url],
  },
  supportedChains: [{ chainId: `eip155:${chainId}`, type: 'eip191' }],
});

/** A body the route accepts (with valid auth); `unique` keeps ids and keys distinct between calls. */
export function validBody(route: RouteSpec, unique: string, world: ProbeWorld = { base: null }): unknown {
  const key = `${route.method} ${route.pattern}`;
  switch (key) {
    case 'POST /v1/agents/deploy':
      return { agentId: `p-${unique}`.toLowerCase().slice(0, 60), dailyBudget: '1.00', maxPerPayment: '0.10' };
    case 'POST /v1/agents/:agentId/policy':
    case 'POST /v1/agents/:agentId/policy/what-if':
      return { cooldownSeconds: 0 };
    case 'POST /v1/agents/:agentId/allocate':
      return { amount: '0.01' };
    case 'POST /v1/agents/:agentId/return':
      return { amount: '0.001' };
    case 'POST /v1/agents/:agentId/rename':
      return { displayName: `Probe ${unique}` };
    case 'POST /v1/agents/:agentId/pay':
      // Under the listed price, so with a nonce (without one it would be refused: price_below_registry).
      return { service: 'demo-weather', amount: '0.001', currency: 'USDC', description: `probe ${unique}`, nonce: `probe-${unique}` };
    case 'POST /v1/agents/:agentId/generate':
      return { prompt: `a probe ${unique}`, modelId: 'sdxl', resolution: '1k' };
    case 'POST /v1/agents/:agentId/x402':
      return x402Asked(`http://127.0.0.1:9/probe/${unique}`, world);
    case 'POST /v1/agents/:agentId/x402/sign-in':
      // A challenge from the seller the probe's agents paid (without Base: no challenge, refused).
      return x402Asked(`http://127.0.0.1:9/probe/${unique}`, world, true);
    case 'POST /v1/agents/:agentId/x402/:paymentId/settlement':
      return { headers: {} };
    case 'POST /rpc':
      return { jsonrpc: '2.0', id: 1, method: 'getSlot' };
    case 'POST /v1/treasury/faucet':
      return { amount: '1.00' };
    case 'POST /v1/settings':
      return { timeZone: 'UTC' };
    case 'POST /v1/bazaar':
      // The probe's own facilitator where it serves one, else off: never one outside the machine.
      return { facilitator: world.bazaar ?? null };
    case 'POST /v1/link-sessions':
      return { name: 'probe' };
    case 'POST /v1/link-sessions/:token/complete':
      return { agentId: `l-${unique}`.toLowerCase().slice(0, 60) };
    case 'POST /v1/session':
      // A made-up login token: the route runs and signs nobody in.
      return { loginToken: `probe-${unique}` };
    case 'POST /v1/backup/file':
      return { passphrase: `a probe passphrase ${unique}` };
    case 'POST /v1/backup/schedule':
      // A real folder of the probe's own (the server runs on this machine): each call writes one file, and the schedule keeps 2.
      return { folder: probeBackupFolder(), passphrase: `a probe passphrase ${unique}`, everyHours: 24, keep: 2 };
    case 'POST /v1/backup/phrase/confirm':
      // A word no phrase is checked against here: the route runs, nothing is confirmed.
      return { words: [{ position: 1, word: 'probe' }] };
    case 'POST /v1/link-sessions/clear':
      // One made-up id: the route runs, and nothing real is cleared.
      return { ids: ['0123456789abcdef'] };
    default:
      return undefined;
  }
}

let backupFolder: string | null = null;
/** Where the probe's scheduled backups go: one temporary folder a run, made when first asked for. */
function probeBackupFolder(): string {
  if (backupFolder === null) {
    const folder = mkdtempSync(join(tmpdir(), 'coffer-probe-backups-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    backupFolder = folder;
  }
  return backupFolder;
}

/** The body fields a route reads, with a valid value each (the fuzz mutates them one by one). */
export function bodyFields(route: RouteSpec): Record<string, unknown> {
  const body = validBody(route, 'f');
  const extra: Record<string, Record<string, unknown>> = {
    'POST /v1/agents/deploy': { cooldownSeconds: 0, allowedServices: ['demo-weather'], displayName: 'x' },
    'POST /v1/agents/:agentId/policy': { dailyBudget: '1.00', maxPerPayment: '0.10', allowedServices: ['demo-weather'] },
    'POST /v1/agents/:agentId/pay': { recipient: '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx', nonce: 'n-1' },
    'POST /v1/link-sessions': { hostname: 'h', user: 'u' },
    'POST /v1/link-sessions/:token/complete': { displayName: 'x', dailyBudget: '1.00', maxPerPayment: '0.10' },
  };
  return {
    ...(typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}),
    ...extra[`${route.method} ${route.pattern}`],
  };
}
