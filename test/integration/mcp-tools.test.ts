import type { Server } from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { fundedAgent, micro, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { close, listen } from '../helpers/http-server.js';
import { CLI } from '../helpers/serve-process.js';
import { createDemoApi, DEMO_BASE_PAY_TO } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { cofferTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { connectMcpHost, MCP_ERAS, type McpEra, type McpHost, type ToolResult } from '../helpers/mcp-host.js';

/** The MCP Inspector's command line (a dev dependency: the official tool a server's author checks it with). */
const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);

/** An MCP host's view: its official client launching `coffer mcp` as a child process, in either era. */
const connect = (env: Record<string, string>, era: McpEra) =>
  connectMcpHost(
    {
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: { ...(process.env as Record<string, string>), ...env, COFFER_CONFIG: '/nonexistent/agent.json' },
    },
    era,
  );

describe.each(MCP_ERAS)('coffer mcp: every tool through the stdio transport (%s host)', (era) => {
  const t = useCoffer();
  let client: McpHost;
  let agent: { agentId: string; walletAddress: string; apiKey: string };
  let demo: { server: Server; url: string; store: PaywallStore };
  const call = (name: string, args: Record<string, unknown> = {}) => client.callTool(name, args);
  const data = (result: ToolResult) => {
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
    return result.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };

  beforeAll(async () => {
    agent = await fundedAgent(t, 'mcp-agent', '2.00', { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0 });
    client = await connect({ COFFER_URL: t.url, COFFER_OWNER: t.owner, COFFER_AGENT_ID: 'mcp-agent', COFFER_API_KEY: agent.apiKey }, era);
    const store = openPaywallStore(':memory:');
    demo = { ...(await listen(createDemoApi({ lookup: await cofferTransferLookup(t.url), store }))), store };
  });
  afterAll(async () => {
    await client.close();
    await close(demo.server);
    demo.store.close();
  });

  it('speaks the revision its host speaks', () => {
    expect(client.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
  });

  it('lists the tools of the spec, plus pay and fetch_paid, with hints', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual(
      [
        'allocate_budget',
        'check_approval',
        'check_balance',
        'deploy_agent',
        'fetch_paid',
        'find_service',
        'get_policy',
        'get_spend_history',
        'kill_agent',
        'list_models',
        'pay',
        'rename_agent',
        'resume_agent',
        'set_policy',
      ].sort(),
    );
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.check_balance?.annotations?.readOnlyHint).toBe(true);
    expect(byName.kill_agent?.annotations?.destructiveHint).toBe(true);
    // Hands a new agent's key over once: not a read.
    expect(byName.check_approval?.annotations?.readOnlyHint).toBe(false);
    expect(byName.pay?.inputSchema.required).toEqual(expect.arrayContaining(['service', 'amount']));
  });

  it('check_balance adds the treasury address, and says which balance is which', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'check_balance')!;
    expect((tool as { description?: string }).description).toContain('`balance` is its Solana wallet alone');
    expect(data(await call('check_balance'))).toEqual({
      agentId: 'mcp-agent',
      walletAddress: agent.walletAddress,
      balance: '2.00',
      wallets: { sol: agent.walletAddress, base: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
      balances: { sol: '2.00', base: '0.00' },
      available: { sol: '2.00', base: '0.00' },
      baseNetwork: 'sim',
      preferredRail: null,
      currency: 'USDC',
      status: 'active',
      treasuryAddress: t.owner,
    });
  });

  it('find_service gives id, name, description, $ prices and how; suggests the marketplace when nothing matches', async () => {
    const found = data(await call('find_service', { query: 'weather' }));
    const weather = found.results.find((r: { id: string }) => r.id === 'demo-weather');
    expect(weather).toEqual({
      id: 'demo-weather',
      name: 'Coffer demo weather',
      description: expect.any(String),
      pricing: { perCall: '$0.01' },
      // fetch_paid pays it on either rail (pay would only hand a receipt back, to send as X-Payment).
      how: expect.stringMatching(/fetch_paid.*It is paid on Base too: fetch_paid with rail "base" pays it from your Base account\./),
    });
    expect(found.message).toMatch(/Found/);
    const images = data(await call('find_service', { query: 'image' }));
    const flux = images.results.find((r: { id: string }) => r.id === 'model:flux-pro');
    expect(flux.pricing).toEqual({ '1k': '$0.04', '2k': '$0.08', '4k': '$0.16' });
    expect(flux.how).toBe(
      `Image model: POST ${t.url}/v1/agents/mcp-agent/generate with {"prompt", "modelId": "flux-pro", "resolution": "1k"|"2k"|"4k"}; the price is charged to your wallet.`,
    );
    const scrape = data(await call('find_service', { query: 'scrape' })).results.find((r: { id: string }) => r.id === 'page-scrape');
    expect(scrape.how).toMatch(/^Call fetch_paid with method POST and url https:\/\//);
    expect(scrape.how).not.toMatch(/Base/);
    const none = data(await call('find_service', { query: 'zzqx submarine rental' }));
    expect(none.results).toEqual([]);
    expect(none.message).toMatch(/marketplace/);
  });

  it('get_policy, set_policy (tightening applies, loosening waits), get_spend_history', async () => {
    expect(data(await call('get_policy'))).toEqual({
      agentId: 'mcp-agent',
      policy: { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0, allowedServices: [] },
      spent24h: '0.00',
      held24h: '0.00',
      pending24h: '0.00',
      // The owner's, until they name one the machine's (this process's too).
      timeZone: new Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    expect(data(await call('set_policy', { dailyBudget: '4.00' })).policy.dailyBudget).toBe('4.00');
    const loosen = data(await call('set_policy', { dailyBudget: '50.00' }));
    expect(loosen).toMatchObject({ status: 'pending', kind: 'policy', message: expect.stringMatching(/approval/) });
    expect(data(await call('get_policy')).policy.dailyBudget).toBe('4.00');
    expect(data(await call('get_spend_history'))).toEqual({ payments: [] });
    // A misspelled field is refused, as /v1 refuses it, not dropped: the agent believed it had tightened its limit.
    const typo = await call('set_policy', { maxPerPaymnet: '0.01' });
    expect(typo.isError).toBe(true);
    expect(typo.content[0]?.text).toMatch(/unknown field "maxPerPaymnet" \(did you mean "maxPerPayment"\?\).* \(invalid_request\)$/);
    expect(data(await call('get_policy')).policy.maxPerPayment).toBe('1.00');
    const extra = await call('pay', { service: 'demo-weather', amount: '0.01', bogus: 1 });
    expect(extra.isError).toBe(true);
    expect(extra.content[0]?.text).toMatch(/unknown field "bogus".* \(invalid_request\)$/);
    expect(data(await call('get_spend_history'))).toEqual({ payments: [] });
    // A tool that takes nothing refuses an argument too: not this agent's balance for another's id.
    const other = await call('check_balance', { agentId: 'other' });
    expect(other.isError).toBe(true);
    expect(other.content[0]?.text).toMatch(/unknown field "agentId".* \(invalid_request\)$/);
    // A missing field is said in /v1's words, with its label.
    expect((await call('pay', { amount: '0.01' })).content[0]?.text).toMatch(/Service is required \(invalid_request\)$/);
    const misspelledRail = await call('fetch_paid', { url: 'http://127.0.0.1:9/x', rial: 'base' });
    expect(misspelledRail.content[0]?.text).toMatch(/unknown field "rial" \(did you mean "rail"\?\).* \(invalid_request\)$/);
  });

  it('pay returns the payment result with the receipt; refusals are isError results with the server message', async () => {
    const paid = data(await call('pay', { ...UNLISTED_API, amount: '0.10' }));
    expect(paid).toMatchObject({ status: 'confirmed', amount: '0.10', currency: 'USDC', xPaymentHeader: expect.stringMatching(/^v1\./) });
    const refused = await call('pay', { service: 'demo-weather', amount: '3.00' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/max per payment.*\(max_per_payment_exceeded\)/);
    // Then the tool that asks the owner for more, as the CLI's "next:" line names its command.
    expect(refused.content[0]?.text).toMatch(
      /\(max_per_payment_exceeded\)\. Next: set_policy with a higher maxPerPayment asks the owner for it\.$/,
    );
    const history = data(await call('get_spend_history', { limit: 5 }));
    expect(history.payments).toHaveLength(1);
    const invalid = await call('pay', { service: 'demo-weather', amount: 'lots' });
    expect(invalid.isError).toBe(true);
    // Arguments that do not fit the tool's input say so with a code, as every other failure does.
    expect(invalid.content[0]?.text).toMatch(
      /^Input validation error: Invalid arguments for tool pay: Amount must be .* \(invalid_request\)$/,
    );
    const unknownMethod = await call('fetch_paid', { url: 'http://127.0.0.1:9/x', method: 'PATCH' });
    expect(unknownMethod.isError).toBe(true);
    expect(unknownMethod.content[0]?.text).toMatch(/: Method must be one of "GET", "POST", "PUT", "DELETE" \(invalid_request\)$/);
    // Each field named once, in Coffer's words (helper 174: "body: body: …", "url: URL: Invalid URL").
    const bodyOnGet = await call('fetch_paid', { url: 'http://127.0.0.1:9/x', body: 'x' });
    expect(bodyOnGet.content[0]?.text).toBe(
      'Input validation error: Invalid arguments for tool fetch_paid: body: a GET request carries no body: leave body out, or send it with method POST or PUT (invalid_request)',
    );
    const notUrl = await call('fetch_paid', { url: 'not a url' });
    expect(notUrl.content[0]?.text).toMatch(
      /^Input validation error: Invalid arguments for tool fetch_paid: URL: [^:]*\(invalid_request\)$/,
    );
    const header = await call('fetch_paid', { url: 'http://127.0.0.1:9/x', headers: { 'X-A': 1 } });
    expect(header.content[0]?.text).not.toMatch(/headers\.X-A: /);
    const overpriced = await call('pay', { service: 'demo-quotes', amount: '0.45' });
    expect(overpriced.isError).toBe(true);
    expect(overpriced.content[0]?.text).toMatch(/\(price_above_registry\)\. Next: find_service shows the price the registry lists/);
  });

  it('fetch_paid calls a paid API, pays the 402 within policy, and returns the answer', async () => {
    const before = await t.coffer.chain.usdcBalance(agent.walletAddress);
    const result = data(await call('fetch_paid', { url: `${demo.url}/weather?city=Quito` }));
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body).city).toBe('Quito');
    expect(result.payment).toMatchObject({
      protocol: 'coffer',
      amount: '0.01',
      status: 'confirmed',
      txSignature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/),
    });
    // The spent credential stays out of what the model reads.
    expect(result.payment).not.toHaveProperty('header');
    expect(JSON.stringify(result)).not.toMatch(/v1\.eyJ/);
    expect(before - (await t.coffer.chain.usdcBalance(agent.walletAddress))).toBe(micro('0.01'));
    // A GET with a body is no request fetch sends: said so before anything is called or paid, not
    // as a host that could not be reached.
    const getWithBody = await call('fetch_paid', { url: `${demo.url}/weather?city=Quito`, body: '{}' });
    expect(getWithBody.isError).toBe(true);
    expect(getWithBody.content[0]?.text).toMatch(/a GET request carries no body: leave body out, or send it with method POST or PUT/);
    expect(before - (await t.coffer.chain.usdcBalance(agent.walletAddress))).toBe(micro('0.01'));
  });

  it("fetch_paid short of funds is refused as pay is: the server's words, its code, and the tool that asks for more", async () => {
    const returned = await t.api('POST', t.withOwner('/v1/agents/mcp-agent/return'), { body: {} });
    expect(returned.status).toBe(200);
    const { amount } = returned.body as { amount: string };
    try {
      const history = data(await call('get_spend_history', { limit: 50 })).payments.length;
      const refused = await call('fetch_paid', { url: `${demo.url}/weather?city=Lima` });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]?.text).toMatch(
        /\(insufficient_funds\)\. Next: allocate_budget without rail asks the owner for USDC into this wallet on Solana/,
      );
      // Nothing was paid: the wallet still empty, no payment in its history.
      expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(0n);
      expect(data(await call('get_spend_history', { limit: 50 })).payments).toHaveLength(history);
    } finally {
      const back = await t.api('POST', t.withOwner('/v1/agents/mcp-agent/allocate'), { body: { amount } });
      expect(back.status).toBe(200);
    }
  });

  it('fetch_paid asked again with the same arguments while its purchase is under way, or once a call given up on was answered, joins it: paid once', async () => {
    // A seller slow to answer the paid request: a host that gave up on the first call asks again meanwhile.
    const slow = express();
    const paywalled = createDemoApi({ lookup: await cofferTransferLookup(t.url), store: demo.store });
    slow.use((req, _res, next) => (req.headers['x-payment'] === undefined ? next() : void setTimeout(next, 1500)));
    slow.use(paywalled);
    const served = await listen(slow);
    try {
      const before = await t.coffer.chain.usdcBalance(agent.walletAddress);
      const url = `${served.url}/weather?city=Cusco`;
      const first = call('fetch_paid', { url });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const [one, two] = (await Promise.all([first, call('fetch_paid', { url })])).map(data);
      expect(one!.status).toBe(200);
      expect(two).toEqual(one);
      expect(before - (await t.coffer.chain.usdcBalance(agent.walletAddress))).toBe(micro('0.01'));
      // Asked again once it answered, it is a purchase of its own.
      const again = data(await call('fetch_paid', { url }));
      expect(again.payment.paymentId).not.toBe(one!.payment.paymentId);
      expect(before - (await t.coffer.chain.usdcBalance(agent.walletAddress))).toBe(micro('0.02'));

      // A host that gave up on the call (its timeout cancels it) and asks again after the purchase
      // was answered to no one: that answer, kept for it, not a second payment.
      const lapsed = `${served.url}/weather?city=Lima`;
      await expect(client.callTool('fetch_paid', { url: lapsed }, undefined, 300)).rejects.toThrow(/timed out/i);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const kept = data(await call('fetch_paid', { url: lapsed }));
      expect(kept.status).toBe(200);
      expect(JSON.parse(kept.body).city).toBe('Lima');
      expect(before - (await t.coffer.chain.usdcBalance(agent.walletAddress))).toBe(micro('0.03'));
      // Handed out once: the same call again buys again.
      const bought = data(await call('fetch_paid', { url: lapsed }));
      expect(bought.payment.paymentId).not.toBe(kept.payment.paymentId);
      expect(before - (await t.coffer.chain.usdcBalance(agent.walletAddress))).toBe(micro('0.04'));
    } finally {
      await close(served.server);
    }
  });

  it('takes an amount sent as a JSON number as its exact decimal string; one that is not exact is refused saying so', async () => {
    // An MCP host sent 0.01 as a number and got a type error: a number is read as the text it prints as.
    const paid = data(await call('pay', { ...UNLISTED_API, amount: 0.02 }));
    expect(paid).toMatchObject({ status: 'confirmed', amount: '0.02' });
    // 0.1 + 0.2 prints as 0.30000000000000004: not rounded into a payment, refused with the rule.
    const inexact = await call('pay', { ...UNLISTED_API, amount: 0.1 + 0.2 });
    expect(inexact.isError).toBe(true);
    expect(inexact.content[0]?.text).toMatch(/at most 6 decimals, such as 0\.01/);
  });

  it("declares each input with its description and the core rules (limits, the nonce's characters), and each tool its output", async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    const props = (name: string) => byName[name]!.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props('pay').amount).toMatchObject({
      anyOf: [expect.objectContaining({ type: 'string' }), expect.objectContaining({ type: 'number' })],
      description: expect.stringMatching(/decimal string.*"0\.01"/),
    });
    expect(props('pay').nonce).toMatchObject({ pattern: expect.any(String), maxLength: 200 });
    expect(props('set_policy').cooldownSeconds).toMatchObject({ maximum: 31_536_000 });
    expect(props('set_policy').allowedServices).toMatchObject({ maxItems: 500 });
    for (const tool of tools) {
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {}))
        expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    }
  });

  it('an agent cannot raise its limits, fund itself, resume itself or deploy agents: all wait for the owner', async () => {
    const funds = data(await call('allocate_budget', { amount: '10.00' }));
    expect(funds).toMatchObject({ status: 'pending', kind: 'allocate', request: { amount: '10.00' } });
    // The tool that follows it is named, as a held payment's answer names it.
    expect(funds.message).toBe(
      `An allocation needs the owner's approval; it is waiting in the owner's inbox (approval ${funds.approvalId}). Call check_approval with approvalId ${funds.approvalId} and wait 45 to learn the answer.`,
    );
    expect(funds.request).not.toHaveProperty('rail');
    // Its account on Base, named: the owner is asked for that wallet.
    const onBase = data(await call('allocate_budget', { amount: '2.00', rail: 'base' }));
    expect(onBase).toMatchObject({ status: 'pending', kind: 'allocate', request: { amount: '2.00', rail: 'base' } });
    const spawn = data(await call('deploy_agent', { agentId: 'spawn', dailyBudget: '1.00', maxPerPayment: '0.10' }));
    expect(spawn).toMatchObject({ status: 'pending', kind: 'deploy' });
    const killed = data(await call('kill_agent'));
    expect(killed).toMatchObject({ agentId: 'mcp-agent', status: 'suspended', withdrawn: { heldPayments: 0 } });
    // These two, and whatever the earlier tests left waiting.
    expect(killed.withdrawn.requests).toBeGreaterThanOrEqual(2);
    // A payment now is refused, and the refusal names the one tool that asks to go on.
    const stopped = await call('pay', { ...UNLISTED_API, amount: '0.01' });
    expect(stopped.isError).toBe(true);
    expect(stopped.content[0]?.text).toMatch(/\(agent_suspended\)\. Next: resume_agent asks the owner to resume this agent/);
    // Stopping withdraws what it asked for before; asking to be resumed is what it may still do.
    // Said what to do now, as the call that waited is told (helper 189: "withdrawn" and nothing more).
    expect(data(await call('check_approval', { approvalId: funds.approvalId }))).toMatchObject({
      status: 'withdrawn',
      next: expect.stringMatching(/^check_balance says whether this agent was stopped \(status suspended: resume_agent asks the owner/),
    });
    expect(data(await call('check_approval', { approvalId: spawn.approvalId }))).toMatchObject({ status: 'withdrawn' });
    const resume = data(await call('resume_agent'));
    expect(resume).toMatchObject({ status: 'pending', kind: 'resume' });
    const renamed = await call('rename_agent', { agentId: 'mcp-agent', displayName: 'Me' });
    expect(renamed.isError).toBe(true);
    expect(renamed.content[0]?.text).toMatch(/owner_only/);
    const stranger = await call('kill_agent', { agentId: 'someone-else' });
    expect(stranger.content[0]?.text).toMatch(/wrong_agent/);
    // Nothing was applied.
    const agents = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents;
    expect(agents.find((a: { agentId: string }) => a.agentId === 'spawn')).toBeUndefined();
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBeLessThan(micro('2.00'));
    const pending = (await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals;
    expect(
      pending.filter((a: { agentId: string }) => a.agentId === 'mcp-agent').map((a: { approvalId: string }) => a.approvalId),
    ).toContain(resume.approvalId);
    await t.api('POST', t.withOwner('/v1/agents/mcp-agent/resume'));
  });

  it("check_approval follows a request, and hands over an approved agent's key once with its mcpConfig", async () => {
    const asked = data(await call('deploy_agent', { agentId: 'offspring', dailyBudget: '1.00', maxPerPayment: '0.10' }));
    expect(data(await call('check_approval', { approvalId: asked.approvalId }))).toMatchObject({ status: 'pending' });
    await t.api('POST', t.withOwner(`/v1/approvals/${asked.approvalId}/approve`));
    const collected = data(await call('check_approval', { approvalId: asked.approvalId }));
    expect(collected).toMatchObject({
      status: 'approved',
      apiKey: expect.stringMatching(/^cof_agt_/),
      mcpConfig: { env: { COFFER_AGENT_ID: 'offspring' } },
    });
    expect(collected.nextSteps.length).toBeGreaterThan(0);
    expect(data(await call('check_approval', { approvalId: asked.approvalId })).apiKey).toBeUndefined();
  });

  it('list_models shows $ prices and leaves out "enabled"', async () => {
    const { models } = data(await call('list_models'));
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) {
      expect(Object.keys(model).sort()).toEqual(['description', 'displayName', 'id', 'pricing', 'provider']);
      for (const price of Object.values(model.pricing)) expect(price).toMatch(/^\$\d+\.\d{2,6}$/);
    }
  });

  it('with the owner key, deploy_agent gives the agent, its mcpConfig and next steps', async () => {
    const owner = await connect(
      { COFFER_URL: t.url, COFFER_OWNER: t.owner, COFFER_AGENT_ID: 'mcp-agent', COFFER_API_KEY: t.ownerKey },
      era,
    );
    try {
      const result = await owner.callTool('deploy_agent', { agentId: 'made-by-mcp', dailyBudget: '1.00', maxPerPayment: '0.10' });
      const body = result.structuredContent as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(body.agent).toMatchObject({ agentId: 'made-by-mcp' });
      expect(body.mcpConfig).toMatchObject({
        command: expect.any(String),
        args: expect.arrayContaining(['mcp']),
        env: { COFFER_AGENT_ID: 'made-by-mcp' },
      });
      expect(body.nextSteps.length).toBeGreaterThan(0);
      const renamed = await owner.callTool('rename_agent', { agentId: 'made-by-mcp', displayName: 'Made by MCP' });
      expect(renamed.structuredContent).toEqual({ agentId: 'made-by-mcp', displayName: 'Made by MCP' });
    } finally {
      await owner.close();
    }
  });

  it('set_policy takes budgets, an end and a breaker; get_policy says what each budget spent, what remains and when it resets', async () => {
    // Amounts as JSON numbers, as some hosts send them (a budget's and askAbove, as any amount here):
    // read as the text they print as, by the same rules.
    const inexact = await call('set_policy', { askAbove: 0.1 + 0.2 });
    expect(inexact.isError).toBe(true);
    expect(inexact.content[0]?.text).toMatch(/at most 6 decimals/);
    // Neither a string nor a number: the amount rule in words, naming the field.
    const notAnAmount = await call('set_policy', { askAbove: true });
    expect(notAnAmount.isError).toBe(true);
    expect(notAnAmount.content[0]?.text).toMatch(
      /: Ask above must be an amount of USDC: a decimal string such as "0\.01", or a JSON number/,
    );
    const set = data(
      await call('set_policy', {
        budgets: [
          { amount: 2, window: 'month' },
          { count: 30, window: 'hour', service: 'demo-weather' },
        ],
        expiresAt: '2099-12-31T00:00:00Z',
        breaker: { refusals: { count: 5, minutes: 10 } },
        askAbove: 1,
      }),
    );
    expect(set.policy).toMatchObject({
      expiresAt: '2099-12-31T00:00:00.000Z',
      breaker: { refusals: { count: 5, minutes: 10 } },
      budgets: [{ amount: '2.00', window: 'month' }, { count: 30 }],
      askAbove: '1.00',
    });
    expect(data(await call('pay', { service: 'demo-weather', amount: '0.01', nonce: 'mcp-budget-1' })).status).toBe('confirmed');
    const read = data(await call('get_policy'));
    // What earlier tests paid this month and hour counts too: each budget's spent and remaining add up to its limit.
    const [month, weather] = read.budgets;
    expect(month).toEqual({
      amount: '2.00',
      window: 'month',
      spent: expect.any(String),
      remaining: expect.any(String),
      resetsAt: expect.any(String),
    });
    expect(Math.round((Number(month.spent) + Number(month.remaining)) * 100)).toBe(200);
    expect(Number(month.spent)).toBeGreaterThanOrEqual(0.01);
    expect(weather).toEqual({
      count: 30,
      window: 'hour',
      service: 'demo-weather',
      made: expect.any(Number),
      remaining: 30 - weather.made,
      resetsAt: null,
    });
    expect(weather.made).toBeGreaterThanOrEqual(1);
    // A day typed is said as that day, beside the instant it resolved to (earlier than the end above in every zone).
    const day = data(await call('set_policy', { expiresAt: '2099-12-29' }));
    expect(day.endsOn).toBe('2099-12-29');
    expect(data(await call('get_policy')).endsOn).toBe('2099-12-29');
    const { tools } = await client.listTools();
    for (const name of ['get_policy', 'set_policy']) {
      const schema = tools.find((tool) => tool.name === name)?.outputSchema as { properties?: Record<string, { description?: string }> };
      expect(schema.properties?.endsOn?.description, name).toMatch(/as the owner typed it/);
    }
    const past = await call('set_policy', { expiresAt: '2020-01-01' });
    expect(past.isError).toBe(true);
    expect(past.content[0]?.text).toMatch(/in the past.*\(invalid_policy\)/);
  });

  it("pay with rail base pays a registry service's Base address from the agent's Base account", async () => {
    expect((await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '1', rail: 'base' } })).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/mcp-agent/allocate'), { body: { amount: '0.5', rail: 'base' } })).status).toBe(200);
    const paid = data(await call('pay', { service: 'demo-weather', amount: '0.01', rail: 'base' }));
    expect(paid).toMatchObject({ status: 'confirmed', rail: 'base', service: 'demo-weather', recipient: DEMO_BASE_PAY_TO });
    const refused = await call('pay', { service: 'page-scrape', amount: '0.002', rail: 'base' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/Solana only.*\(service_not_on_rail\)/);
  });
});

describe('coffer mcp: tool schemas every host can map', () => {
  it("the MCP Inspector's --strict tools/list finds no portability problem in any tool schema", () => {
    // The official Inspector, as a developer runs it: it launches `coffer mcp` over stdio, lists the
    // tools and reports each schema a single-`type` dialect (Gemini's OpenAPI subset, say) could not map.
    const home = mkdtempSync(join(tmpdir(), 'coffer-inspector-'));
    try {
      const run = spawnSync(
        process.execPath,
        [
          INSPECTOR,
          '--cli',
          '--strict',
          '--method',
          'tools/list',
          '-e',
          'COFFER_CONFIG=/nonexistent/agent.json',
          process.execPath,
          CLI,
          'mcp',
        ],
        { env: { PATH: process.env.PATH ?? '', HOME: home, MCP_CATALOG_PATH: join(home, 'mcp.json') }, encoding: 'utf8', timeout: 60_000 },
      );
      const listed = JSON.parse(run.stdout) as { tools: { name: string }[] };
      expect(listed.tools.length).toBe(14);
      const warnings = run.stderr.split('\n').filter((line) => /^(Warning|Error)\b/.test(line));
      expect(warnings, run.stderr).toEqual([]);
      expect(run.status).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
