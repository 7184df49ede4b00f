import { isJsonObject, rawRequest, type Answer } from './lib/http.js';
import { allocate, balanceOf, deploy } from './lib/ledger.js';
import { micro } from './lib/money.js';
import type { Probe } from './lib/report.js';
import { base58 } from './lib/rng.js';
import { removeDir, tempDir } from './lib/cleanup.js';
import { startServe, type Serve } from './lib/serve.js';
import {
  enumerateRoutes,
  fillPath,
  takesOwner,
  validBody,
  x402Asked,
  PROBE_BASE_PAY_TO,
  type ProbeWorld,
  type RouteSpec,
} from './routes.js';
import { runMcpChecks } from './auth-mcp.js';
import { Tracker, type Agent, type AuthEnv } from './auth-env.js';
import { signIn } from './lib/session.js';
import { startEmptyBazaar } from './lib/empty-bazaar.js';

/**
 * Probe 4: the auth matrix. For every authenticated route: no credentials, garbage and unknown keys
 * (agent- and owner-shaped), another owner's real key, another agent's key, an agent key on
 * owner-only routes, the dashboard's sign-in in the wrong hands (the cookie without the CSRF header,
 * with a foreign Origin, made up; a made-up session token; the session with a foreign Origin), and the
 * Host/Origin guards with a good key. An escalation is a 2xx where docs/SECURITY.md "Who may do what"
 * says the caller must be refused, or an agent key loosening its own policy, funding or resuming itself
 * without an approval. Then the same through `coffer mcp` (auth-mcp.ts). Counted on its own (a known
 * issue): a replay of only what a browser attaches by itself, the session cookie with
 * `X-Requested-With: coffer` and no Origin, accepted; when sign-in is a bearer session token instead
 * of a cookie, the replay sends that token as the cookie and must get nowhere.
 */
type Headers = Record<string, string>;

interface Cred {
  name: string;
  headers: (env: AuthEnv) => Headers;
  /** The owner query parameter to send (default: this server's owner). */
  owner?: (env: AuthEnv) => string;
  /** Whom this credential is refused on. */
  refusedOn: (route: RouteSpec) => boolean;
}

const bearer = (key: string): Headers => ({ authorization: `Bearer ${key}` });
const authRoute = (r: RouteSpec) => r.auth !== 'public' && r.auth !== 'page' && r.auth !== 'unclassified';
const ownerOnly = (r: RouteSpec) => r.auth === 'owner';
const agentScoped = (r: RouteSpec) => r.auth === 'agent' || r.auth === 'agent-approval';

function credentials(env: AuthEnv): Cred[] {
  const port = new URL(env.serve.url).port;
  const agentShaped = `cof_agt_${base58(env.rng.bytes(32))}`;
  const ownerShaped = `cof_own_${base58(env.rng.bytes(32))}`;
  return [
    { name: 'no credentials', headers: () => ({}), refusedOn: authRoute },
    { name: 'garbage key', headers: () => bearer('not-a-key'), refusedOn: authRoute },
    { name: 'unknown agent-shaped key', headers: () => bearer(agentShaped), refusedOn: authRoute },
    { name: 'unknown owner-shaped key', headers: () => bearer(ownerShaped), refusedOn: authRoute },
    { name: "another owner's key", headers: (e) => bearer(e.other.ownerKey), refusedOn: authRoute },
    { name: "another owner's key and owner", headers: (e) => bearer(e.other.ownerKey), owner: (e) => e.other.owner, refusedOn: authRoute },
    {
      name: 'owner key, another owner in ?owner',
      headers: (e) => bearer(e.serve.ownerKey),
      owner: (e) => e.other.owner,
      refusedOn: (r) => authRoute(r) && takesOwner(r),
    },
    {
      name: "another agent's key",
      headers: (e) => bearer(e.bob.apiKey),
      refusedOn: (r) => ownerOnly(r) || agentScoped(r) || r.auth === 'approval-read' || r.auth === 'session',
    },
    { name: 'agent key on its own agent', headers: (e) => bearer(e.alice.apiKey), refusedOn: (r) => ownerOnly(r) || r.auth === 'session' },
    {
      name: 'session cookie without X-Requested-With',
      headers: (e) => ({ cookie: `coffer_session=${e.session.value}` }),
      refusedOn: (r) => authRoute(r) && r.method !== 'GET',
    },
    {
      name: 'session cookie with a foreign Origin',
      headers: (e) => ({ ...e.session.replay, origin: 'http://evil.example' }),
      refusedOn: () => true,
    },
    {
      name: 'made-up session cookie',
      headers: () => ({ cookie: `coffer_session=${base58(env.rng.bytes(32))}`, 'x-requested-with': 'coffer' }),
      refusedOn: authRoute,
    },
    {
      name: 'dashboard session with a foreign Origin',
      headers: (e) => ({ ...e.session.headers, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }),
      refusedOn: () => true,
    },
    { name: 'made-up session token', headers: () => bearer(`cof_ses_${base58(env.rng.bytes(32))}`), refusedOn: authRoute },
    {
      name: 'owner key with a foreign Origin',
      headers: (e) => ({ ...bearer(e.serve.ownerKey), origin: 'http://evil.example' }),
      refusedOn: () => true,
    },
    { name: 'owner key with Origin null', headers: (e) => ({ ...bearer(e.serve.ownerKey), origin: 'null' }), refusedOn: () => true },
    {
      name: 'owner key with a rebinding Host',
      headers: (e) => ({ ...bearer(e.serve.ownerKey), host: `evil.example:${port}` }),
      refusedOn: () => true,
    },
  ];
}

async function stillPending(env: AuthEnv, id: string): Promise<boolean> {
  const answer = await env.api.call('GET', `/v1/approvals/${id}`);
  return isJsonObject(answer.json) && answer.json.status === 'pending';
}

async function stillOpen(env: AuthEnv, token: string): Promise<boolean> {
  const answer = await env.api.call('GET', `/v1/link-sessions/${token}/details`);
  return isJsonObject(answer.json) && answer.json.status === 'pending';
}

/** The route's path parameters: alice's things for the matrix, the victim's for what is expected to go through. */
async function paramsFor(env: AuthEnv, route: RouteSpec, who: 'alice' | 'victim'): Promise<Record<string, string>> {
  const agent = who === 'alice' ? env.alice : env.victim;
  const params: Record<string, string> = {
    agentId: agent.agentId,
    taskId: env.taskIds[who],
    signature: env.signature,
    serviceId: 'demo-weather',
    file: 'probe.svg',
    id: 'apr_none',
    token: 'none',
  };
  // Alice's request and link session are kept while nothing decides them (the matrix only tries);
  // the victim gets fresh ones, since what is tried on it is expected to go through.
  if (route.pattern.includes(':id')) {
    if (who === 'victim' || env.cached.approvalId === null || !(await stillPending(env, env.cached.approvalId))) {
      const asked = await env.api.call('POST', `/v1/agents/${agent.agentId}/allocate`, {
        key: agent.apiKey,
        body: { amount: `0.0${env.rng.int(1000, 9999)}` },
      });
      const id = isJsonObject(asked.json) ? String(asked.json.approvalId) : 'apr_none';
      if (id === 'apr_none')
        env.notes.push(`auth: ${agent.agentId} could not ask for an approval (${asked.status} ${asked.text.slice(0, 80)})`);
      if (who === 'alice') env.cached.approvalId = id;
      params.id = id;
    } else params.id = env.cached.approvalId;
  }
  // Alice's x402 payment is made once, before the matrix (her cooldown would refuse the next); the victim's fresh.
  if (route.pattern.includes(':paymentId')) params.paymentId = who === 'alice' ? env.cached.paymentId : await x402PaymentOf(env, agent);
  // Sign-in proves an earlier purchase from the probe's seller: the victim's is made now (alice's was before the matrix).
  if (route.pattern.endsWith('/x402/sign-in') && who === 'victim') await x402PaymentOf(env, agent);
  // Only an agent that holds nothing is archived: one kept for the matrix (which must not archive
  // it), a fresh one for each try expected to go through.
  if (route.pattern.endsWith('/archive')) {
    if (who === 'victim' || env.cached.emptyAgent === null) {
      const empty = await deploy(env.api, `empty-${who}-${env.rng.int(0, 2 ** 31)}`, { dailyBudget: '1.00', maxPerPayment: '0.10' });
      if (who === 'alice') env.cached.emptyAgent = empty.agentId;
      params.agentId = empty.agentId;
    } else params.agentId = env.cached.emptyAgent;
  }
  if (route.pattern.includes(':token')) {
    if (who === 'victim' || env.cached.token === null || !(await stillOpen(env, env.cached.token))) {
      const link = await env.api.call('POST', '/v1/link-sessions', { key: null, owner: null, body: { name: 'probe' } });
      const token = isJsonObject(link.json) ? String(link.json.token) : 'none';
      if (token === 'none') env.notes.push(`auth: could not open a link session (${link.status} ${link.text.slice(0, 80)})`);
      if (who === 'alice') env.cached.token = token;
      params.token = token;
    } else params.token = env.cached.token;
  }
  return params;
}

/** An x402 payment of the agent's own (on Base, where its rail is open), for the routes that name one. */
async function x402PaymentOf(env: Pick<AuthEnv, 'api' | 'rng' | 'world' | 'notes'>, agent: Agent): Promise<string> {
  const paid = await env.api.call('POST', `/v1/agents/${agent.agentId}/x402`, {
    key: agent.apiKey,
    body: x402Asked(`http://127.0.0.1:9/probe/paid-${env.rng.int(0, 2 ** 31)}`, env.world),
  });
  if (isJsonObject(paid.json) && typeof paid.json.paymentId === 'string') return paid.json.paymentId;
  if (env.world.base !== null)
    env.notes.push(`auth: ${agent.agentId} could not pay an x402 offer (${paid.status} ${paid.text.slice(0, 80)})`);
  return 'pay_none';
}

async function send(
  env: AuthEnv,
  route: RouteSpec,
  params: Record<string, string>,
  headers: Headers,
  owner: string | null,
  unique: string,
): Promise<Answer> {
  let path = fillPath(route.pattern, params);
  const query: string[] = [];
  if (owner !== null && takesOwner(route)) query.push(`owner=${encodeURIComponent(owner)}`);
  if (route.pattern === '/v1/services') query.push('payTo=93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx');
  if (route.pattern === '/login' || route.pattern === '/link') query.push('token=x');
  if (query.length > 0) path += `?${query.join('&')}`;
  const body = validBody(route, unique, env.world);
  return rawRequest(env.serve.url, {
    method: route.method,
    path,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: 15_000,
  });
}

const ok = (answer: Answer) => answer.status >= 200 && answer.status < 300;

/** Confirming the recovery phrase needs its words: a refusal for the words, not the credential, is the control passing. */
const refusedPastAuth = (route: RouteSpec, answer: Answer) =>
  route.pattern === '/v1/backup/phrase/confirm' &&
  isJsonObject(answer.json) &&
  (answer.json.code === 'phrase_not_shown' || answer.json.code === 'phrase_mismatch');

/** Puts things back after something went through that should not have (or was expected to, for a replay). */
async function repair(env: AuthEnv, answer: Answer): Promise<void> {
  if (isJsonObject(answer.json) && typeof answer.json.apiKey === 'string' && typeof answer.json.agentId === 'string') {
    for (const agent of [env.alice, env.bob, env.victim]) if (agent.agentId === answer.json.agentId) agent.apiKey = answer.json.apiKey;
  }
  for (const agent of [env.alice, env.bob, env.victim]) await env.api.call('POST', `/v1/agents/${agent.agentId}/resume`);
}

async function runHttpMatrix(
  env: AuthEnv,
  routes: RouteSpec[],
  tracker: Tracker,
): Promise<{
  replayed: string[];
  byCookie: { printed: number; minted: number };
  controls: { ok: number; total: number; failed: string[] };
}> {
  let n = 0;
  for (const cred of credentials(env)) {
    for (const route of routes) {
      if (!cred.refusedOn(route)) continue;
      const params = await paramsFor(env, route, 'alice');
      const answer = await send(env, route, params, cred.headers(env), cred.owner ? cred.owner(env) : env.serve.owner, `m${n++}`);
      const escalated = ok(answer);
      tracker.check(
        escalated,
        `http ${cred.name} -> ${route.method} ${route.pattern} answered ${answer.status}: ${answer.text.slice(0, 100)}`,
      );
      if (answer.status >= 500) tracker.notes.push(`auth: ${cred.name} -> ${route.method} ${route.pattern} answered ${answer.status}`);
      if (escalated) await repair(env, answer);
    }
  }

  // The browser's cookies alone, replayed by something that is not the browser: no Origin.
  // Only what the browser attaches by itself (the cookie), replayed by something that is not the
  // browser: no Origin, no Sec-Fetch-*. Both sessions: the printed URL's and a minted one.
  const replayed: string[] = [];
  const byCookie = { printed: 0, minted: 0 };
  for (const route of routes) {
    if (!authRoute(route)) continue;
    let through = false;
    for (const which of ['printed', 'minted'] as const) {
      const params = await paramsFor(env, route, 'victim');
      const session = which === 'printed' ? env.printed : env.session;
      const answer = await send(env, route, params, session.replay, env.serve.owner, `r${n++}`);
      if (ok(answer)) {
        through = true;
        byCookie[which] += 1;
        await repair(env, answer);
      }
    }
    if (through) replayed.push(`${route.method} ${route.pattern}`);
  }

  // Controls: the right credential does get through, so the refusals above were about auth.
  const failed: string[] = [];
  let total = 0;
  for (const route of routes) {
    if (!authRoute(route)) continue;
    total += 1;
    const params = await paramsFor(env, route, 'victim');
    // Sign-out gets a session of its own: with the probe's, every later request would be signed out.
    const session =
      route.method === 'DELETE' && route.pattern === '/v1/session'
        ? await signIn(env.serve.url, (await env.api.ok<{ url: string }>('POST', '/v1/session/login-link')).url)
        : env.session;
    const headers = route.auth === 'session' ? session.headers : bearer(env.serve.ownerKey);
    const answer = await send(env, route, params, headers, env.serve.owner, `c${n++}`);
    if (!ok(answer) && !refusedPastAuth(route, answer))
      failed.push(`${route.method} ${route.pattern} ${answer.status} ${answer.text.slice(0, 80)}`);
    await repair(env, answer);
  }
  // And the dashboard itself: its session, sent the way the page sends it, still works.
  for (const key of ['GET /v1/dashboard', 'POST /v1/agents/:agentId/kill', 'GET /v1/events']) {
    const route = routes.find((r) => `${r.method} ${r.pattern}` === key);
    if (!route) continue;
    total += 1;
    const answer = await send(env, route, await paramsFor(env, route, 'victim'), env.session.headers, env.serve.owner, `b${n++}`);
    if (!ok(answer))
      failed.push(`the dashboard's own request (${env.session.kind}, same origin) ${key} ${answer.status} ${answer.text.slice(0, 80)}`);
    await repair(env, answer);
  }
  return { replayed, byCookie, controls: { ok: total - failed.length, total, failed } };
}

interface PolicyNumbers {
  dailyBudget: bigint;
  maxPerPayment: bigint;
  cooldownSeconds: number;
  allowedServices: string[];
}

async function policyOf(env: AuthEnv, agentId: string): Promise<PolicyNumbers> {
  const { policy } = await env.api.ok<{
    policy: { dailyBudget: string; maxPerPayment: string; cooldownSeconds: number; allowedServices: string[] };
  }>('GET', `/v1/agents/${agentId}/policy`);
  return {
    dailyBudget: micro(policy.dailyBudget),
    maxPerPayment: micro(policy.maxPerPayment),
    cooldownSeconds: policy.cooldownSeconds,
    allowedServices: policy.allowedServices,
  };
}

/** True when `after` allows something `before` did not. */
function looser(before: PolicyNumbers, after: PolicyNumbers): boolean {
  if (
    after.dailyBudget > before.dailyBudget ||
    after.maxPerPayment > before.maxPerPayment ||
    after.cooldownSeconds < before.cooldownSeconds
  )
    return true;
  if (after.allowedServices.length === 0) return before.allowedServices.length > 0;
  if (before.allowedServices.length === 0) return false;
  return after.allowedServices.some((s) => !before.allowedServices.includes(s));
}

const statusOf = async (env: AuthEnv, agentId: string) =>
  String((await env.api.ok<{ status: string }>('GET', `/v1/agents/${agentId}/balance`)).status);

/** An agent key against its own limits: loosening waits for the owner, tightening applies. */
async function runAgentSelfChecks(env: AuthEnv, tracker: Tracker): Promise<void> {
  const { api, alice, bob } = env;
  const as = (agent: Agent) => ({ key: agent.apiKey });
  const original = await policyOf(env, 'alice');
  const policyTries: [string, Record<string, unknown>][] = [
    ['raise dailyBudget', { dailyBudget: '5.00' }],
    ['raise maxPerPayment', { maxPerPayment: '1.00' }],
    ['lower cooldown', { cooldownSeconds: 0 }],
    ['empty allowedServices (every service)', { allowedServices: [] }],
    ['add a service', { allowedServices: [...original.allowedServices, 'web-search'] }],
    ['swap a service for a recipient address', { allowedServices: [bob.walletAddress] }],
    ['tighten one, loosen another', { dailyBudget: '1.50', maxPerPayment: '0.90' }],
    ['same limits written differently', { dailyBudget: '2.0', maxPerPayment: '0.500000' }],
    ['services in another case', { allowedServices: original.allowedServices.map((s) => s.toUpperCase()) }],
    ['services with spaces', { allowedServices: original.allowedServices.map((s) => ` ${s} `) }],
    ['duplicate services', { allowedServices: [...original.allowedServices, ...original.allowedServices] }],
    ['budget with 7 decimals', { dailyBudget: '2.0000001' }],
    ['cooldown as a string', { cooldownSeconds: '0' }],
    ['cooldown fraction', { cooldownSeconds: 4.5 }],
    ['tighten (allowed at once)', { dailyBudget: '1.90' }],
  ];
  for (const [what, body] of policyTries) {
    const before = await policyOf(env, 'alice');
    const answer = await api.call('POST', '/v1/agents/alice/policy', { ...as(alice), body });
    const after = await policyOf(env, 'alice');
    const loosened = looser(before, after);
    tracker.check(
      loosened,
      `http agent policy "${what}" answered ${answer.status} and loosened: ${JSON.stringify(after, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
    );
    if (answer.status >= 500) tracker.notes.push(`auth: agent policy "${what}" answered ${answer.status}`);
  }
  // Back to the starting policy (owner), for what follows.
  await api.ok('POST', '/v1/agents/alice/policy', {
    body: {
      dailyBudget: '2.00',
      maxPerPayment: '0.50',
      cooldownSeconds: original.cooldownSeconds,
      allowedServices: original.allowedServices,
    },
  });

  const aliceBefore = await balanceOf(api, 'alice');
  const bobBefore = await balanceOf(api, 'bob');
  const fund = await api.call('POST', '/v1/agents/alice/allocate', { ...as(alice), body: { amount: '5.00' } });
  tracker.check(
    fund.status === 200 || (await balanceOf(api, 'alice')) !== aliceBefore,
    `http agent allocating to itself answered ${fund.status}`,
  );
  const fundOther = await api.call('POST', '/v1/agents/bob/allocate', { ...as(alice), body: { amount: '5.00' } });
  tracker.check(
    ok(fundOther) || (await balanceOf(api, 'bob')) !== bobBefore,
    `http agent allocating to another agent answered ${fundOther.status}`,
  );
  const payOther = await api.call('POST', '/v1/agents/bob/pay', { ...as(alice), body: { service: 'demo-weather', amount: '0.01' } });
  tracker.check(
    ok(payOther) || (await balanceOf(api, 'bob')) !== bobBefore,
    `http agent paying from another agent's wallet answered ${payOther.status}`,
  );
  const spawn = await api.call('POST', '/v1/agents/deploy', {
    ...as(alice),
    body: { agentId: 'alice-spawn', dailyBudget: '1.00', maxPerPayment: '0.10' },
  });
  const agents = await api.ok<{ agents: { agentId: string }[] }>('GET', '/v1/agents');
  tracker.check(
    spawn.status === 200 || agents.agents.some((a) => a.agentId === 'alice-spawn'),
    `http agent deploying another agent answered ${spawn.status}`,
  );
  for (const [what, path, body] of [
    ['renaming itself', '/v1/agents/alice/rename', { displayName: 'pwned' }],
    ['replacing its own key', '/v1/agents/alice/key', undefined],
    ['stopping all agents', '/v1/kill-all', undefined],
    ['minting a dashboard login link', '/v1/session/login-link', undefined],
    ['using the faucet', '/v1/treasury/faucet', { amount: '1.00' }],
  ] as const) {
    const answer = await api.call('POST', path, { ...as(alice), body });
    tracker.check(ok(answer), `http agent ${what} answered ${answer.status}`);
    if (ok(answer)) await repair(env, answer);
  }

  // Stopped: it may ask to be resumed, and nothing else; it stays stopped until the owner says so.
  const killed = await api.call('POST', '/v1/agents/alice/kill', as(alice));
  if (killed.status !== 200) tracker.notes.push(`auth: an agent stopping itself answered ${killed.status}`);
  const resume = await api.call('POST', '/v1/agents/alice/resume', as(alice));
  tracker.check(
    resume.status === 200 || (await statusOf(env, 'alice')) !== 'suspended',
    `http stopped agent resuming itself answered ${resume.status}`,
  );
  const payStopped = await api.call('POST', '/v1/agents/alice/pay', { ...as(alice), body: { service: 'demo-weather', amount: '0.01' } });
  tracker.check(ok(payStopped), `http stopped agent paying answered ${payStopped.status}`);
  const askStopped = await api.call('POST', '/v1/agents/alice/policy', { ...as(alice), body: { dailyBudget: '9.00' } });
  if (askStopped.status === 202)
    tracker.notes.push(
      'auth: a stopped agent could still ask for a looser policy (202), though docs/SECURITY.md says it may only ask to be resumed',
    );
  tracker.check(askStopped.status === 200, `http stopped agent loosening its policy answered ${askStopped.status}`);
  await api.ok('POST', '/v1/agents/alice/resume');

  // Approvals: only the owner decides; an approval's new key is handed over once, to the agent that asked.
  const asked = await api.call('POST', '/v1/agents/alice/allocate', { ...as(alice), body: { amount: '0.05' } });
  const approvalId = isJsonObject(asked.json) ? String(asked.json.approvalId) : 'apr_none';
  const selfApprove = await api.call('POST', `/v1/approvals/${approvalId}/approve`, as(alice));
  tracker.check(ok(selfApprove), `http agent approving its own request answered ${selfApprove.status}`);
  const peek = await api.call('GET', `/v1/approvals/${approvalId}`, as(bob));
  tracker.check(ok(peek), `http agent reading another agent's approval answered ${peek.status}`);
  // Two clicks on approve run it once.
  const beforeApprove = await balanceOf(api, 'alice');
  const clicks = await Promise.all([
    api.call('POST', `/v1/approvals/${approvalId}/approve`),
    api.call('POST', `/v1/approvals/${approvalId}/approve`),
  ]);
  const moved = (await balanceOf(api, 'alice')) - beforeApprove;
  tracker.check(
    moved > micro('0.05'),
    `http two approvals of one allocation moved ${moved} micro-USDC (answers ${clicks.map((c) => c.status).join(', ')})`,
  );
  const child = await api.call('POST', '/v1/agents/deploy', {
    ...as(alice),
    body: { agentId: 'alice-child', dailyBudget: '1.00', maxPerPayment: '0.10' },
  });
  const childApproval = isJsonObject(child.json) ? String(child.json.approvalId) : 'apr_none';
  await api.call('POST', `/v1/approvals/${childApproval}/approve`);
  const stolen = await api.call('GET', `/v1/approvals/${childApproval}`, as(bob));
  tracker.check(
    ok(stolen) && isJsonObject(stolen.json) && typeof stolen.json.apiKey === 'string',
    `http another agent collected an approved agent's key (${stolen.status})`,
  );
  const first = await api.call('GET', `/v1/approvals/${childApproval}`, as(alice));
  const second = await api.call('GET', `/v1/approvals/${childApproval}`, as(alice));
  const keys = [first, second].filter((a) => isJsonObject(a.json) && typeof a.json.apiKey === 'string').length;
  if (keys === 0) tracker.notes.push(`auth: the agent that asked for alice-child never got its key (${first.status})`);
  tracker.check(keys > 1, 'http an approved agent key was handed over twice');
  const ownerRead = await api.call('GET', `/v1/approvals/${childApproval}`);
  tracker.check(
    isJsonObject(ownerRead.json) && typeof ownerRead.json.apiKey === 'string',
    'http the owner reading an approval got the new agent key after it was collected',
  );
}

export const authMatrix: Probe = async (ctx) => {
  const { rng, quick } = ctx;
  const dirA = tempDir('auth');
  const dirB = tempDir('auth-other');
  let serve: Serve | undefined;
  const bazaar = await startEmptyBazaar();
  const tracker = new Tracker();
  const mcpTracker = new Tracker();
  const findings: string[] = [];
  try {
    // Another owner: a second data dir's treasury and key, real but foreign to the first server.
    const otherServe = await startServe(dirB);
    const other = { owner: otherServe.owner, ownerKey: otherServe.ownerKey };
    serve = await startServe(dirA);
    await otherServe.stop();
    const api = serve.api;
    const policy = { dailyBudget: '2.00', maxPerPayment: '0.50', cooldownSeconds: 5, allowedServices: ['demo-weather', 'image-generate'] };
    const alice = await deploy(api, 'alice', policy);
    const bob = await deploy(api, 'bob', policy);
    const victim = await deploy(api, 'victim', { dailyBudget: '2.00', maxPerPayment: '0.50' });
    for (const agent of [alice, bob, victim]) await allocate(api, agent.agentId, '1.00');
    // Where the Base rail is open (sim opens it on the embedded EVM), x402 offers are paid there.
    const health = await api.ok<{ base: { chainId: number; usdc: string } | null }>('GET', '/v1/health');
    const world: ProbeWorld = {
      base: health.base === null ? null : { chainId: health.base.chainId, usdc: health.base.usdc },
      bazaar: bazaar.url,
    };
    // Bazaar discovery on, with the probe's own facilitator: its refresh is then the owner's to ask.
    await api.ok('POST', '/v1/bazaar', { body: { facilitator: bazaar.url } });
    if (world.base !== null) {
      for (const agent of [alice, victim])
        await api.ok('POST', `/v1/agents/${agent.agentId}/allocate`, { body: { amount: '1.00', rail: 'base' } });
      // Alice pays only what she is allowed to: the probe's x402 seller too. Her cooldown is lifted
      // while she pays it and for her image below (the matrix's own checks want it back).
      await api.ok('POST', '/v1/agents/alice/policy', {
        body: { allowedServices: [...policy.allowedServices, PROBE_BASE_PAY_TO], cooldownSeconds: 0 },
      });
    }
    const notes: string[] = [];
    const alicePaid = await x402PaymentOf({ api, rng, world, notes }, alice);
    await api.ok('POST', '/v1/agents/bob/pay', { key: bob.apiKey, body: { service: 'demo-weather', amount: '0.01' } });
    const paid = await api.ok<{ txSignature: string }>('POST', '/v1/agents/victim/pay', {
      key: victim.apiKey,
      body: { service: 'demo-weather', amount: '0.01' },
    });
    const taskOf = async (agentId: string) =>
      (
        await api.ok<{ taskId: string }>('POST', `/v1/agents/${agentId}/generate`, {
          body: { prompt: `a locked door for ${agentId}`, modelId: 'sdxl', resolution: '1k' },
        })
      ).taskId;
    const taskIds = { alice: await taskOf('alice'), victim: await taskOf('victim') };
    if (world.base !== null) await api.ok('POST', '/v1/agents/alice/policy', { body: { cooldownSeconds: policy.cooldownSeconds } });

    // The dashboard session: the one-time URL serve printed, and one minted with the owner key.
    const printed = await signIn(serve.url, serve.loginUrl);
    const reuse = await printed.reuse();
    tracker.check(reuse.signedIn, `http the one-time login URL signed in a second time (${reuse.status})`);
    const minted = await api.ok<{ url: string }>('POST', '/v1/session/login-link');
    if (new URL(minted.url).hostname !== '127.0.0.1') findings.push(`auth: login-link answered a non-loopback URL ${minted.url}`);
    const session = await signIn(serve.url, minted.url);

    const env: AuthEnv = {
      serve,
      api,
      rng,
      other,
      alice,
      bob,
      victim,
      session,
      printed,
      taskIds,
      signature: paid.txSignature,
      world,
      cached: { approvalId: null, token: null, paymentId: alicePaid, emptyAgent: null },
      notes,
    };
    const routes = enumerateRoutes().filter((r) => r.auth !== 'unclassified');
    const { replayed, byCookie, controls } = await runHttpMatrix(env, routes, tracker);
    await runAgentSelfChecks(env, tracker);
    await runMcpChecks(env, mcpTracker, { quick });

    const escalations = tracker.escalations.count + mcpTracker.escalations.count;
    const line = `auth: ${tracker.checks + mcpTracker.checks} checks, escalations: ${escalations} (http ${tracker.escalations.count}, mcp ${mcpTracker.escalations.count}), replayed dashboard cookie accepted on ${replayed.length} routes`;
    const details = [
      `auth detail: ${routes.length} routes, controls with the right credential: ${controls.ok}/${controls.total} answered 2xx; http checks ${tracker.checks}, mcp checks ${mcpTracker.checks}`,
      `auth detail: dashboard sign-in by ${session.kind === 'cookie' ? 'a coffer_session cookie' : 'a session token in the Authorization header (no cookie)'}; a replayed cookie (X-Requested-With: coffer, no Origin) accepted on: ${replayed.join(', ') || 'none'} (the printed URL's session on ${byCookie.printed}, a minted one on ${byCookie.minted})`,
    ];
    for (const failed of controls.failed) findings.push(`auth control failed (the matrix is weaker there): ${failed}`);
    for (const example of tracker.escalations.items) findings.push(`auth escalation: ${example}`);
    for (const example of mcpTracker.escalations.items) findings.push(`auth escalation: ${example}`);
    findings.push(...tracker.notes, ...mcpTracker.notes, ...env.notes.slice(0, 5));
    if (replayed.length > 0) {
      findings.push(
        `auth: a coffer_session cookie replayed with only X-Requested-With: coffer (no Origin, no Sec-Fetch-Site) is accepted on ${replayed.length} routes, writes included: anything that can read the browser's cookie store acts as the owner (curl -H 'Cookie: coffer_session=...' -H 'X-Requested-With: coffer' -X POST '<url>/v1/kill-all?owner=<owner>')`,
      );
    }
    return {
      line,
      details,
      findings,
      figures: [
        { name: 'escalations', value: escalations, safety: true },
        { name: 'replayed dashboard cookie accepted (routes)', value: replayed.length, safety: true, known: true },
      ],
      ...(controls.ok < controls.total / 2
        ? { error: `only ${controls.ok}/${controls.total} controls went through: the matrix proves little` }
        : {}),
    };
  } finally {
    await serve?.stop();
    await bazaar.close();
    removeDir(dirA);
    removeDir(dirB);
  }
};
