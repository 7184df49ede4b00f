import { DEMO_BASE_PAY_TO } from '../../server/demo-api/demo-api.js';

/** A Solana address a seller is paid at (no registry service's). */
const DEMO_SOL_RECIPIENT = '32TkufgACBYJtUXpxmkpPLhnV7J4Hf4pQXm6BS9Raq3T';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Writable } from 'node:stream';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/coffer.js';
import { CLI, linkInBackground, ownerPost, runCoffer, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { writeAgentConfig } from '../../server/linked-agent/agent-config.js';
import { decodeReceipt } from '../../server/wire/receipts.js';
import { shellCommand } from '../../server/boot/cli-invocation.js';

/** The `coffer` commands an agent's terminal and the owner use, run as real processes. */
const coffer = runCoffer;

/** What a shell reports for a program a closed pipe stopped: 128 + SIGPIPE (13), as for `yes | head -1`. */
const CLOSED_PIPE = 141;

/**
 * A `coffer` command whose stdout reader is gone before it writes (as `coffer status | head -0`, the
 * race of `| head -4` made certain): its exit code and what it said on stderr.
 */
function cofferIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, COFFER_NO_BROWSER: '1', COFFER_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('coffer status, pay, kill, open', () => {
  const dataDir = tempDataDir();
  const configFile = join(dataDir, 'agent.json');
  let serve: ServeProcess;
  let owner: { owner: string; ownerKey: string };
  let wallets: { sol: string; base: string };

  /** An owner's POST to the running server. */
  const post = (path: string, body: unknown) => ownerPost(serve, owner, path, body);
  /** A terminal linked as an agent just deployed: its config written to `file`. */
  const linkedAs = (file: string, deployed: { agent: { agentId: string; walletAddress: string }; apiKey: string }) =>
    writeAgentConfig(file, {
      agentId: deployed.agent.agentId,
      walletAddress: deployed.agent.walletAddress,
      apiKey: deployed.apiKey,
      linkedAt: new Date().toISOString(),
      owner: owner.owner,
      url: serve.url,
    });

  beforeAll(async () => {
    serve = await spawnServe(dataDir);
    owner = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const deployed = await post('/v1/agents/deploy', { agentId: 'cli-agent', dailyBudget: '3.00', maxPerPayment: '1.00' });
    await post('/v1/agents/deploy', { agentId: 'other-agent', dailyBudget: '3.00', maxPerPayment: '1.00' });
    await post('/v1/agents/cli-agent/allocate', { amount: '2.00' });
    await post('/v1/agents/cli-agent/allocate', { amount: '1.00', rail: 'base' });
    wallets = deployed.agent.wallets;
    linkedAs(configFile, deployed);
  });
  afterAll(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('status shows the balance and wallet on each rail and the policy; pay pays and prints the receipt', async () => {
    const before = await coffer(['status', '--config', configFile]);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain(
      `  balance  2.00 USDC on Solana  (${wallets.sol})\n           1.00 USDC on Base    (${wallets.base})\n`,
    );
    expect(before.stdout).toMatch(/status\s+active/);
    expect(before.stdout).toMatch(/policy {3}3\.00 USDC in any 24 hours, at most 1\.00 a payment/);
    const paid = await coffer(['pay', 'demo-weather', '0.01', '--config', configFile]);
    expect(paid.code).toBe(0);
    expect(paid.stdout).toMatch(/^Paid 0\.01 USDC on Solana to \w{32,44} for demo-weather \(pay_\w+, transaction \w+\)\.$/m);
    expect(paid.stdout).toMatch(/X-Payment: v1\./);
    const after = await coffer(['status', '--config', configFile]);
    expect(after.stdout).toMatch(/balance\s+1\.99 USDC on Solana/);
    expect(after.stdout).toMatch(/0\.01 USDC {2}on Solana {2}Coffer demo weather/);
  });

  it('pay to an EVM address pays on Base, and says so; the balance there follows', async () => {
    const seller = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    const paid = await coffer(['pay', 'base-api', '0.01', '--recipient', seller.toLowerCase(), '--config', configFile]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(
      new RegExp(`^Paid 0\\.01 USDC on Base to ${seller} for base-api \\(pay_\\w+, transaction 0x[0-9a-f]{64}\\)\\.$`, 'm'),
    );
    expect(paid.stdout).toMatch(/^X-Payment: v1\./m);
    const after = await coffer(['status', '--config', configFile]);
    expect(after.stdout).toContain(`           0.99 USDC on Base    (${wallets.base})\n`);
    // Each payment says where it was paid, beside its amount.
    expect(after.stdout).toMatch(/0\.01 USDC {2}on Base {4}base-api +\(confirmed\)\n/);
    expect(after.stdout).toMatch(/0\.01 USDC {2}on Solana {2}Coffer demo weather +\(confirmed\)\n/);
  });

  it("pay --rail base pays a registry service's Base address; another rail is a usage error", async () => {
    const paid = await coffer(['pay', 'demo-quotes', '0.01', '--rail', 'base', '--config', configFile]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(
      new RegExp(`^Paid 0\\.01 USDC on Base to ${DEMO_BASE_PAY_TO} for demo-quotes \\(pay_\\w+, transaction 0x[0-9a-f]{64}\\)\\.$`, 'm'),
    );
    const wrong = await coffer(['pay', 'demo-quotes', '0.01', '--rail', 'eth', '--config', configFile]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--rail is sol or base, not "eth"/);
  });

  it('a refused payment exits 1 with the server message', async () => {
    const refused = await coffer(['pay', 'demo-weather', '5.00', '--config', configFile]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/max per payment.*\(max_per_payment_exceeded\)$/m);
    // Then what the agent's terminal can do about it: ask the owner, with the command that does, as
    // this agent (its --config named: without it, the command acts as the linked agent, or none).
    const asking = shellCommand(['policy', '--max', 'AMOUNT', '--config', configFile]);
    expect(refused.stderr).toContain(`\nnext: ${asking} asks the owner for a higher max per payment\n`);
    // A negative amount is an amount, refused in words before Coffer is asked (not "unknown option -1");
    // ".01" is one too. The two typed the other way round are told so (only then: helper 171).
    const negative = await coffer(['pay', 'demo-weather', '-1', '--config', configFile]);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toMatch(/^coffer: "-1" is not an amount: the amount must be a positive decimal of USDC .*such as 0\.01$/m);
    expect(negative.stderr).not.toMatch(/sent as a string|unknown option/);
    const swapped = await coffer(['pay', '0.01', 'demo-weather', '--config', configFile]);
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toMatch(/^coffer: "demo-weather" is not an amount: .*coffer pay takes the service first, then the amount$/m);
    const leading = await coffer(['pay', 'demo-weather', '.01', '--receipt', '--config', configFile]);
    expect(leading.code, leading.stderr).toBe(0);
  });

  it('a mistyped service or agent id says what was meant', async () => {
    const service = await coffer(['pay', 'demo-wether', '0.01', '--config', configFile]);
    expect(service.code).toBe(1);
    expect(service.stderr).toMatch(/"demo-wether" is not in the registry \(did you mean "demo-weather"\?\)/);
    const agent = await coffer(['kill', 'cli-agnet', '--data-dir', dataDir]);
    expect(agent.code).toBe(1);
    expect(agent.stderr).toMatch(/no agent "cli-agnet" for this owner \(did you mean "cli-agent"\?\)/);
  });

  it('coffer fetch: a host that does not answer is named, nothing paid; a free URL says nothing was paid; at a terminal the body ends its line', async () => {
    const { fetchCommand } = await import('../../server/cli/commands/fetch-command.js');
    const written = (tty: boolean) => {
      const chunks: string[] = [];
      return Object.assign(new Writable({ write: (chunk, _encoding, done) => (chunks.push(String(chunk)), done()) }), {
        isTTY: tty,
        chunks,
      });
    };
    const out = written(false);
    const err = written(false);
    // A port nothing listens on.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    expect(await fetchCommand(configFile, { url: `http://127.0.0.1:${closed}/data`, headers: [] }, out, err)).toBe(1);
    expect(err.chunks.join('')).toMatch(
      new RegExp(`127\\.0\\.0\\.1:${closed} could not be reached \\(ECONNREFUSED\\); nothing was paid \\(url_unreachable\\)`),
    );
    expect(err.chunks.join('')).not.toMatch(/was made/);
    const free = createHttpServer((_req, res) => res.end('no newline at the end')).listen(0, '127.0.0.1');
    await once(free, 'listening');
    try {
      const url = `http://127.0.0.1:${(free.address() as AddressInfo).port}/`;
      const terminal = written(true);
      expect(await fetchCommand(configFile, { url, headers: [] }, terminal, written(true))).toBe(0);
      expect(terminal.chunks.join('')).toBe('no newline at the end\n');
      const piped = written(false);
      const said = written(false);
      expect(await fetchCommand(configFile, { url, headers: [] }, piped, said)).toBe(0);
      expect(piped.chunks.join('')).toBe('no newline at the end');
      // A URL that asks no payment: stderr says nothing was paid, on the rail asked for too.
      expect(said.chunks.join('')).toBe(`Nothing paid: ${url} answered without asking for payment.\n`);
      const onBase = written(false);
      expect(await fetchCommand(configFile, { url, headers: [], rail: 'base' }, written(false), onBase)).toBe(0);
      expect(onBase.chunks.join('')).toBe(`Nothing paid: ${url} answered without asking for payment.\n`);
    } finally {
      free.close();
    }
    // A page that is not there: said after its body, not first as a call that went through.
    const missing = createHttpServer((_req, res) => {
      res.statusCode = 404;
      res.end('{"error":"not found"}');
    }).listen(0, '127.0.0.1');
    await once(missing, 'listening');
    try {
      const url = `http://127.0.0.1:${(missing.address() as AddressInfo).port}/nope`;
      const said = written(false);
      expect(await fetchCommand(configFile, { url, headers: [] }, written(false), said)).toBe(1);
      expect(said.chunks.join('')).toBe(`\n${url} answered 404 Not Found; nothing paid\n`);
    } finally {
      missing.close();
    }
  });

  it('coffer fetch with no Coffer answering exits 3 (coffer_unreachable), saying so once, as every command does', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const gone = join(dataDir, 'coffer-gone.json');
    writeAgentConfig(gone, { ...JSON.parse(readFileSync(configFile, 'utf8')), url: `http://127.0.0.1:${closed}` });
    // A paywall's 402 in Coffer's form: paid through the agent's Coffer, which does not answer.
    const paywall = createHttpServer((_req, res) => {
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ amount: '0.01', currency: 'USDC', recipient: wallets.sol }));
    }).listen(0, '127.0.0.1');
    await once(paywall, 'listening');
    try {
      const result = await coffer(['fetch', `http://127.0.0.1:${(paywall.address() as AddressInfo).port}/paid`, '--config', gone]);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(/\(coffer_unreachable\)$/m);
      expect(result.stderr.match(/not answering|cannot be reached/g)).toHaveLength(1);
    } finally {
      paywall.close();
    }
  });

  it('coffer fetch describes the payment by the URL as sent: one typed with U+202E or a #fragment is paid, not refused', async () => {
    // A paywall's 402 in Coffer's form, paid to the treasury; the paid call is answered.
    const paywall = createHttpServer((req, res) => {
      const paid = req.headers['x-payment'] !== undefined;
      res.writeHead(paid ? 200 : 402, { 'content-type': 'application/json' });
      res.end(JSON.stringify(paid ? { ok: true } : { amount: '0.01', currency: 'USDC', recipient: owner.owner }));
    }).listen(0, '127.0.0.1');
    await once(paywall, 'listening');
    try {
      const base = `http://127.0.0.1:${(paywall.address() as AddressInfo).port}`;
      const result = await coffer(['fetch', `${base}/pa\u202eid?q=a b#top`, '--config', configFile]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('{"ok":true}');
      const history = await fetch(`${serve.url}/v1/agents/cli-agent/spend-history?owner=${owner.owner}&limit=1`, {
        headers: { authorization: `Bearer ${owner.ownerKey}` },
      });
      const [last] = ((await history.json()) as { payments: { description: string }[] }).payments;
      expect(last!.description).toBe(`coffer fetch GET ${base}/pa%E2%80%AEid?q=a%20b`);
    } finally {
      paywall.close();
    }
  });

  it('coffer demo-api with no Coffer exits 3 (coffer_unreachable); on a port in use it says port_in_use, as demo-x402 does', async () => {
    const empty = tempDataDir();
    const busy = createHttpServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    try {
      const none = await coffer(['demo-api', '--data-dir', empty]);
      expect(none.code, none.stderr).toBe(3);
      expect(none.stderr).toMatch(/^coffer: no Coffer server found in .*\(coffer_unreachable\)$/m);
      const port = String((busy.address() as AddressInfo).port);
      const taken = await coffer(['demo-api', '--port', port, '--coffer-url', serve.url, '--data-dir', empty]);
      expect(taken.code, taken.stderr).toBe(1);
      expect(taken.stderr).toMatch(
        new RegExp(
          `^coffer: port ${port} on 127\\.0\\.0\\.1 is already in use \\(choose another with --port\\); nothing was started \\(port_in_use\\)$`,
          'm',
        ),
      );
      expect(taken.stderr).not.toMatch(/EADDRINUSE/);
    } finally {
      busy.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('coffer fetch refused by the policy says what the agent’s terminal can do next, as coffer pay does', async () => {
    const { fetchCommand } = await import('../../server/cli/commands/fetch-command.js');
    const said: string[] = [];
    const err = new Writable({ write: (chunk, _encoding, done) => (said.push(String(chunk)), done()) });
    // A seller asking 5.00 (above the agent's max per payment) in Coffer's own 402.
    const seller = createHttpServer((_req, res) =>
      res
        .writeHead(402, { 'content-type': 'application/json' })
        .end(JSON.stringify({ amount: '5.00', currency: 'USDC', recipient: DEMO_SOL_RECIPIENT, nonce: 'n-1' })),
    ).listen(0, '127.0.0.1');
    await once(seller, 'listening');
    try {
      const url = `http://127.0.0.1:${(seller.address() as AddressInfo).port}/dear`;
      expect(await fetchCommand(configFile, { url, headers: [] }, new Writable({ write: (_c, _e, done) => done() }), err)).toBe(1);
      expect(said.join('')).toMatch(/\(max_per_payment_exceeded\)\n/);
      expect(said.join('')).toContain(
        `\nnext: ${shellCommand(['policy', '--max', 'AMOUNT', '--config', configFile])} asks the owner for a higher max per payment\n`,
      );
    } finally {
      seller.close();
    }
  });

  it('the COFFER_* variables stand in for the config file', async () => {
    const { apiKey } = JSON.parse(readFileSync(configFile, 'utf8'));
    const result = await coffer(['status'], {
      COFFER_URL: serve.url,
      COFFER_OWNER: owner.owner,
      COFFER_AGENT_ID: 'cli-agent',
      COFFER_API_KEY: apiKey,
      COFFER_CONFIG: '/nonexistent',
    });
    expect(result.code).toBe(0);
    // The network it pays on, test money said as such (the owner's status says the same).
    expect(result.stdout).toMatch(/^Agent cli-agent at http:\/\/\S+, on the embedded sim chain \(test USDC\)$/m);
    // A config file named on the command line wins over variables a whole shell may carry: another
    // agent's (here one that does not exist) never acts in its place, even where COFFER_CONFIG names
    // the same file (named is named).
    const ghost = { COFFER_URL: serve.url, COFFER_OWNER: owner.owner, COFFER_AGENT_ID: 'ghost', COFFER_API_KEY: 'cof_agent_notakey' };
    for (const env of [ghost, { ...ghost, COFFER_CONFIG: configFile }]) {
      const named = await coffer(['status', '--config', configFile], env);
      expect({ code: named.code, stderr: named.stderr }).toEqual({ code: 0, stderr: '' });
      expect(named.stdout).toMatch(/^Agent cli-agent at /m);
    }
    const missing = await coffer(['status', '--config', join(dataDir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/coffer link/);
    // Every way to a config is named: another file, and the owner's commands that write one.
    expect(missing.stderr).toMatch(/--config FILE or COFFER_CONFIG=FILE/);
    expect(missing.stderr).toMatch(/coffer deploy <agent> --config FILE or coffer key <agent> --config FILE/);
    // Three of the four (an MCP host's env cut short): the one missing is named, not the config file;
    // and coffer mcp still answers the host, whose tool calls say so (not "Connection closed").
    const partialEnv = { COFFER_URL: serve.url, COFFER_AGENT_ID: 'cli-agent', COFFER_API_KEY: apiKey, COFFER_CONFIG: '/nonexistent' };
    const partial = await coffer(['status'], partialEnv);
    expect(partial.code).toBe(1);
    expect(partial.stderr).toMatch(/COFFER_OWNER is not set, though COFFER_URL, COFFER_AGENT_ID and COFFER_API_KEY are/);
    expect(partial.stderr).not.toMatch(/does not exist/);
    const host = new Client({ name: 'host', version: '1.0.0' });
    await host.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: { PATH: process.env.PATH ?? '', ...partialEnv },
        stderr: 'pipe',
      }),
    );
    try {
      const called = (await host.callTool({ name: 'check_balance', arguments: {} })) as { isError?: boolean; content: { text: string }[] };
      expect(called.isError).toBe(true);
      expect(called.content[0]?.text).toMatch(/COFFER_OWNER is not set.*\(not_configured\)$/);
      const fetched = (await host.callTool({ name: 'fetch_paid', arguments: { url: 'http://127.0.0.1:9/' } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(fetched.content[0]?.text).toMatch(/COFFER_OWNER is not set/);
    } finally {
      await host.close();
    }
  });

  it('kill stops this agent; kill <other> and kill --all take the owner connection file', async () => {
    expect((await coffer(['kill', '--config', configFile])).stdout).toMatch(/Stopped cli-agent/);
    const refused = await coffer(['pay', 'demo-weather', '0.10', '--config', configFile]);
    expect(refused.stderr).toMatch(/is stopped: its payments are refused.*\(agent_suspended\)/);
    expect((await coffer(['status', '--config', configFile])).stdout).toMatch(/status\s+STOPPED/);
    const other = await coffer(['kill', 'other-agent', '--config', configFile, '--data-dir', dataDir]);
    expect(other.stdout).toMatch(/Stopped other-agent/);
    const noOwner = await coffer(['kill', '--all', '--config', configFile, '--data-dir', join(dataDir, 'elsewhere')]);
    expect(noOwner.code).toBe(3);
    expect(noOwner.stderr).toMatch(/no running Coffer.*\(coffer_unreachable\)$/m);
    const all = await coffer(['kill', '--all', '--data-dir', dataDir]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/already stopped|Stopped/);
  });

  it("the owner's kill goes as the owner wherever --data-dir is given, even naming the agent this terminal is linked as", async () => {
    // A terminal linked as brake-agent, whose key the owner then replaced (a leaked key).
    const linked = join(dataDir, 'brake-agent.json');
    expect((await coffer(['deploy', 'brake-agent', '--data-dir', dataDir, '--config', linked])).code).toBe(0);
    expect((await coffer(['key', 'brake-agent', '--data-dir', dataDir, '--json'])).code).toBe(0);
    const stopped = await coffer(['kill', 'brake-agent', '--config', linked, '--data-dir', dataDir]);
    expect(stopped.stderr).toBe('');
    expect(stopped.stdout).toBe('Stopped brake-agent: its payments are refused until the owner resumes it.\n');
    expect(stopped.code).toBe(0);
    // Without --data-dir (the data dir named by COFFER_HOME): the replaced key is refused, and the
    // owner's connection file stops it all the same.
    expect((await coffer(['resume', 'brake-agent', '--data-dir', dataDir])).code).toBe(0);
    const byHome = await runCoffer(['kill', 'brake-agent', '--config', linked], { COFFER_HOME: dataDir });
    expect({ code: byHome.code, out: byHome.stdout, err: byHome.stderr }).toEqual({
      code: 0,
      out: 'Stopped brake-agent: its payments are refused until the owner resumes it.\n',
      err: '',
    });
    // Plain `coffer kill` (this terminal's own agent), its key refused: stopped all the same (helper 177: it did nothing).
    expect((await coffer(['resume', 'brake-agent', '--data-dir', dataDir])).code).toBe(0);
    const plain = await runCoffer(['kill', '--config', linked], { COFFER_HOME: dataDir });
    expect({ code: plain.code, out: plain.stdout, err: plain.stderr }).toEqual({
      code: 0,
      out: 'Stopped brake-agent: its payments are refused until the owner resumes it.\n',
      err: '',
    });
    // No owner's connection file here: the refusal says how the owner stops it where Coffer runs.
    const nowhere = await runCoffer(['kill', '--config', linked], { COFFER_HOME: join(dataDir, 'elsewhere') });
    expect(nowhere.code).toBe(1);
    expect(
      nowhere.stderr.endsWith(`; where Coffer runs, the owner stops it: ${shellCommand(['kill', 'brake-agent'])} (unauthorized)\n`),
    ).toBe(true);
    // A linked config that cannot be read does not hold the owner's brake back.
    expect((await coffer(['resume', 'brake-agent', '--data-dir', dataDir])).code).toBe(0);
    const damaged = join(dataDir, 'damaged.json');
    writeFileSync(damaged, '{ not json');
    const despite = await coffer(['kill', 'brake-agent', '--config', damaged, '--data-dir', dataDir]);
    expect({ code: despite.code, out: despite.stdout }).toEqual({
      code: 0,
      out: 'Stopped brake-agent: its payments are refused until the owner resumes it.\n',
    });
    // Nothing named, as the owner: what to name is said (a usage error), nothing is stopped or resumed.
    const unnamed = await coffer(['kill', '--data-dir', dataDir]);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(/^coffer: name the agent to stop, or --all/);
    const unresumed = await coffer(['resume', '--config', linked, '--data-dir', dataDir]);
    expect(unresumed.code).toBe(2);
    expect(unresumed.stderr).toMatch(/^coffer: name the agent to resume, or --all/);
    // Nothing named where no agent is linked (the owner's terminal): the same words, not "no linked agent".
    const bare = await coffer(['resume'], {
      COFFER_CONFIG: join(dataDir, 'no-config-here.json'),
      COFFER_URL: '',
      COFFER_OWNER: '',
      COFFER_AGENT_ID: '',
      COFFER_API_KEY: '',
    });
    expect({ code: bare.code, said: bare.stderr }).toMatchObject({
      code: 2,
      said: expect.stringMatching(/^coffer: name the agent to resume, or --all/),
    });
    // Out of the way of the tests after (an archived agent is never resumed).
    expect((await coffer(['archive', 'brake-agent', '--data-dir', dataDir])).code).toBe(0);
  });

  it('link refuses to replace a linked agent, and to start when its config cannot be written', async () => {
    const exists = await coffer(['link', '--url', serve.url, '--config', configFile]);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toMatch(/already holds a linked agent/);
    const blocked = await coffer(['link', '--url', serve.url, '--config', join(configFile, 'inside-a-file.json')]);
    expect(blocked.code).toBe(1);
    expect(blocked.stdout).not.toMatch(/link\?token=/);
  });

  it('pay --receipt prints the X-Payment value alone, so it composes into a curl header', async () => {
    await coffer(['resume', 'cli-agent', '--data-dir', dataDir]);
    const paid = await coffer(['pay', 'demo-weather', '0.01', '--receipt', '--config', configFile]);
    expect(paid.code).toBe(0);
    expect(paid.stdout).toMatch(/^v1\.[A-Za-z0-9+/=]+\n$/);
    // The value is a whole receipt, as a paid API reads it from X-Payment.
    expect(decodeReceipt(paid.stdout.trim())).toMatchObject({ amount: '0.01', currency: 'USDC' });
  });

  it('a closed stdout (coffer status | head): the command ends quietly, with the status of a closed pipe', async () => {
    for (const args of [['status', '--config', configFile], ['policy', '--config', configFile], ['help'], ['version']]) {
      const closed = await cofferIntoClosedPipe(args);
      expect({ args, ...closed }).toEqual({ args, code: CLOSED_PIPE, stderr: '' });
    }
    // As a shell runs it: the first lines, and not a word on stderr whichever of the two ends first.
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${CLI}" status --config "${configFile}" | head -1`], {
      env: { ...process.env, COFFER_CONFIG: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    shell.stdout.on('data', (chunk) => (out += chunk));
    shell.stderr.on('data', (chunk) => (err += chunk));
    await once(shell, 'exit');
    expect({ out, err }).toEqual({ out: expect.stringMatching(/^Agent cli-agent at http:\/\/\S+, on .*\n$/), err: '' });
  });

  it('status shows what was spent in the last 24 h and local times', async () => {
    const shown = await coffer(['status', '--config', configFile], { TZ: 'Asia/Kolkata' });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/spent\s+0\.0\d+ of 3\.00 USDC in the last 24 h/);
    // A payment made today shows its local time of day (not a UTC ISO stamp).
    expect(shown.stdout).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    const hour = new Date()
      .toLocaleTimeString(undefined, { timeZone: 'Asia/Kolkata', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .slice(0, 2);
    expect(shown.stdout).toMatch(new RegExp(`\\b${hour}:\\d{2}:\\d{2}`));
  });

  it('resume: the owner resumes one agent or all of them (plurals right); the linked agent asks the owner', async () => {
    await coffer(['kill', '--all', '--data-dir', dataDir]);
    const asked = await coffer(['resume', '--config', configFile]);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(/Asked the owner to resume cli-agent \(request apr_/);
    const one = await coffer(['resume', 'other-agent', '--data-dir', dataDir]);
    expect(one.stdout).toMatch(/^Resumed other-agent/);
    const rest = await coffer(['resume', '--all', '--data-dir', dataDir]);
    expect(rest.stdout).toBe('Resumed 1 agent: cli-agent\n');
    expect((await coffer(['resume', '--all', '--data-dir', dataDir])).stdout).toBe('No agent was stopped.\n');
    const stopped = await coffer(['kill', '--all', '--data-dir', dataDir]);
    expect(stopped.stdout).toMatch(/^Stopped 2 agents: /);
    await coffer(['resume', '--all', '--data-dir', dataDir]);
  });

  it('open prints a fresh one-time dashboard link where no browser can be opened', async () => {
    const opened = await coffer(['open', '--data-dir', dataDir]);
    expect(opened.code).toBe(0);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/login\?token=\S+)/.exec(opened.stdout)?.[1];
    expect(url).toBeDefined();
    const signIn = () =>
      fetch(new URL('/v1/session', url).href, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ loginToken: new URL(url!).searchParams.get('token') }),
      });
    expect((await signIn()).status).toBe(200);
    expect((await signIn()).status).toBe(410);
  });

  it('policy: shows each budget now; the linked agent tightens at once and asks the owner to loosen; the owner changes another agent', async () => {
    const set = await coffer([
      'policy',
      '--budget',
      '1/month',
      '--count',
      '30/hour:demo-weather',
      '--expires',
      '2099-12-31',
      '--config',
      configFile,
    ]);
    expect(set.code).toBe(0);
    // What it changed, field by field, before the policy it now has.
    expect(set.stdout).toMatch(
      /^Changed cli-agent's policy: budgets: none → 1\.00 USDC a month; 30 payments in any hour for demo-weather; end: never → the end of 2099-12-31\.\nPolicy of cli-agent\n/,
    );
    expect(set.stdout).toMatch(/budgets\s+1\.00 USDC a month: 0\.0\d spent, 0\.9\d left, starts afresh /);
    expect(set.stdout).toMatch(/30 payments in any hour for demo-weather: \d+ made, \d+ left\n/);
    // The day typed, not the next midnight it is kept as (issue 47, point 3).
    expect(set.stdout).toMatch(/ends\s+at the end of 2099-12-31: every payment is refused after it/);
    expect(set.stdout).toMatch(/warns at\s+80 %, 95 % of a budget/);
    // Loosening (a bigger month) waits for the owner.
    const loosen = await coffer(['policy', '--budget', '5/month', '--count', '30/hour:demo-weather', '--config', configFile]);
    expect(loosen.code).toBe(0);
    expect(loosen.stdout).toMatch(/waits for the owner \(request apr_/);
    // The owner sets another agent's breaker.
    const owned = await coffer(['policy', 'other-agent', '--breaker', '3/10m', '--data-dir', dataDir, '--config', configFile]);
    expect(owned.stdout).toMatch(/breaker\s+stops after 3 refusals within 10 minutes/);
    // No shares: said in words (helper 177: "warns at  never of a budget").
    const quiet = await coffer(['policy', 'other-agent', '--warn-at', 'none', '--yes', '--data-dir', dataDir, '--config', configFile]);
    expect(quiet.stdout, quiet.stderr).toMatch(/^ {2}warns at {2}never: no warning before a budget runs out$/m);
    // `coffer status` shows the budgets too.
    // Its words in the column of the lines around it ("  policy   ...").
    expect((await coffer(['status', '--config', configFile])).stdout).toMatch(/^ {2}budgets {2}1\.00 USDC a month/m);
    // A flag that cannot be read is a usage error (exit 2) that shows the form; a bad value is the server's 400.
    const unreadable = await coffer(['policy', '--budget', '5/fortnight', '--config', configFile]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(/"fortnight" is not a window; one of hour, .*\n[\s\S]*\[--budget AMOUNT\/WINDOW\[:SCOPE\]\]/);
    const past = await coffer(['policy', '--expires', '2020-01-01', '--config', configFile]);
    expect(past.code).toBe(1);
    expect(past.stderr).toMatch(/^coffer: --expires 2020-01-01 is in the past.*\(invalid_policy\)$/m);
    // The owner loosens the linked agent's own policy: with --data-dir it is the owner's change, at once.
    const byOwner = await coffer([
      'policy',
      'cli-agent',
      '--budget',
      'none',
      '--expires',
      'never',
      '--yes',
      '--data-dir',
      dataDir,
      '--config',
      configFile,
    ]);
    // A list replaced whole says what it takes away.
    expect(byOwner.stdout).toMatch(
      /^Changed cli-agent's policy: budgets: 1\.00 USDC a month; 30 payments in any hour for demo-weather → none; end: the end of 2099-12-31 → never\.$/m,
    );
  });

  it("settings: the owner's time zone, read and set through the connection file", async () => {
    const set = await coffer(['settings', '--time-zone', 'Asia/Tokyo', '--data-dir', dataDir]);
    expect(set.stdout).toBe('time zone  Asia/Tokyo (set by you)\n');
    const bad = await coffer(['settings', '--time-zone', 'Mars/Base', '--data-dir', dataDir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not a time zone.*\(invalid_time_zone\)/);
    // A zone typed by another name is kept by its canonical one: said, with what its clock does, so
    // "EST" is not taken for New York's time (it has no daylight saving).
    const est = await coffer(['settings', '--time-zone', 'EST', '--data-dir', dataDir]);
    expect(est.stdout).toBe('time zone  America/Panama (set by you): EST by its canonical name, UTC-5 all year\n');
    const eastern = await coffer(['settings', '--time-zone', 'US/Eastern', '--data-dir', dataDir]);
    expect(eastern.stdout).toBe('time zone  America/New_York (set by you): US/Eastern by its canonical name, UTC-5, and UTC-4 in summer\n');
    const spelled = await coffer(['settings', '--time-zone', 'asia/tokyo', '--data-dir', dataDir]);
    expect(spelled.stdout).toBe('time zone  Asia/Tokyo (set by you)\n');
    const back = await coffer(['settings', '--time-zone', 'machine', '--data-dir', dataDir]);
    expect(back.stdout).toMatch(/^time zone {2}\S+ \(this machine's\)\n$/);
  });

  it('settings: the preferred rail, set, shown while set, refused in words, and set back to none', async () => {
    const set = await coffer(['settings', '--preferred-rail', 'base', '--data-dir', dataDir]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(
      /\nrail {7}Base \(set by you\): where a seller takes Solana and Base, Base pays when the agent's wallet there holds the amount, else the other \(coffer fetch --rail asks for one\)\n$/,
    );
    expect((await coffer(['settings', '--data-dir', dataDir])).stdout).toMatch(/\nrail {7}Base \(set by you\)/);
    // Another word is a usage error, said before Coffer is asked (so also where none runs).
    for (const where of [dataDir, join(dataDir, 'nowhere')]) {
      const bad = await coffer(['settings', '--preferred-rail', 'ethereum', '--data-dir', where]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--preferred-rail is sol, base or none, not "ethereum"/);
    }
    expect((await coffer(['settings', '--data-dir', dataDir])).stdout).toMatch(/\nrail {7}Base \(set by you\)/);
    const none = await coffer(['settings', '--preferred-rail', 'none', '--data-dir', dataDir]);
    expect(none.stdout).toMatch(/\nrail {7}none preferred: .*\(Solana first\)\n$/);
    // None preferred, a plain `coffer settings` still says so where the Base rail is open: a choice there is to make.
    expect((await coffer(['settings', '--data-dir', dataDir])).stdout).toMatch(/\nrail {7}none preferred: .*\(Solana first\)\n/);
    // Setting something else says only that.
    expect((await coffer(['settings', '--time-zone', 'UTC', '--data-dir', dataDir])).stdout).toBe('time zone  UTC (set by you)\n');
    // For scripts, as every owner read: the settings' answer, the Bazaar's under `bazaar`.
    const json = await coffer(['settings', '--preferred-rail', 'base', '--json', '--data-dir', dataDir]);
    expect({ code: json.code, body: JSON.parse(json.stdout) }).toMatchObject({
      code: 0,
      body: { timeZone: 'UTC', timeZoneFrom: 'owner', preferredRail: 'base', bazaar: { state: 'off' } },
    });
    expect((await coffer(['settings', '--preferred-rail', 'none', '--data-dir', dataDir])).code).toBe(0);
  });

  it("status says why an agent's breaker stopped it", async () => {
    await coffer(['policy', 'cli-agent', '--breaker', '2/10m', '--data-dir', dataDir, '--config', configFile]);
    for (let i = 0; i < 2; i += 1) expect((await coffer(['pay', 'demo-weather', '5.00', '--config', configFile])).code).toBe(1);
    const shown = await coffer(['status', '--config', configFile]);
    expect(shown.stdout).toMatch(
      /status\s+STOPPED \(its breaker tripped: 2 refused payments within 10 minutes\): every payment is refused/,
    );
    await coffer(['policy', 'cli-agent', '--breaker', 'none', '--data-dir', dataDir, '--config', configFile]);
    await coffer(['resume', 'cli-agent', '--data-dir', dataDir]);
  });

  it('short on Solana with the amount on Base and no rail asked: the same payment on Base is the first next step, and pays as typed', async () => {
    const baseOnly = join(dataDir, 'base-only.json');
    const deployed = await post('/v1/agents/deploy', { agentId: 'base-only', dailyBudget: '3.00', maxPerPayment: '1.00' });
    await post('/v1/agents/base-only/allocate', { amount: '0.01', rail: 'base' });
    linkedAs(baseOnly, deployed);
    const funding = `the owner funds this agent's wallet: ${shellCommand(['allocate', 'base-only', 'AMOUNT'])}`;
    const refused = await coffer(['pay', 'demo-quotes', '0.01', '--config', baseOnly]);
    expect(refused.code).toBe(1);
    // Coffer's words say it too (helper 189), the next step types the command.
    expect(refused.stderr).toMatch(
      /holds 0\.00 USDC available on Solana, less than 0\.01; the service is paid on Base too, where this wallet holds 0\.01 USDC free: asked with rail "base", it is paid there \(insufficient_funds\)$/m,
    );
    const onBase = shellCommand(['pay', 'demo-quotes', '0.01', '--rail', 'base', '--config', baseOnly]);
    expect(refused.stderr).toContain(`\nnext: ${onBase} pays it on Base, where its wallet holds 0.01 USDC free; or ${funding}\n`);
    // Every flag it was given is carried over: pasted, it is that same payment.
    const flagged = await coffer(['pay', 'demo-quotes', '0.01', '--description', 'a quote', '--receipt', '--config', baseOnly]);
    expect(flagged.stderr).toContain(
      `\nnext: ${shellCommand(['pay', 'demo-quotes', '0.01', '--rail', 'base', '--description', 'a quote', '--receipt', '--config', baseOnly])} pays it on Base`,
    );
    // Asked on Solana by name: the owner's funding alone, as before.
    const asked = await coffer(['pay', 'demo-quotes', '0.01', '--rail', 'sol', '--config', baseOnly]);
    expect(asked.stderr).toContain(`\nnext: ${funding}\n`);
    const paid = await coffer(['pay', 'demo-quotes', '0.01', '--rail', 'base', '--config', baseOnly]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(/^Paid 0\.01 USDC on Base to /m);
    // Base now short too: the owner's funding alone.
    const spent = await coffer(['pay', 'demo-quotes', '0.01', '--config', baseOnly]);
    expect(spent.stderr).toContain(`\nnext: ${funding}\n`);
  });

  it('fetch on Solana, short there, of a 402 payable on Base too: the same fetch with --rail base is the next step (helper 183)', async () => {
    const baseOnly = join(dataDir, 'base-fetch.json');
    const deployed = await post('/v1/agents/deploy', { agentId: 'base-fetch', dailyBudget: '3.00', maxPerPayment: '1.00' });
    await post('/v1/agents/base-fetch/allocate', { amount: '0.05', rail: 'base' });
    linkedAs(baseOnly, deployed);
    const chainId = (await (await fetch(`${serve.url}/v1/health`)).json()).base.chainId;
    // Coffer's own 402, offering Base beside Solana (to the demo API's Base address).
    const paywall = createHttpServer((_req, res) => {
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          amount: '0.01',
          currency: 'USDC',
          recipient: owner.owner,
          network: 'sim',
          base: { recipient: DEMO_BASE_PAY_TO, network: 'sim', chainId },
        }),
      );
    }).listen(0, '127.0.0.1');
    await once(paywall, 'listening');
    try {
      const url = `http://127.0.0.1:${(paywall.address() as AddressInfo).port}/paid`;
      const refused = await coffer(['fetch', url, '--rail', 'sol', '--config', baseOnly]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/\(insufficient_funds\)$/m);
      const onBase = shellCommand(['fetch', url, '--rail', 'base', '--config', baseOnly]);
      expect(refused.stderr).toContain(`\nnext: ${onBase} pays it from its wallet on Base; or the owner funds this agent's wallet`);
      // Base short too: no step that would be refused, the figure said instead (helper 187).
      await post('/v1/agents/base-fetch/return', { rail: 'base', amount: '0.045' });
      const bothShort = await coffer(['fetch', url, '--rail', 'sol', '--config', baseOnly]);
      expect(bothShort.stderr).toMatch(/; on Base, where the 402 is payable too, 0\.005 USDC available \(insufficient_funds\)$/m);
      expect(bothShort.stderr).not.toContain('--rail base pays it');
      // The other way (helper 189): asked on Base, short there, Solana holding it: the same fetch on Solana.
      const solOnly = join(dataDir, 'sol-fetch.json');
      linkedAs(solOnly, await post('/v1/agents/deploy', { agentId: 'sol-fetch', dailyBudget: '3.00', maxPerPayment: '1.00' }));
      await post('/v1/agents/sol-fetch/allocate', { amount: '0.05' });
      const onBaseShort = await coffer(['fetch', url, '--rail', 'base', '--config', solOnly]);
      expect(onBaseShort.stderr).toMatch(/the 402 can be paid on Solana too: ask again with the rail "sol" .*\(insufficient_funds\)$/m);
      const onSol = shellCommand(['fetch', url, '--rail', 'sol', '--config', solOnly]);
      expect(onBaseShort.stderr).toContain(
        `\nnext: ${onSol} pays it from its wallet on Solana; or the owner funds this agent's wallet on Base`,
      );
    } finally {
      paywall.close();
    }
  });

  it('link: an agent funded on Base alone is told to pay on Base, and the printed command pays', async () => {
    const linkedFile = join(dataDir, 'linked-on-base.json');
    const linking = linkInBackground(serve.url, linkedFile);
    const token = (await linking.until(/link\?token=(lnk_[\w-]+)/))?.[1];
    expect(token, linking.output()).toBeDefined();
    const completed = await post(`/v1/link-sessions/${token}/complete`, { agentId: 'linked-on-base', fund: '0.50', fundRail: 'base' });
    expect(completed, JSON.stringify(completed)).toMatchObject({ status: 'completed', agentId: 'linked-on-base' });
    expect(await linking.exited, linking.output()).toBe(0);
    const output = linking.output();
    expect(output).toContain('Its wallet holds 0.00 USDC on Solana and 0.50 USDC on Base.');
    // Its Base account named beside its Solana wallet: the one that holds its money here.
    const balance = await fetch(`${serve.url}/v1/agents/linked-on-base/balance?owner=${owner.owner}`, {
      headers: { authorization: `Bearer ${owner.ownerKey}` },
    });
    const linked = ((await balance.json()) as { wallets: { sol: string; base: string } }).wallets;
    expect(output).toContain(`Linked as agent linked-on-base (wallets ${linked.sol} on Solana, ${linked.base} on Base).\n`);
    const payLine = shellCommand(['pay', 'demo-weather', '0.01', '--rail', 'base', '--config', linkedFile]);
    expect(output).toContain(`\n  ${payLine}\n      pay for a service from this wallet\n`);
    const paid = await coffer(['pay', 'demo-weather', '0.01', '--rail', 'base', '--config', linkedFile]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(/^Paid 0\.01 USDC on Base to /m);
  });
});

describe('coffer help', () => {
  it('`<command> --help` explains that command and runs nothing', async () => {
    for (const command of ['serve', 'pay', 'kill', 'link', 'mcp']) {
      const result = await coffer([command, '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toMatch(new RegExp(`^usage:\\n  coffer ${command}`));
      // Only that command's lines, not the whole text.
      expect(result.stdout, command).not.toMatch(/environment:/);
    }
    // `coffer help <command>` says the same; the whole text names the Base rail's variables too.
    const one = await coffer(['help', 'demo-x402']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^usage:\n {2}coffer demo-x402/);
    expect(one.stdout).not.toMatch(/environment:/);
    const typo = await coffer(['help', 'demo-x4022']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^coffer: unknown command "demo-x4022". Did you mean "coffer demo-x402"\?/);
    const all = await coffer(['help']);
    expect(all.stdout).toMatch(/COFFER_BASE_RPC \(the Base rail's EVM RPC, or off\)/);
    expect(all.stdout).toMatch(/COFFER_BASE_USDC/);
    // The agent's variables, which a missing config's refusal names, are listed too.
    expect(all.stdout).toMatch(/COFFER_CONFIG \(its config file\), or COFFER_URL, COFFER_OWNER, COFFER_AGENT_ID\s+and COFFER_API_KEY/);
  });

  it('a flag value the engine and demo commands cannot use is a usage error (exit 2) with the usage, nothing started', async () => {
    const cases: [string[], RegExp][] = [
      [['serve', '--port', 'abc'], /^coffer: --port must be a number from 0 to 65535 \(got "abc"\)$/m],
      [['demo-x402', '--port', '70000'], /^coffer: --port must be a number from 0 to 65535 \(got "70000"\)$/m],
      [['demo-api', '--port', '-1'], /^coffer: --port must be a number from 0 to 65535 \(got "-1"\)$/m],
      [
        ['demo-api', '--network', 'base'],
        /^coffer: --network must be sim, devnet, mainnet or an http\(s\) RPC URL \(got "base"\).*Base is a rail/m,
      ],
      [['start', '--network', 'ftp://x'], /^coffer: --network URL must be http or https \(got "ftp:\/\/x"\)$/m],
      [
        ['demo-api', '--facilitator', 'not-a-url'],
        /^coffer: --facilitator is not a URL: name the facilitator as https:\/\/host\/path .*\(got "not-a-url"\)$/m,
      ],
      // The facilitator says whether a payment is good: over plain http, anyone on the way could say yes.
      [
        ['demo-api', '--facilitator', 'http://facilitator.example.com'],
        /^coffer: --facilitator must be an https URL \(plain http only on this machine: 127\.0\.0\.1, localhost, \[::1\]\) \(got "http:\/\/facilitator\.example\.com"\)$/m,
      ],
    ];
    const parent = tempDataDir();
    for (const [args, said] of cases) {
      const result = await coffer([...args, '--data-dir', join(parent, 'never-made')]);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(said);
      expect(result.stderr).toMatch(new RegExp(`usage:\\n {2}coffer ${args[0]}`));
    }
    expect(existsSync(join(parent, 'never-made'))).toBe(false);
    rmSync(parent, { recursive: true, force: true });
  });

  it('a damaged config or connection file is named, with what is wrong with it', async () => {
    const parent = tempDataDir();
    try {
      const config = join(parent, 'agent.json');
      writeFileSync(config, '{garbage');
      const paid = await coffer(['pay', 'demo-weather', '0.01', '--config', config]);
      expect(paid.code).toBe(1);
      expect(paid.stderr).toMatch(
        new RegExp(`^coffer: ${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a Coffer agent config: it is not JSON \\(`, 'm'),
      );
      writeFileSync(join(parent, 'connection.json'), '{garbage');
      const status = await coffer(['status', '--data-dir', parent]);
      expect(status.code).toBe(3);
      expect(status.stderr).toMatch(/the connection file \S+connection\.json is damaged .*\(coffer_unreachable\)$/m);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('a flag given twice is a usage error (exit 2), not the last one silently: nothing is asked of Coffer', async () => {
    for (const args of [
      ['allocate', 'someone', '0.01', '--rail', 'base', '--rail', 'sol'],
      ['deploy', 'twice', '--fund', '0.01', '--fund', '0.02'],
      ['pay', 'demo-weather', '0.01', '--rail=base', '--rail', 'sol'],
    ]) {
      const result = await coffer(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`^coffer: option --${args.includes('--fund') ? 'fund' : 'rail'} is given twice: give it once$`, 'm'),
      );
    }
    // A flag meant to repeat still does.
    const headers = await coffer([
      'fetch',
      'http://127.0.0.1:9/x',
      '--header',
      'A: 1',
      '--header',
      'B: 2',
      '--config',
      '/nonexistent.json',
    ]);
    expect(headers.stderr).not.toMatch(/given twice/);
  });

  it('a mistyped flag is a usage error (exit 2) that names the flag and shows the usage', async () => {
    const result = await coffer(['status', '--confg', 'x.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^coffer: unknown option --confg for coffer status \(did you mean --config\?\)$/m);
    expect(result.stderr).toMatch(/usage:\n {2}coffer status \[--config FILE\]/);
    // Far from every option: nothing is guessed.
    expect((await coffer(['status', '--zzzzzz'])).stderr).toMatch(/^coffer: unknown option --zzzzzz for coffer status$/m);
    // A long option typed with one dash is named as typed, not as its first letter (helper 171: "-j").
    expect((await coffer(['status', '-json'])).stderr).toMatch(
      /^coffer: unknown option -json for coffer status \(did you mean --json\?\)$/m,
    );
    // A URL typed without its scheme is a usage error that says the URL meant, not a host "unreachable".
    for (const typed of ['127.0.0.1:7403/weather?city=Lisbon', 'localhost:7403/weather']) {
      const bare = await coffer(['fetch', typed]);
      expect({ code: bare.code, said: bare.stderr }).toMatchObject({
        code: 2,
        said: expect.stringContaining(`coffer: "${typed}" is not an http or https URL: did you mean http://${typed}?\n`),
      });
    }
    // A host off this machine is meant over https (the paid APIs an agent meets are), not http.
    for (const typed of ['api.example.com/weather', '[::1]:7403/weather', '0.0.0.0:7403/weather']) {
      const scheme = typed.startsWith('api.') ? 'https' : 'http';
      const bare = await coffer(['fetch', typed]);
      expect({ code: bare.code, said: bare.stderr }).toMatchObject({
        code: 2,
        said: expect.stringContaining(`coffer: "${typed}" is not an http or https URL: did you mean ${scheme}://${typed}?\n`),
      });
    }
    // A link's choices given with a request's id are said, not left unused.
    const linkFlags = await coffer(['approve', 'apr_x', '--fund', '5', '--rail', 'base']);
    expect({ code: linkFlags.code, said: linkFlags.stderr }).toMatchObject({
      code: 2,
      said: expect.stringContaining('coffer: --fund is for a link URL; a request (apr_x) is carried out as it asked\n'),
    });
    // A link's amount mistyped: said as deploy's are, before any Coffer is asked (it was the server's
    // refusal, exit 1, naming the API's field).
    const mistyped = await coffer(['approve', 'http://127.0.0.1:9/link/lnk_x', '--code', '123456', '--daily', 'abc']);
    expect({ code: mistyped.code, said: mistyped.stderr }).toMatchObject({
      code: 2,
      said: expect.stringMatching(/^coffer: --daily abc: the amount must be .*, such as 5 or 0\.50\n/),
    });
    // Nothing is suggested that would be no URL either.
    const words = await coffer(['fetch', 'not a url']);
    expect({ code: words.code, said: words.stderr }).toMatchObject({
      code: 2,
      said: expect.stringContaining('coffer: "not a url" is not an http or https URL (one starts with http:// or https://)\n'),
    });
    // Another scheme's URL is named as one, not given an http:// before its own (helper 177: "https://ftp://x").
    const ftp = await coffer(['fetch', 'ftp://example.com/file']);
    expect({ code: ftp.code, said: ftp.stderr }).toMatchObject({
      code: 2,
      said: expect.stringContaining('coffer: "ftp://example.com/file" is not an http or https URL (one starts with http:// or https://)\n'),
    });
    // A --method that is no HTTP method is a usage error, nothing called (it was "could not be reached").
    const method = await coffer(['fetch', 'http://127.0.0.1:9/x', '--method', 'GE T', '--config', '/nonexistent']);
    expect({ code: method.code, said: method.stderr }).toMatchObject({
      code: 2,
      said: expect.stringContaining('coffer: --method "GE T" is no HTTP method (GET, POST, PUT, DELETE, …)\n\nusage:\n'),
    });
    // A --header no request can carry is a usage error too (it exited 1, without the usage), before any agent is read.
    for (const header of ['Authorization Bearer x', 'Bad Name: x', ': x']) {
      const bad = await coffer(['fetch', 'http://127.0.0.1:9/x', '--header', header, '--config', '/nonexistent']);
      expect({ code: bad.code, said: bad.stderr }).toMatchObject({
        code: 2,
        said: expect.stringContaining(`coffer: --header must be "Name: value", a header a request can carry (got "${header}")\n\nusage:\n`),
      });
    }
    // A GET with a body is no request fetch sends: said so, not as a host "unreachable".
    const getWithBody = await coffer(['fetch', 'http://127.0.0.1:9/x', '--method', 'get', '--data', '{}']);
    expect({ code: getWithBody.code, said: getWithBody.stderr }).toMatchObject({
      code: 2,
      said: expect.stringContaining('coffer: a GET request carries no body: leave --data out, or send it with --method POST or PUT\n'),
    });
  });

  it('a mistyped command says what was meant; a missing argument, an extra one, or kill <agent> --all shows the usage (exit 2)', async () => {
    const typo = await coffer(['stauts']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^coffer: unknown command "stauts". Did you mean "coffer status"\?/);
    expect(typo.stderr).toMatch(/usage:\n {2}coffer status/);
    // The usage lines and where the rest is: the error stays in sight, not above a paragraph.
    expect(typo.stderr).toMatch(/\[--json\]\n\nSee "coffer help status" for what it does and each option\.\n$/);
    const missing = await coffer(['fetch']);
    expect(missing.stderr).toBe(
      `coffer: which URL to fetch?\n\nusage:\n  coffer fetch <url> [--method M] [--header 'Name: value']... [--data BODY] [--rail sol|base] [--approval ID] [--config FILE]\n\nSee "coffer help fetch" for what it does and each option.\n`,
    );
    // Each form of a command, each on its lines: the synopsis runs over its own lines.
    const policy = await coffer(['policy', '--budget', 'x']);
    expect(policy.stderr).toContain('  coffer policy [<agent>] [--budget AMOUNT/WINDOW[:SCOPE]]...');
    expect(policy.stderr).toContain(
      '                 [--what-if] [--yes] [--config FILE] [--data-dir DIR] [--json]\n\nSee "coffer help policy"',
    );
    const backup = await coffer(['backup', 'schedule', '--every', '2']);
    expect(backup.stderr).toMatch(/usage:\n {2}coffer backup \[--data-dir DIR\] \[--json\]\n {2}coffer backup --out FILE/);
    expect(backup.stderr).not.toContain('where the backups stand');
    for (const [args, said] of [
      [['pay'], 'which service to pay?'],
      [['pay', 'demo-weather'], 'how much to pay?'],
      [['pay', 'demo-weather', '0.01', 'more'], 'coffer pay takes a service and an amount, not "more"'],
      [['kill', 'some-agent', '--all'], 'name one agent or --all, not both'],
      [['resume', 'a', 'b'], 'coffer resume takes one agent at a time (or --all), not also "b"'],
      [['pay', 'demo-weather', '0.01', '--frobnicate'], 'unknown option --frobnicate for coffer pay'],
      [['pay', 'demo-weather', '0.01', '--nonce'], 'option --nonce needs a value'],
      // A value that looks like a flag but is a negative number is the flag's value, refused in words naming the flag.
      [['policy', '--budget', '-5/day'], '--budget -5/day: the amount must be a positive decimal of USDC'],
      [['policy', '--budget=-5/day'], '--budget -5/day: the amount must be a positive decimal of USDC'],
      [['policy', '--daily', '-5'], '--daily -5: the amount must be a positive decimal of USDC'],
      [['policy', 'some-agent', '--max', '-.5'], '--max -.5: the amount must be a positive decimal of USDC'],
      [['policy', '--ask-above', '-1'], '--ask-above -1: the amount must be a decimal of USDC, 0 or more'],
    ] as const) {
      const result = await coffer([...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(`coffer: ${said}`);
      expect(result.stderr, args.join(' ')).toMatch(new RegExp(`usage:\\n {2}coffer ${args[0]} `));
      expect(result.stderr, args.join(' ')).not.toMatch(/To specify a positional argument/);
    }
  });

  it('an unknown command shows the whole usage and exits 2', async () => {
    const result = await coffer(['fly']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command "fly"/);
    expect(result.stderr).toMatch(/environment:/);
  });
});

describe('coffer link across a restart of the server', () => {
  it('keeps waiting while the server restarts, and writes the config once the owner approves afterwards', async () => {
    const dataDir = tempDataDir();
    const configFile = join(dataDir, 'linked.json');
    const port = String(
      await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address() as { port: number };
          probe.close(() => resolve(free));
        });
      }),
    );
    let serve = await spawnServe(dataDir, { COFFER_PORT: port });
    const linking = linkInBackground(serve.url, configFile);
    try {
      const token = (await linking.until(/link\?token=(lnk_[\w-]+)/))?.[1];
      expect(token, linking.output()).toBeDefined();
      serve.child.kill('SIGTERM');
      await serve.exited;
      expect(await linking.until(/not answering .* still waiting/), linking.output()).not.toBeNull();
      serve = await spawnServe(dataDir, { COFFER_PORT: port });
      const completed = await ownerPost(
        serve,
        JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')),
        `/v1/link-sessions/${token}/complete`,
        {
          agentId: 'survivor',
        },
      );
      expect(completed, JSON.stringify(completed)).toMatchObject({ status: 'completed', agentId: 'survivor' });
      expect(await linking.exited).toBe(0);
      expect(linking.output()).toMatch(/Linked as agent survivor/);
      expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({ agentId: 'survivor', url: serve.url });
    } finally {
      linking.child.kill();
      serve.child.kill('SIGTERM');
      await serve.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
