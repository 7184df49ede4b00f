import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedAgent, micro, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { close, listen } from '../helpers/http-server.js';
import { CLI } from '../helpers/serve-process.js';
import { connectMcpHost, MCP_ERAS, type McpHost, type OpensUrl } from '../helpers/mcp-host.js';
import { createDemoApi } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall-store.js';
import { cofferTransferLookup } from '../../server/x402/transfer-lookups.js';

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
  async function heldAgent(opensUrl?: OpensUrl): Promise<{ agentId: string; walletAddress: string; host: McpHost }> {
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
    };
    const host = await connectMcpHost({ command: process.execPath, args: [CLI, 'mcp'], env }, era, { opensUrl });
    return { agentId, walletAddress: agent.walletAddress, host };
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
});
