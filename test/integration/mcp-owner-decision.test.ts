import type { Server } from 'node:http';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedAgent, micro, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { close, listen } from '../helpers/http-server.js';
import { CLI } from '../helpers/serve-process.js';
import { connectMcpHost, MCP_ERAS, type McpHost, type OpensUrl } from '../helpers/mcp-host.js';
import { createDemoApi } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { cofferTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';

/**
 * Issue 29, point 1: a payment the agent's policy holds for the owner, through `coffer mcp`. A host
 * that opens URLs (elicitation's url mode) is shown the owner's decision page for that very request
 * (2026-07-28: input_required and a retry; 2025: the same elicitation pushed), and the call answers
 * once the owner decided; a host that cannot is told where, as progress. Each through the official
 * clients of both revisions, against a real Coffer and its demo API.
 */
describe.each(MCP_ERAS)('coffer mcp: a payment held for the owner (%s host)', (era) => {
  const t = useCoffer();
  let demo: { server: Server; url: string; store: PaywallStore };
  let serial = 0;

  beforeAll(async () => {
    const store = openPaywallStore(':memory:');
    demo = { ...(await listen(createDemoApi({ lookup: await cofferTransferLookup(t.url), store }))), store };
  });
  afterAll(async () => {
    await close(demo.server);
    demo.store.close();
  });

  /** An agent whose every payment waits for the owner, and its host. */
  async function heldAgent(
    opensUrl?: OpensUrl,
    extraEnv: Record<string, string> = {},
  ): Promise<{ agentId: string; walletAddress: string; apiKey: string; host: McpHost }> {
    const agentId = `held-${(serial += 1)}`;
    const agent = await fundedAgent(t, agentId, '1.00', { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0 });
    await t.api('POST', t.withOwner(`/v1/agents/${agentId}/policy`), { body: { askAbove: '0' } });
    const env = {
      ...(process.env as Record<string, string>),
      COFFER_URL: t.url,
      COFFER_OWNER: t.owner,
      COFFER_AGENT_ID: agentId,
      COFFER_API_KEY: agent.apiKey,
      COFFER_CONFIG: '/nonexistent/agent.json',
      ...extraEnv,
    };
    const host = await connectMcpHost({ command: process.execPath, args: [CLI, 'mcp'], env }, era, { opensUrl });
    return { agentId, walletAddress: agent.walletAddress, apiKey: agent.apiKey, host };
  }

  const pendingOf = async (agentId: string) =>
    ((await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as { agentId: string; approvalId: string }[]).filter(
      (a) => a.agentId === agentId,
    );
  const decide = (approvalId: string, decision: 'approve' | 'deny') =>
    t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/${decision}`));
  const balance = (wallet: string) => t.coffer.chain.usdcBalance(wallet);

  it("shows a host that opens URLs the owner's page for that request; the owner's yes completes the call, paid once", async () => {
    const shown: { url: string; message: string; waiting: string[] }[] = [];
    const { agentId, walletAddress, host } = await heldAgent(async (asked) => {
      // The user opens the page and the owner approves there (here, through the same API the page uses).
      const waiting = (await pendingOf(agentId)).map((a) => a.approvalId);
      shown.push({ ...asked, waiting });
      await decide(waiting[0]!, 'approve');
      return 'accept';
    });
    try {
      const before = await balance(walletAddress);
      const result = await host.callTool('fetch_paid', { url: `${demo.url}/weather?city=Oslo` });
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 200, payment: { protocol: 'coffer', amount: '0.01', status: 'confirmed' } });
      expect(JSON.parse(String(result.structuredContent!.body)).city).toBe('Oslo');
      // Shown once: the decision page of the one request that waited, and why it waits.
      expect(shown).toHaveLength(1);
      expect(shown[0]!.waiting).toHaveLength(1);
      expect(shown[0]!.url).toBe(`${t.url}/#/approvals/${shown[0]!.waiting[0]}`);
      expect(shown[0]!.message).toMatch(/owner's yes .*nothing is paid until then/i);
      expect(before - (await balance(walletAddress))).toBe(micro('0.01'));
      expect(await pendingOf(agentId)).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it("the owner's no ends the call refused, nothing paid", async () => {
    const { agentId, walletAddress, host } = await heldAgent(async () => {
      await decide((await pendingOf(agentId))[0]!.approvalId, 'deny');
      return 'accept';
    });
    try {
      const before = await balance(walletAddress);
      const result = await host.callTool('fetch_paid', { url: `${demo.url}/weather?city=Lima` });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/payment_denied/);
      expect(await balance(walletAddress)).toBe(before);
    } finally {
      await host.close();
    }
  });

  it('a user who does not open the page leaves the payment with the owner: the call still answers their decision', async () => {
    let approvalId = '';
    const { agentId, walletAddress, host } = await heldAgent(async () => {
      approvalId = (await pendingOf(agentId))[0]!.approvalId;
      // Declined here; the owner decides elsewhere a moment later (the tray, the dashboard).
      setTimeout(() => void decide(approvalId, 'approve'), 300);
      return 'decline';
    });
    try {
      const before = await balance(walletAddress);
      const result = await host.callTool('fetch_paid', { url: `${demo.url}/weather?city=Quito` });
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 200, payment: { status: 'confirmed' } });
      expect(before - (await balance(walletAddress))).toBe(micro('0.01'));
    } finally {
      await host.close();
    }
  });

  it('pay, held, shows the page too and answers the payment with its receipt once approved', async () => {
    const { agentId, walletAddress, host } = await heldAgent(async (asked) => {
      expect(asked.url).toMatch(new RegExp(`^${t.url}/#/approvals/`));
      await decide((await pendingOf(agentId))[0]!.approvalId, 'approve');
      return 'accept';
    });
    try {
      const before = await balance(walletAddress);
      const paid = await host.callTool('pay', { ...UNLISTED_API, amount: '0.10' });
      expect(paid.isError, paid.content[0]?.text).toBeFalsy();
      expect(paid.structuredContent).toMatchObject({ status: 'confirmed', amount: '0.10', xPaymentHeader: expect.stringMatching(/^v1\./) });
      expect(before - (await balance(walletAddress))).toBe(micro('0.10'));
    } finally {
      await host.close();
    }
  });

  it('a host that cannot open URLs hears, as progress, where the owner decides; fetch_paid completes on the yes, pay answers at once', async () => {
    const { agentId, walletAddress, host } = await heldAgent();
    try {
      const told: string[] = [];
      const calling = host.callTool('fetch_paid', { url: `${demo.url}/weather?city=Rome` }, (message) => told.push(message));
      let waiting: { approvalId: string }[] = [];
      for (let i = 0; i < 200 && (waiting.length === 0 || told.length === 0); i += 1) {
        waiting = await pendingOf(agentId);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(told[0]).toContain(`the owner decides at ${t.url}/#/approvals/${waiting[0]!.approvalId} `);
      await decide(waiting[0]!.approvalId, 'approve');
      const result = await calling;
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 200, payment: { status: 'confirmed' } });

      const pay = await host.callTool('pay', { ...UNLISTED_API, amount: '0.10' });
      expect(pay.structuredContent).toMatchObject({ status: 'pending', approvalId: expect.any(String) });
      expect(pay.structuredContent!.decisionUrl).toBe(`${t.url}/#/approvals/${String(pay.structuredContent!.approvalId)}`);
      await decide(String(pay.structuredContent!.approvalId), 'deny');
      expect(await balance(walletAddress)).toBe(micro('0.99'));
    } finally {
      await host.close();
    }
  });

  it('undecided within the wait, the call says it still waits (the approval, where the owner decides); asked again after the yes, the same purchase answers, paid once', async () => {
    let shown = 0;
    const { agentId, walletAddress, apiKey, host } = await heldAgent(
      async () => {
        shown += 1;
        return 'accept';
      },
      { COFFER_MCP_HELD_WAIT_SECONDS: '1' },
    );
    try {
      const before = await balance(walletAddress);
      const args = { url: `${demo.url}/weather?city=Accra` };
      const waiting = await host.callTool('fetch_paid', args);
      expect(waiting.isError, waiting.content[0]?.text).toBeFalsy();
      const [approval] = await pendingOf(agentId);
      expect(waiting.structuredContent).toEqual({
        approvalId: approval!.approvalId,
        expiresAt: expect.any(String),
        decisionUrl: `${t.url}/#/approvals/${approval!.approvalId}`,
        message: expect.stringMatching(
          new RegExp(
            `Nothing is paid yet.*Call fetch_paid again with the same arguments and approvalId ${approval!.approvalId}.* Keep this MCP server running until then: closed, it withdraws the request and nothing is paid\\.$`,
          ),
        ),
      });
      // Asked again before the owner decided: the same purchase (no second request for the owner).
      expect((await host.callTool('fetch_paid', args)).structuredContent).toMatchObject({ approvalId: approval!.approvalId });
      expect(await pendingOf(agentId)).toHaveLength(1);
      await decide(approval!.approvalId, 'approve');
      // Asked again as the agent is told, until the purchase is made (within one held wait of 1 s here,
      // or on a slow machine a few): the same purchase each time, then its answer.
      let answered = await host.callTool('fetch_paid', args);
      for (let asked = 1; asked < 20 && (answered.structuredContent as { status?: number })?.status !== 200; asked += 1) {
        expect(answered.structuredContent).toMatchObject({ approvalId: approval!.approvalId });
        answered = await host.callTool('fetch_paid', args);
      }
      expect(answered.structuredContent).toMatchObject({ status: 200, payment: { status: 'confirmed', amount: '0.01' } });
      expect(before - (await balance(walletAddress))).toBe(micro('0.01'));
      const paid = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key: apiKey })).body.payments;
      expect(paid).toHaveLength(1);
      // The page was shown for the first call only: the others joined the purchase under way.
      expect(shown).toBe(1);

      const pay = await host.callTool('pay', { ...UNLISTED_API, amount: '0.10' });
      expect(pay.structuredContent).toMatchObject({
        status: 'pending',
        approvalId: expect.stringMatching(/^apr_/),
        message: expect.stringMatching(/check_approval/),
      });
      await decide(String(pay.structuredContent!.approvalId), 'deny');
    } finally {
      await host.close();
    }
  });

  it('two calls of one purchase at once (its URL spelled two ways) are one: the owner is asked once, it is paid once, and both are answered', async () => {
    // A held wait far longer than the test's steps: both calls are answered by the owner's yes, on a
    // slow machine too (3 s ran out on CI before the yes was paid).
    const { agentId, walletAddress, apiKey, host } = await heldAgent(undefined, { COFFER_MCP_HELD_WAIT_SECONDS: '30' });
    try {
      const before = await balance(walletAddress);
      // Its URL spelled two ways that are one URL as sent (a space encoded or not, a #fragment).
      const both = Promise.all([
        host.callTool('fetch_paid', { url: `${demo.url}/weather?city=Twice Over` }),
        host.callTool('fetch_paid', { url: `${demo.url}/weather?city=Twice%20Over#again` }),
      ]);
      const withdrawnOf = async () =>
        ((await t.api('GET', t.withOwner('/v1/approvals?status=withdrawn'))).body.approvals as { agentId: string }[]).filter(
          (a) => a.agentId === agentId,
        );
      // The second call joins the purchase the first has under way: Coffer is asked once, so the owner
      // is asked once, and no second request is made (to withdraw).
      let waiting: { approvalId: string }[] = [];
      for (let i = 0; i < 200 && waiting.length === 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        waiting = await pendingOf(agentId);
      }
      expect(waiting).toHaveLength(1);
      expect(await withdrawnOf()).toEqual([]);
      await decide(waiting[0]!.approvalId, 'approve');
      const answers = await both;
      const paid = answers.filter((answer) => (answer.structuredContent as { status?: number } | undefined)?.status === 200);
      expect(paid.length, JSON.stringify(answers.map((answer) => answer.content[0]?.text))).toBe(2);
      expect(await withdrawnOf()).toEqual([]);
      expect(before - (await balance(walletAddress))).toBe(micro('0.01'));
      const history = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key: apiKey })).body.payments as {
        status: string;
      }[];
      expect(history.filter((payment) => payment.status !== 'failed')).toHaveLength(1);
      expect(await pendingOf(agentId)).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it("check_approval's wait ends before the host gives up: it answers that the request still waits", async () => {
    const { agentId, host } = await heldAgent(undefined, { COFFER_MCP_HELD_WAIT_SECONDS: '1' });
    try {
      const held = await host.callTool('pay', { ...UNLISTED_API, amount: '0.10' });
      const approvalId = String(held.structuredContent!.approvalId);
      // Not followed by this bridge (its host opens no URLs): the owner's yes pays it, bridge or not.
      expect(held.structuredContent!.message).toMatch(
        /The owner's yes pays it whether or not this MCP server still runs: do not pay it again\.$/,
      );
      // The wait it advises is the one this bridge takes (helper 174: it said 45 where the bridge waits 1 s).
      expect(held.structuredContent!.message).toContain(`Call check_approval with approvalId ${approvalId} and wait 1 to learn the answer`);
      // Asked to wait 60 s by a host that gives up after 15 s (an SDK host's 60 s, scaled down).
      const checked = await host.callTool('check_approval', { approvalId, wait: 60 }, undefined, 15_000);
      expect(checked.structuredContent, checked.content[0]?.text).toMatchObject({ approvalId, status: 'pending' });
      await decide(approvalId, 'deny');
      expect(await pendingOf(agentId)).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('a call its host gave up on leaves the answer for the same call asked again: paid once, never asked anew', async () => {
    const { agentId, walletAddress, host } = await heldAgent(undefined, { COFFER_MCP_HELD_WAIT_SECONDS: '30' });
    try {
      const before = await balance(walletAddress);
      const args = { url: `${demo.url}/weather?city=Cancel` };
      // The host gives up after 1.5 s (it tells the bridge it cancelled); the owner says yes after it.
      const gaveUp = await host.callTool('fetch_paid', args, undefined, 1_500).catch((error: unknown) => error);
      expect(String(gaveUp)).toMatch(/timed out/i);
      // The purchase goes on without the call: held for the owner, if it was not yet when the host gave up.
      let waiting: { approvalId: string }[] = [];
      for (let i = 0; i < 200 && waiting.length === 0; i += 1) {
        waiting = await pendingOf(agentId);
        if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const [approval] = waiting;
      await decide(approval!.approvalId, 'approve');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const again = await host.callTool('fetch_paid', args);
      expect(again.structuredContent, again.content[0]?.text).toMatchObject({
        status: 200,
        payment: { status: 'confirmed', amount: '0.01' },
      });
      expect(before - (await balance(walletAddress))).toBe(micro('0.01'));
      expect(await pendingOf(agentId)).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it('a bridge killed while its call waits: the call asked again of a new one, with its approvalId, picks up the same purchase, paid once', async () => {
    const first = await heldAgent(undefined, { COFFER_MCP_HELD_WAIT_SECONDS: '1' });
    const { agentId, walletAddress, apiKey } = first;
    const args = { url: `${demo.url}/weather?city=Lima` };
    const waiting = await first.host.callTool('fetch_paid', args);
    const approvalId = String(waiting.structuredContent!.approvalId);
    expect(approvalId).toMatch(/^apr_/);
    // Named by a call of other arguments while this bridge follows it: that call's, refused.
    const misused = await first.host.callTool('fetch_paid', { url: `${demo.url}/quote?symbol=SOL`, approvalId });
    expect(misused.isError).toBe(true);
    expect(misused.content[0]?.text).toMatch(/waits for another fetch_paid call .*\(approval_mismatch\)$/);
    // Killed outright: it withdraws nothing, and forgets what it followed.
    first.host.kill();
    await first.host.close().catch(() => undefined);
    await decide(approvalId, 'approve');
    const before = await balance(walletAddress);
    const env = {
      ...(process.env as Record<string, string>),
      COFFER_URL: t.url,
      COFFER_OWNER: t.owner,
      COFFER_AGENT_ID: agentId,
      COFFER_API_KEY: apiKey,
      COFFER_CONFIG: '/nonexistent/agent.json',
    };
    const host = await connectMcpHost({ command: process.execPath, args: [CLI, 'mcp'], env }, era);
    try {
      const answered = await host.callTool('fetch_paid', { ...args, approvalId });
      expect(answered.isError, answered.content[0]?.text).toBeFalsy();
      expect(answered.structuredContent).toMatchObject({ status: 200, payment: { status: 'confirmed', amount: '0.01' } });
      expect(await pendingOf(agentId)).toEqual([]);
      // Paid once, at the owner's yes: the new bridge presented that receipt.
      const paid = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key: apiKey })).body.payments;
      expect(paid).toHaveLength(1);
      expect(before).toBe(await balance(walletAddress));
    } finally {
      await host.close();
    }
  });
});

describe('coffer mcp: a host that leaves while a payment waits for the owner', () => {
  const t = useCoffer();

  it('the bridge ends with its stdin, leaving nothing to buy for nobody', async () => {
    const agent = await fundedAgent(t, 'left-behind', '1.00', { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0 });
    await t.api('POST', t.withOwner('/v1/agents/left-behind/policy'), { body: { askAbove: '0' } });
    const bridge = spawn(process.execPath, [CLI, 'mcp'], {
      env: {
        ...process.env,
        COFFER_URL: t.url,
        COFFER_OWNER: t.owner,
        COFFER_AGENT_ID: 'left-behind',
        COFFER_API_KEY: agent.apiKey,
        COFFER_CONFIG: '/nonexistent/agent.json',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const exited = new Promise<number | null>((resolve) => bridge.once('exit', (code) => resolve(code)));
    const send = (message: object) => bridge.stdin.write(`${JSON.stringify(message)}\n`);
    const lines = createInterface({ input: bridge.stdout });
    const answers: { id?: number }[] = [];
    lines.on('line', (line) => answers.push(JSON.parse(line) as { id?: number }));
    // A host that opens URLs (2025): a held pay is shown to it and followed by the bridge, waiting for the owner.
    const initialize = {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { url: {} } },
      clientInfo: { name: 'raw', version: '1' },
    };
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize });
    while (!answers.some((answer) => answer.id === 1)) await new Promise((resolve) => setTimeout(resolve, 20));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'pay', arguments: { ...UNLISTED_API, amount: '0.10' } } });
    // The bridge asks the host to open the page (a request of its own); the host leaves without answering.
    while (!answers.some((answer) => (answer as { method?: string }).method === 'elicitation/create')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [waiting] = (await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as { approvalId: string }[];
    expect(waiting).toBeDefined();
    bridge.stdin.end();
    const within = await Promise.race([
      exited.then(() => 'ended'),
      new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000)),
    ]);
    bridge.kill('SIGKILL');
    expect(within).toBe('ended');
    // Its request went with it: a yes after pays no receipt for nobody (it did: pay's is paid at the yes).
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${waiting!.approvalId}`))).body).toMatchObject({ status: 'withdrawn' });
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${waiting!.approvalId}/approve`))).body).toMatchObject({
      code: 'approval_decided',
    });
    expect(await t.coffer.chain.usdcBalance(agent.walletAddress)).toBe(micro('1.00'));
  });
});
