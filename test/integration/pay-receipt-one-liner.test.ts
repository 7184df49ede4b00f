/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { localTime } from '../../server/cli/local-time.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getBase58Decoder } from '@solana/kit';
import { fundedAgent, micro, tempDataDir } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { close, listen } from '../helpers/http-server.js';
import { CLI, json, ownerPost, runCoffer, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { writeAgentConfig } from '../../server/linked-agent/agent-config.js';
import { shellCommand } from '../../server/boot/cli-invocation.js';
import { decodeReceipt, encodeReceipt, receiptProofMessage } from '../../server/wire/receipts.js';
import { createDemoApi } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { cofferTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import type { TransferLookup } from '../../server/core/ports/chain.js';

/** `coffer` as the spawned command says it: the word where the one on PATH is this package, else node and the script. */
const COFFER = shellCommand([]);

const DEMO_PAY_TO = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';

/** `coffer demo-api` as a process beside the server of `dataDir`; its URL once it listens. */
async function startDemoApi(dataDir: string): Promise<{ child: ChildProcess; url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'demo-api', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`demo-api exited with ${code}`)));
  });
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(firstLine)![1]!;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The one-liner of docs/CLI.md (`coffer pay`) and docs/X402.md, run by a shell as written:
 *   curl -H "X-Payment: $(npx coffer pay demo-weather 0.01 --receipt)" http://127.0.0.1:7403/weather?city=Lisbon
 * with `npx coffer` being this checkout's CLI and the demo API's URL the one the registry lists.
 * Answers curl's status code and body (or, where no curl is installed, the same request by fetch
 * with the header the shell's `$( )` produced).
 */
function runOneLiner(weatherUrl: string, env: Record<string, string>): Promise<{ status: number; body: any }> {
  const shellEnv = { ...process.env, COFFER_NO_BROWSER: '1', ...env, COFFER_CLI: CLI, WEATHER_URL: weatherUrl };
  const hasCurl = spawnSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' }).status === 0;
  const script = hasCurl
    ? `curl -s -w '\\n%{http_code}' -H "X-Payment: $(node "$COFFER_CLI" pay demo-weather 0.01 --receipt)" "$WEATHER_URL"`
    : `printf '%s' "$(node "$COFFER_CLI" pay demo-weather 0.01 --receipt)"`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { env: shellEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('exit', async () => {
      try {
        if (hasCurl) {
          const newline = stdout.lastIndexOf('\n');
          resolve({ status: Number(stdout.slice(newline + 1)), body: JSON.parse(stdout.slice(0, newline)) });
        } else {
          const response = await fetch(weatherUrl, { headers: { 'x-payment': stdout } });
          resolve({ status: response.status, body: await response.json() });
        }
      } catch (error) {
        reject(new Error(`the one-liner did not answer JSON (${(error as Error).message}): ${stdout} ${stderr}`));
      }
    });
  });
}

describe("the docs' CLI one-liner buys what it pays for", () => {
  const dataDir = tempDataDir();
  const configFile = join(dataDir, 'agent.json');
  let serve: ServeProcess;
  let owner: { owner: string; ownerKey: string };
  let wallet: string;
  const post = (path: string, body: unknown) => ownerPost(serve, owner, path, body);
  /** An owner's GET, its answer's body. */
  const ownerGet = (path: string) =>
    json(
      fetch(`${serve.url}${path}${path.includes('?') ? '&' : '?'}owner=${owner.owner}`, {
        headers: { authorization: `Bearer ${owner.ownerKey}` },
      }),
    );
  const balance = async () =>
    (
      await json(
        fetch(`${serve.url}/v1/agents/one-liner/balance?owner=${owner.owner}`, {
          headers: { authorization: `Bearer ${owner.ownerKey}` },
        }),
      )
    ).balance as string;

  beforeAll(async () => {
    serve = await spawnServe(dataDir);
    owner = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    const deployed = await post('/v1/agents/deploy', { agentId: 'one-liner', dailyBudget: '1.00', maxPerPayment: '0.10' });
    await post('/v1/agents/one-liner/allocate', { amount: '0.50' });
    wallet = deployed.agent.walletAddress;
    writeAgentConfig(configFile, {
      agentId: 'one-liner',
      walletAddress: wallet,
      apiKey: deployed.apiKey,
      linkedAt: new Date().toISOString(),
      owner: owner.owner,
      url: serve.url,
    });
  });
  afterAll(async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('pays 0.01 with `coffer pay demo-weather 0.01 --receipt` and the demo API answers the weather, once, across its restart', async () => {
    let demo = await startDemoApi(dataDir);
    try {
      // The registry lists the demo API where it runs: the one-liner's URL.
      const service = await json(fetch(`${serve.url}/v1/services/demo-weather`));
      expect(service.endpoint).toBe(`GET ${demo.url}/weather?city={city}`);
      expect(service.pricePerCall).toBe('0.01');
      const weatherUrl = `${demo.url}/weather?city=Lisbon`;

      const answer = await runOneLiner(weatherUrl, { COFFER_CONFIG: configFile });
      expect(answer.body).toMatchObject({ city: 'Lisbon', paid: { amount: '0.01', by: wallet } });
      expect(answer.status).toBe(200);
      expect(answer.body.forecast).toHaveLength(3);
      expect(await balance()).toBe('0.49');

      // The receipt bought one answer: the same receipt again, on this route or another of the same
      // API, is refused with fresh terms, and stays refused after the API restarts.
      const paid = await runCoffer(['pay', 'demo-weather', '0.01', '--receipt'], { COFFER_CONFIG: configFile });
      expect(paid.code).toBe(0);
      const receipt = paid.stdout.trim();
      expect((await fetch(weatherUrl, { headers: { 'x-payment': receipt } })).status).toBe(200);
      const again = await fetch(weatherUrl, { headers: { 'x-payment': receipt } });
      expect(again.status).toBe(402);
      expect(await json(again)).toMatchObject({ code: 'receipt_already_used', amount: '0.01' });
      expect((await json(fetch(`${demo.url}/quote?symbol=SOL`, { headers: { 'x-payment': receipt } }))).code).toBe('receipt_already_used');
      await demo.stop();
      demo = await startDemoApi(dataDir);
      const afterRestart = await fetch(`${demo.url}/weather?city=Lisbon`, { headers: { 'x-payment': receipt } });
      expect(afterRestart.status).toBe(402);
      expect((await json(afterRestart)).code).toBe('receipt_already_used');
    } finally {
      await demo.stop();
    }
  });

  it('coffer pay held for the owner: says on stderr what it waits for, waits, and prints the receipt once approved', async () => {
    await post('/v1/agents/one-liner/policy', { askAbove: '0' });
    try {
      const before = await balance();
      const paying = runCoffer(['pay', 'demo-weather', '0.01', '--receipt'], { COFFER_CONFIG: configFile });
      let waiting: any[] = [];
      for (let i = 0; i < 200 && waiting.length === 0; i += 1) {
        waiting = ((await ownerGet('/v1/approvals?status=pending')).approvals as any[]).filter((a) => a.agentId === 'one-liner');
        if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(waiting).toHaveLength(1);
      expect(await balance()).toBe(before);
      // `coffer status` says the held payment apart from what was paid: it counts, unpaid.
      const heldNow = await runCoffer(['status'], { COFFER_CONFIG: configFile });
      expect(heldNow.stdout).toMatch(/spent\s+\d+\.\d+ of 1\.00 USDC in the last 24 h \(0\.01 of it held for the owner's yes, not paid\)/);
      await post(`/v1/approvals/${waiting[0].approvalId}/approve`, {});
      const paid = await paying;
      expect((await runCoffer(['status'], { COFFER_CONFIG: configFile })).stdout).not.toMatch(/held for the owner's yes/);
      expect(paid.code, paid.stderr).toBe(0);
      expect(paid.stderr).toMatch(
        new RegExp(
          `Waiting for the owner's yes to 0\\.01 USDC on Solana for demo-weather \\(.*\\): request ${waiting[0].approvalId}, until .*Approvals page \\(and the tray's menu, where Coffer runs as the desktop app\\)\\.$`,
          'm',
        ),
      );
      // The owner's commands typed as this shell runs coffer, as the agent's own are.
      expect(paid.stderr).toContain(
        `The owner decides with ${COFFER} approve ${waiting[0].approvalId} (or ${COFFER} deny ${waiting[0].approvalId}), or in`,
      );
      expect(decodeReceipt(paid.stdout.trim())).toMatchObject({ paymentId: waiting[0].paymentId, amount: '0.01' });
      expect(await balance()).toBe((Number(before) - 0.01).toFixed(2));
    } finally {
      await post('/v1/agents/one-liner/policy', { askAbove: null });
    }
  });

  it.each([
    ['coffer pay', async () => ({ args: ['pay', 'demo-weather', '0.01', '--receipt', '--config', configFile], stop: async () => {} })],
    [
      'coffer fetch',
      async () => {
        const demo = await startDemoApi(dataDir);
        return { args: ['fetch', `${demo.url}/weather?city=Lisbon&days=2`], stop: () => demo.stop() };
      },
    ],
  ])('%s held and interrupted: its request is withdrawn, so a yes after pays nothing no one would present', async (_command, command) => {
    await post('/v1/agents/one-liner/policy', { askAbove: '0' });
    const { args, stop } = await command();
    try {
      const before = await balance();
      // The agent's config named on the command line for a pay, by COFFER_CONFIG for a fetch.
      const paying = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, COFFER_CONFIG: args[0] === 'pay' ? '' : configFile, COFFER_NO_BROWSER: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      paying.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => paying.once('exit', (code) => resolve(code)));
      let waiting: any[] = [];
      for (let i = 0; i < 200 && (waiting.length === 0 || !stderr.includes('Waiting')); i += 1) {
        waiting = ((await ownerGet('/v1/approvals?status=pending')).approvals as any[]).filter((a) => a.agentId === 'one-liner');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(waiting).toHaveLength(1);
      // Twice, as a Ctrl-C under npm arrives (the terminal's, and npm's forwarded): the second must not cut the withdrawal short.
      paying.kill('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 10));
      paying.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toMatch(new RegExp(`interrupted: withdrew request ${waiting[0].approvalId}; nothing was paid`));
      // Each says how to pick its request up, should it be killed outright (no interrupt then).
      // As typed in a shell: the URL quoted (its & would end the command there, and a plain fetch
      // after it ask and pay anew), the agent's config named however this shell chose it (the line
      // is pasted into another, without its COFFER_CONFIG).
      // Until when: a fetch's request ends with the seller's terms; a pay's receipt is taken for 300 s after it lands.
      expect(stderr).toContain(
        args[0] === 'fetch'
          ? `Stopped outright meanwhile, ${COFFER} fetch '${args[1]}' --approval ${waiting[0].approvalId} --config ${configFile} picks it up, until ${localTime(waiting[0].expiresAt)}.`
          : `Stopped outright meanwhile, ${COFFER} pay --approval ${waiting[0].approvalId} --config ${configFile} picks it up (soon: a Coffer paywall takes a receipt for 300 s after it lands, by default).`,
      );
      // Its words alone: not also the wait's failure, which the withdrawal ended.
      expect(stderr).not.toMatch(/\(approval_withdrawn\)/);
      expect(await ownerGet(`/v1/approvals/${waiting[0].approvalId}`)).toMatchObject({ status: 'withdrawn' });
      expect((await post(`/v1/approvals/${waiting[0].approvalId}/approve`, {})).code).toBe('approval_decided');
      expect(await balance()).toBe(before);
    } finally {
      await stop();
      await post('/v1/agents/one-liner/policy', { askAbove: null });
    }
  });

  it('coffer pay held, and the agent stopped meanwhile: the request withdrawn, and how to learn why and ask for a resume', async () => {
    await post('/v1/agents/one-liner/policy', { askAbove: '0' });
    const before = await balance();
    const paying = spawn(process.execPath, [CLI, 'pay', 'demo-weather', '0.01', '--config', configFile], {
      env: { ...process.env, COFFER_CONFIG: '', COFFER_NO_BROWSER: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    paying.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => paying.once('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 200 && !stderr.includes('Waiting'); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stderr).toContain('Waiting');
      expect((await post('/v1/agents/one-liner/kill', {})).status).toBe('suspended');
      expect(await exited).toBe(1);
      expect(stderr).toMatch(/\(approval_withdrawn\)\n/);
      // What it cannot know for sure (another of its processes may have taken the request back), its status says.
      expect(stderr).toContain(
        `next: ${COFFER} status --config ${configFile} says whether this agent was stopped (then ${COFFER} resume --config ${configFile} asks the owner to resume it); else ask for the payment anew, without --approval\n`,
      );
      expect(await balance()).toBe(before);
    } finally {
      paying.kill('SIGKILL');
      await post('/v1/agents/one-liner/resume', {});
      await post('/v1/agents/one-liner/policy', { askAbove: null });
    }
  });

  it('coffer fetch --approval picks up the request a killed fetch left waiting: the yes paid once, its receipt presented', async () => {
    const demo = await startDemoApi(dataDir);
    await post('/v1/agents/one-liner/policy', { askAbove: '0' });
    try {
      const before = await balance();
      const url = `${demo.url}/weather?city=Oslo`;
      // The killed fetch's request: held for the seller's terms, then approved with no one waiting.
      const terms = await json(fetch(url));
      const config = JSON.parse(readFileSync(configFile, 'utf8')) as { apiKey: string };
      const held = await json(
        fetch(`${serve.url}/v1/agents/one-liner/pay?owner=${owner.owner}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            service: 'demo-weather',
            amount: terms.amount,
            currency: 'USDC',
            recipient: terms.recipient,
            nonce: terms.nonce,
          }),
        }),
      );
      expect(held.approvalId).toMatch(/^apr_/);
      await post(`/v1/approvals/${held.approvalId}/approve`, {});
      const fetched = await runCoffer(['fetch', url, '--approval', held.approvalId], { COFFER_CONFIG: configFile });
      expect(fetched.code, fetched.stderr).toBe(0);
      expect(JSON.parse(fetched.stdout)).toMatchObject({ city: 'Oslo' });
      expect(fetched.stderr).toContain(
        `Paid 0.01 USDC on Solana under request ${held.approvalId} (Coffer receipt, ${held.paymentId}, confirmed`,
      );
      expect(await balance()).toBe((Number(before) - 0.01).toFixed(2));
      const unknown = await runCoffer(['fetch', url, '--approval', 'apr_none0000000000'], { COFFER_CONFIG: configFile });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/Coffer paid nothing under request apr_none0000000000 for this call: no approval/);
      const bad = await runCoffer(['fetch', url, '--approval', 'yes'], { COFFER_CONFIG: configFile });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--approval takes a request's id \(apr_…\), not "yes"/);
    } finally {
      await post('/v1/agents/one-liner/policy', { askAbove: null });
      await demo.stop();
    }
  });

  it('coffer pay --approval picks up the request a killed pay left waiting: the receipt its yes paid, waited for, never paid again', async () => {
    await post('/v1/agents/one-liner/policy', { askAbove: '0' });
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as { apiKey: string };
    // What a `coffer pay demo-weather 0.01` killed outright left: its request, waiting for the owner.
    const askToPay = () =>
      json(
        fetch(`${serve.url}/v1/agents/one-liner/pay?owner=${owner.owner}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ service: 'demo-weather', amount: '0.01', currency: 'USDC', description: 'coffer pay' }),
        }),
      );
    try {
      const before = await balance();
      const held = await askToPay();
      expect(held.approvalId).toMatch(/^apr_/);
      // Picked up while it waits: said so, waited for, and the receipt printed once the owner says yes.
      let said = '';
      const pickingUp = runCoffer(
        ['pay', '--approval', held.approvalId, '--receipt'],
        { COFFER_CONFIG: configFile },
        undefined,
        (stderr) => {
          said = stderr;
        },
      );
      // The owner says yes once the command waits (a fixed pause let a slow machine's yes come first).
      await vi.waitFor(() => expect(said).toMatch(/Waiting for the owner's yes/), { timeout: 30_000, interval: 50 });
      expect(await balance()).toBe(before);
      await post(`/v1/approvals/${held.approvalId}/approve`, {});
      const picked = await pickingUp;
      expect(picked.code, picked.stderr).toBe(0);
      expect(picked.stderr).toMatch(new RegExp(`Waiting for the owner's yes .*request ${held.approvalId}`));
      expect(decodeReceipt(picked.stdout.trim())).toMatchObject({ paymentId: held.paymentId, amount: '0.01' });
      expect(await balance()).toBe((Number(before) - 0.01).toFixed(2));
      // Asked again once paid, the full command line with --approval: the same payment's words, nothing paid again.
      const again = await runCoffer(['pay', 'demo-weather', '0.010', '--approval', held.approvalId], { COFFER_CONFIG: configFile });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`Paid 0.01 USDC on Solana to `);
      expect(again.stdout).toContain(`for demo-weather under request ${held.approvalId} (${held.paymentId}, transaction `);
      expect(await balance()).toBe((Number(before) - 0.01).toFixed(2));
      // Another payment's terms named with it: refused, nothing waited for or paid.
      const other = await runCoffer(['pay', 'demo-weather', '0.02', '--approval', held.approvalId], { COFFER_CONFIG: configFile });
      expect(other.code).toBe(1);
      expect(other.stderr).toMatch(
        new RegExp(`request ${held.approvalId} is not this payment: it pays 0\\.01 USDC for demo-weather .*\\(approval_mismatch\\)`),
      );
      // A request denied: said, nothing paid.
      const denied = await askToPay();
      await post(`/v1/approvals/${denied.approvalId}/deny`, {});
      const refused = await runCoffer(['pay', '--approval', denied.approvalId], { COFFER_CONFIG: configFile });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`request ${denied.approvalId} was denied by the owner; nothing was paid (payment_denied)`);
      expect(await balance()).toBe((Number(before) - 0.01).toFixed(2));
      // A service and no amount, or an id that is none: a usage error.
      const half = await runCoffer(['pay', 'demo-weather', '--approval', held.approvalId], { COFFER_CONFIG: configFile });
      expect(half.code).toBe(2);
      expect(half.stderr).toMatch(/with --approval, name both the service and the amount, or neither/);
      const bad = await runCoffer(['pay', '--approval', 'yes'], { COFFER_CONFIG: configFile });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--approval takes a request's id \(apr_…\), not "yes"/);
    } finally {
      await post('/v1/agents/one-liner/policy', { askAbove: null });
    }
  });

  it('a pay without a nonce below the listed price is refused before any money moves', async () => {
    const before = await balance();
    const cheap = await runCoffer(['pay', 'demo-weather', '0.005', '--receipt'], { COFFER_CONFIG: configFile });
    expect(cheap.code).toBe(1);
    expect(cheap.stdout).toBe('');
    expect(cheap.stderr).toMatch(/0\.005.*0\.01.*\(price_below_registry\)$/m);
    expect(await balance()).toBe(before);
    // With the nonce of a seller's 402 the seller's terms decide (its nonce names its price).
    const withNonce = await runCoffer(['pay', 'demo-weather', '0.005', '--nonce', 'seller-terms', '--receipt'], {
      COFFER_CONFIG: configFile,
    });
    expect(withNonce.code).toBe(0);
  });

  it("a pay below the price a Coffer paywall's nonce names is refused before any money moves (helper 174)", async () => {
    // A 402 whose amount was lowered on its way (its nonce still names the paywall's price): the
    // paywall refuses the receipt of less (amount_too_small), so a payment would buy nothing.
    const demo = await startDemoApi(dataDir);
    try {
      const asked = await fetch(`${demo.url}/weather?city=Lisbon`);
      expect(asked.status).toBe(402);
      const terms = (await asked.json()) as { amount: string; nonce: string };
      expect(terms.amount).toBe('0.01');
      const before = await balance();
      const cheap = await runCoffer(['pay', 'demo-weather', '0.005', '--nonce', terms.nonce, '--receipt'], { COFFER_CONFIG: configFile });
      expect(cheap.code).toBe(1);
      expect(cheap.stdout).toBe('');
      expect(cheap.stderr).toMatch(/0\.005 USDC is less than the 0\.01 USDC .*\(amount_below_terms\)$/m);
      expect(await balance()).toBe(before);
    } finally {
      await demo.stop();
    }
  });
});

describe("a receipt without a nonce at Coffer's paywall", () => {
  const t = useCoffer();
  let lookup: TransferLookup;
  let store: PaywallStore;
  let api: { url: string; server: Server };

  beforeAll(async () => {
    lookup = await cofferTransferLookup(t.url);
    store = openPaywallStore(join(t.dataDir, 'paywall.db'));
    api = await listen(createDemoApi({ lookup, store }));
  });
  afterAll(async () => {
    await close(api.server);
    store.close();
  });

  const get = async (path: string, receipt: string, server = api) => {
    const response = await fetch(`${server.url}${path}`, { headers: { 'x-payment': receipt } });
    return { status: response.status, body: await json(response) };
  };
  /** The payer's own signature over edited claims: a second, genuine receipt for the same transaction. */
  const resign = async (header: string, edit: Record<string, string>) => {
    const { proof: _proof, ...claims } = { ...decodeReceipt(header)!, ...edit };
    const signed = await t.coffer.engine.ctx.vault.signMessage(claims.payer, receiptProofMessage(claims));
    return encodeReceipt({ ...claims, proof: getBase58Decoder().decode(signed) });
  };

  it('is accepted once, bound to its transaction: another receipt for the same transaction is refused', async () => {
    const agent = await fundedAgent(t, 'no-nonce', '1.00');
    const paid = await payUsdc(t, 'no-nonce', agent.apiKey, { service: 'demo-weather', amount: '0.01' });
    expect(paid.status).toBe(200);
    expect(paid.body.memo).toBe(paid.body.paymentId);
    const answered = await get('/weather?city=Kyoto', paid.body.xPaymentHeader);
    expect(answered.status).toBe(200);
    // The chain that paid, and whether its money is test money (the sim chain's is).
    expect(answered.body.paid).toEqual({
      amount: '0.01',
      by: agent.walletAddress,
      txSignature: paid.body.txSignature,
      rail: 'sol',
      testMoney: true,
    });

    const later = await resign(paid.body.xPaymentHeader, { timestamp: new Date(Date.now() + 1000).toISOString() });
    expect(later).not.toBe(paid.body.xPaymentHeader);
    expect((await get('/weather?city=Kyoto', later)).body.code).toBe('receipt_already_used');
    expect((await get('/quote?symbol=SOL', paid.body.xPaymentHeader)).body.code).toBe('receipt_already_used');
  });

  it('two requests racing with one receipt get one answer', async () => {
    const agent = await fundedAgent(t, 'racer', '1.00');
    const paid = await payUsdc(t, 'racer', agent.apiKey, { service: 'demo-weather', amount: '0.01' });
    const answers = await Promise.all(Array.from({ length: 6 }, () => get('/weather', paid.body.xPaymentHeader)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.body.code === 'receipt_already_used')).toHaveLength(5);
  });

  it('must pay the route its price, to this paywall, in USDC, recently; the memo must be its payment id', async () => {
    const agent = await fundedAgent(t, 'edge-cases', '1.00');
    // Outside the registry Coffer cannot know the price: the paywall holds it.
    const cheap = await payUsdc(t, 'edge-cases', agent.apiKey, { service: 'unlisted-label', recipient: DEMO_PAY_TO, amount: '0.005' });
    expect(cheap.status).toBe(200);
    const cheapAnswer = await get('/weather', cheap.body.xPaymentHeader);
    expect(cheapAnswer.status).toBe(402);
    expect(cheapAnswer.body).toMatchObject({ code: 'amount_too_small' });

    // Paid elsewhere.
    const other = await fundedAgent(t, 'other-seller', '0.01');
    const elsewhere = await payUsdc(t, 'edge-cases', agent.apiKey, {
      service: 'someone-else',
      recipient: other.walletAddress,
      amount: '0.01',
    });
    expect((await get('/weather', elsewhere.body.xPaymentHeader)).body.code).toBe('wrong_recipient');

    // A memo that is neither a nonce of this paywall nor the receipt's own payment id.
    const labelled = await payUsdc(t, 'edge-cases', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: 'not-a-nonce' });
    expect((await get('/weather', labelled.body.xPaymentHeader)).body.code).toBe('unknown_nonce');
    const renamed = await resign(labelled.body.xPaymentHeader, { memo: labelled.body.paymentId });
    expect((await get('/weather', renamed)).body.code).toBe('memo_mismatch');
    // A payment of another paywall's terms (its nonce, for the same recipient) stays that paywall's,
    // even re-signed by its payer with the nonce as payment id.
    const otherStore = openPaywallStore(':memory:');
    const otherApi = await listen(createDemoApi({ lookup, store: otherStore }));
    try {
      const otherTerms = await json(fetch(`${otherApi.url}/weather`));
      const forOther = await payUsdc(t, 'edge-cases', agent.apiKey, { service: 'demo-weather', amount: '0.01', nonce: otherTerms.nonce });
      const relabelled = await resign(forOther.body.xPaymentHeader, { paymentId: otherTerms.nonce });
      expect((await get('/weather', relabelled)).body.code).toBe('unknown_nonce');
      expect((await get('/weather', forOther.body.xPaymentHeader, otherApi)).status).toBe(200);
    } finally {
      await close(otherApi.server);
      otherStore.close();
    }

    // Too old: a paywall whose clock is past the receipt's window (300 s and the clock skew).
    const late = await payUsdc(t, 'edge-cases', agent.apiKey, { service: 'demo-weather', amount: '0.01' });
    const lateStore = openPaywallStore(':memory:');
    const lateApi = await listen(createDemoApi({ lookup, store: lateStore, now: () => Date.now() + 7 * 60_000 }));
    try {
      expect((await get('/weather', late.body.xPaymentHeader, lateApi)).body.code).toBe('receipt_expired');
      expect(lateStore.isAccepted(late.body.txSignature)).toBe(false);
    } finally {
      await close(lateApi.server);
      lateStore.close();
    }
    // Within it, the same receipt is good.
    expect((await get('/weather', late.body.xPaymentHeader)).status).toBe(200);
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1') - micro('0.045'));
  });

  it('a paywall that takes no receipts without a nonce refuses them as before', async () => {
    const agent = await fundedAgent(t, 'strict', '1.00');
    const strictStore = openPaywallStore(':memory:');
    const strict = await listen(createDemoApi({ lookup, store: strictStore, receiptsWithoutNonce: false }));
    try {
      const paid = await payUsdc(t, 'strict', agent.apiKey, { service: 'demo-weather', amount: '0.01' });
      expect((await get('/weather', paid.body.xPaymentHeader, strict)).body.code).toBe('unknown_nonce');
    } finally {
      await close(strict.server);
      strictStore.close();
    }
  });
});
