import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonObject, rawRequest, socketRequest, type Answer, type Api } from './lib/http.js';
import { allocate, deploy } from './lib/ledger.js';
import { pastDeadline, Examples, Tally, type Probe } from './lib/report.js';
import { removeDir, tempDir } from './lib/cleanup.js';
import { startServe, type Serve } from './lib/serve.js';
import { signIn } from './lib/session.js';
import { enumerateRoutes, missingFromSources } from './routes.js';
import { fuzzRequest, type FuzzRequest, type FuzzTarget } from './fuzz-cases.js';

/**
 * Probe 3: a fuzz pass over every route. Thousands of malformed requests (wrong methods, bad JSON,
 * huge bodies, odd unicode, wrong types, path traversal, bad owner/agent ids, bad headers, raw HTTP),
 * with valid and invalid auth. Counts 5xx answers, non-JSON error answers, leaks (stack traces,
 * file contents, the owner key), whether the server stays up, and whether a refused request changed
 * anything the owner can see (treasury, deposits, agents' names/status/balances/policies, approvals,
 * payments, tasks, the validity of the agents' keys).
 */

/** What a refused request must not change. Refusals the owner is shown (recentRefusals) are left out. */
async function snapshot(api: Api, keys: { agentId: string; key: string }[]): Promise<string> {
  const [board, deposits, approvals, tasks, ...keyChecks] = await Promise.all([
    api.ok<{ treasury: { amount: string }; agents: Record<string, unknown>[]; recentActivity: { id: string; status: string }[] }>(
      'GET',
      '/v1/dashboard',
    ),
    api.ok<{ deposits: { id: string }[] }>('GET', '/v1/treasury/deposits'),
    api.ok<{ approvals: { approvalId: string; status: string }[] }>('GET', '/v1/approvals'),
    api.ok<{ tasks: { taskId: string }[] }>('GET', '/v1/agents/fz-a/tasks?limit=100'),
    ...keys.map(({ agentId, key }) => api.call('GET', `/v1/agents/${agentId}/policy`, { key })),
  ]);
  return JSON.stringify({
    treasury: board.treasury.amount,
    agents: board.agents.map(({ agentId, displayName, status, balance, policy, lifetimePayments, lifetimeSpent }) => ({
      agentId,
      displayName,
      status,
      balance,
      policy,
      lifetimePayments,
      lifetimeSpent,
    })),
    activity: board.recentActivity.map((a) => `${a.id}:${a.status}`),
    deposits: deposits.deposits.map((d) => d.id),
    approvals: approvals.approvals.map((a) => `${a.approvalId}:${a.status}`),
    tasks: tasks.tasks.map((t) => t.taskId),
    keys: keyChecks.map((answer) => answer.status),
  });
}

/** Which top-level parts of two snapshots differ. */
function diffParts(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(after) as Record<string, unknown>;
  return Object.keys(a)
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .join(', ');
}

const STACK = /\n\s+at [^\n]*:\d+:\d+|at (?:async )?[\w.<>]+ \((?:file:\/\/)?\/[^)]*:\d+:\d+\)/;
const ABSOLUTE_SOURCE = /\/(?:home|work|usr|tmp|root)\/[\w./-]+\.(?:ts|js|cjs|mjs)\b/;
const FILE_CONTENTS = [
  /root:x:0:0/,
  /"name":\s*"coffer"/,
  /SQLite format 3/,
  /^import .* from '/m,
  /"ownerKey"/,
  /BEGIN [A-Z ]*PRIVATE KEY/,
  /\[core\]\s*repositoryformatversion/,
];

const isV1 = (path: string) => {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // keep it raw
  }
  return /^\/+v1(?:[/?#]|$)/i.test(path) || /^\/+v1(?:[/?#]|$)/i.test(decoded);
};

export const fuzz: Probe = async (ctx) => {
  const { rng, quick } = ctx;
  const dir = tempDir('fuzz');
  let serve: Serve | undefined;
  const findings: string[] = [];
  try {
    serve = await startServe(dir);
    const api = serve.api;
    const routes = enumerateRoutes();
    const stale = missingFromSources(routes);
    const unclassified = routes.filter((r) => r.auth === 'unclassified');
    if (unclassified.length > 0)
      findings.push(
        `fuzz: routes not in test/probe/routes.ts (fuzzed, not auth-checked): ${unclassified.map((r) => `${r.method} ${r.pattern}`).join(', ')}`,
      );
    if (stale.length > 0) findings.push(`fuzz: routes in test/probe/routes.ts the sources no longer register: ${stale.join(', ')}`);

    // Targets every route can name: two agents, a pending approval, a task, a link session, a payment.
    const a = await deploy(api, 'fz-a', { dailyBudget: '5.00', maxPerPayment: '0.50' });
    const b = await deploy(api, 'fz-b', { dailyBudget: '5.00', maxPerPayment: '0.50' });
    await allocate(api, 'fz-a', '2.00');
    await allocate(api, 'fz-b', '1.00');
    const keys = [
      { agentId: 'fz-a', key: a.apiKey },
      { agentId: 'fz-b', key: b.apiKey },
    ];
    const approval = await api.ok<{ approvalId: string }>('POST', '/v1/agents/fz-a/policy', {
      key: a.apiKey,
      body: { dailyBudget: '50.00' },
    });
    const task = await api.ok<{ taskId: string }>('POST', '/v1/agents/fz-a/generate', {
      body: { prompt: 'a fuzzy cat', modelId: 'sdxl', resolution: '1k' },
    });
    const link = await api.ok<{ token: string }>('POST', '/v1/link-sessions', { key: null, owner: null, body: { name: 'fuzz' } });
    const paid = await api.ok<{ txSignature: string }>('POST', '/v1/agents/fz-b/pay', {
      key: b.apiKey,
      body: { service: 'demo-weather', amount: '0.01' },
    });
    const loginLink = await api.ok<{ url: string }>('POST', '/v1/session/login-link');
    const session = await signIn(serve.url, loginLink.url);
    // The recovery phrase (the probe's serve keeps keys in files): four of its words in a row, as text
    // or as a JSON list, leave the server only in the owner's own reveal.
    const words = readFileSync(join(serve.dataDir, 'keys', `recovery-phrase_${serve.owner}.key`), 'utf8').split(' ');
    const phraseRuns = [words.slice(0, 4).join(' '), JSON.stringify(words.slice(0, 4)).slice(1, -1)];
    const target: FuzzTarget = {
      port: Number(new URL(serve.url).port),
      owner: serve.owner,
      ownerKey: serve.ownerKey,
      agentKey: a.apiKey,
      otherAgentKey: b.apiKey,
      cookie: session.value,
      session: session.headers,
      params: {
        agentId: 'fz-a',
        taskId: task.taskId,
        id: approval.approvalId,
        token: link.token,
        signature: paid.txSignature,
        serviceId: 'demo-weather',
        file: 'fz.svg',
      },
    };

    const total = quick ? 1200 : 6000;
    const statuses = new Tally();
    const fiveHundreds = new Examples(5);
    const nonJson = new Examples(5);
    const nonJsonOutside = new Examples(3);
    const stateChanged = new Examples(5);
    const leaks = new Examples(5);
    const transport = new Tally();
    let protocolLevel = 0;
    let sent = 0;
    let baseline = await snapshot(api, keys);
    let getsSinceCheck = 0;
    let died: string | null = null;
    let acceptedChanges = 0;

    const judge = (request: FuzzRequest, status: number, text: string, json: unknown, contentType: string) => {
      statuses.add(String(status));
      const where = `${request.label} (${request.method} ${request.path.slice(0, 80)})`;
      if (status >= 500) fiveHundreds.add(`${status} ${text.slice(0, 100)} <- ${where}`);
      const errorAnswer = status >= 400;
      const page = /^\/+(login|link)(?:[/?#]|$)/.test(request.path);
      // /rpc answers in JSON-RPC's own error shape, as Solana clients expect.
      const jsonRpcError = request.path.startsWith('/rpc') && isJsonObject(json) && json.jsonrpc === '2.0' && isJsonObject(json.error);
      const jsonError = jsonRpcError || (isJsonObject(json) && typeof json.error === 'string' && typeof json.code === 'string');
      if (errorAnswer && request.method !== 'HEAD' && !jsonError) {
        if (isV1(request.path)) nonJson.add(`${status} ${contentType} ${JSON.stringify(text.slice(0, 60))} <- ${where}`);
        else if (!page) nonJsonOutside.add(`${status} ${contentType} ${JSON.stringify(text.slice(0, 60))} <- ${where}`);
      }
      const scriptOrStyle = /javascript|css|svg/.test(contentType);
      // Source paths are expected in an mcpConfig (the command to launch); in an error they are a leak.
      if (!scriptOrStyle && (STACK.test(text) || (errorAnswer && ABSOLUTE_SOURCE.test(text))))
        leaks.add(`stack trace or source path in ${status} <- ${where}: ${text.slice(0, 120)}`);
      if (text.includes(target.ownerKey) || text.includes('cof_own_')) leaks.add(`owner key in ${status} <- ${where}`);
      // Express routes paths case-insensitively and with a trailing slash: /V1/backup/phrase/ is the same owner's reveal.
      const ownersReveal = request.method === 'POST' && /^\/v1\/backup\/phrase\/?(\?|$)/i.test(request.path) && status === 200;
      if (!ownersReveal && phraseRuns.some((run) => text.includes(run))) leaks.add(`recovery phrase in ${status} <- ${where}`);
      if (/%2e|\.\.|%5c/i.test(request.path) && status < 400 && FILE_CONTENTS.some((re) => re.test(text)))
        leaks.add(`file contents in ${status} <- ${where}: ${text.slice(0, 80)}`);
    };

    const started = performance.now();
    for (let i = 0; i < total; i++) {
      if (pastDeadline(ctx)) break;
      const request = fuzzRequest(routes, target, rng, i);
      sent += 1;
      let accepted = false;
      let refused = false;
      let unknownOutcome = false;
      if (request.kind === 'socket') {
        const answer = await socketRequest(serve.url, request.bytes);
        if (answer.status === 0) {
          // No answer (closed, or still waiting for bytes that never come): the outcome is unknown.
          statuses.add('no answer');
          unknownOutcome = true;
        } else if (answer.status === 400 && !/content-type/i.test(answer.text)) {
          protocolLevel += 1;
          statuses.add('protocol 400');
          refused = true;
        } else {
          let json: unknown;
          try {
            json = JSON.parse(answer.body);
          } catch {
            json = undefined;
          }
          judge(request, answer.status, answer.text, json, /content-type:\s*([^\r\n;]*)/i.exec(answer.text)?.[1] ?? '');
          accepted = answer.status < 400;
          refused = !accepted;
        }
      } else {
        const answer: Answer = await rawRequest(serve.url, {
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: request.body,
          chunked: request.chunked,
          timeoutMs: request.timeoutMs,
        });
        if (answer.status === 0) {
          transport.add(answer.error ?? 'error');
          unknownOutcome = true;
        } else {
          judge(request, answer.status, answer.text, answer.json, String(answer.headers['content-type'] ?? '').split(';')[0]!);
          accepted = answer.status < 400;
          refused = !accepted;
          // A key replaced by an accepted request is the key from now on.
          if (accepted && isJsonObject(answer.json) && typeof answer.json.apiKey === 'string' && typeof answer.json.agentId === 'string') {
            const replaced = answer.json.agentId;
            const entry = keys.find((k) => k.agentId === replaced);
            if (entry) entry.key = answer.json.apiKey;
          }
        }
      }
      if (!serve.alive()) {
        died = `after request ${i}: ${request.label}`;
        break;
      }
      const readOnly = ['GET', 'HEAD', 'OPTIONS', 'get'].includes(request.method);
      if (unknownOutcome) {
        // Whatever it did is not counted either way; later changes are measured from here.
        baseline = await snapshot(api, keys);
        getsSinceCheck = 0;
      } else if (accepted && !readOnly) {
        const now = await snapshot(api, keys);
        // The detector's own check: accepted writes do show up in the snapshot.
        if (now !== baseline) acceptedChanges += 1;
        baseline = now;
        getsSinceCheck = 0;
      } else if (refused && !readOnly) {
        const now = await snapshot(api, keys);
        if (now !== baseline) {
          stateChanged.add(`${request.label} (${request.method} ${request.path.slice(0, 80)}) changed ${diffParts(baseline, now)}`);
          baseline = now;
        }
      } else if (++getsSinceCheck >= 20) {
        getsSinceCheck = 0;
        const now = await snapshot(api, keys);
        if (now !== baseline) {
          stateChanged.add(`one of the last 20 read-only requests changed ${diffParts(baseline, now)}`);
          baseline = now;
        }
      }
    }
    const elapsed = (performance.now() - started) / 1000;
    const health = await api.call('GET', '/v1/health', { key: null, owner: null });
    const alive = died === null && serve.alive() && health.status === 200;
    if (!alive) findings.push(`fuzz: the server ${died ? `died ${died}` : `answered /v1/health with ${health.status || health.error}`}`);

    const line = `fuzz: ${sent} requests, 5xx: ${fiveHundreds.count}, non-JSON errors: ${nonJson.count}, state changed by a refused request: ${stateChanged.count}, server alive: ${alive ? 'yes' : 'no'}`;
    const details = [
      `fuzz detail: ${routes.length} routes from the sources (${unclassified.length} unclassified), ${(sent / elapsed).toFixed(0)} requests/s with a state snapshot after every refused write (${acceptedChanges} accepted writes seen changing it)`,
      `fuzz detail: statuses ${statuses.toString(14)}; transport errors (outcome unknown, not judged) ${transport.toString(4)}; rejected at the HTTP parser ${protocolLevel}`,
      `fuzz detail: leaks (stack traces, source paths, file contents, owner key): ${leaks.count}; non-JSON errors outside /v1 (pages excepted): ${nonJsonOutside.count}`,
    ];
    for (const example of fiveHundreds.items) findings.push(`fuzz 5xx: ${example}`);
    for (const example of nonJson.items) findings.push(`fuzz non-JSON error: ${example}`);
    for (const example of nonJsonOutside.items) findings.push(`fuzz non-JSON error outside /v1: ${example}`);
    for (const example of stateChanged.items) findings.push(`fuzz state changed: ${example}`);
    for (const example of leaks.items) findings.push(`fuzz leak: ${example}`);
    return {
      line,
      details,
      findings,
      figures: [
        { name: 'fuzz 5xx', value: fiveHundreds.count, safety: true },
        { name: 'fuzz server died', value: alive ? 0 : 1, safety: true },
        { name: 'fuzz state changed by a refused request', value: stateChanged.count, safety: true },
        { name: 'fuzz leaks', value: leaks.count, safety: true },
        { name: 'fuzz non-JSON errors on /v1', value: nonJson.count, safety: false },
      ],
    };
  } finally {
    await serve?.stop();
    removeDir(dir);
  }
};
