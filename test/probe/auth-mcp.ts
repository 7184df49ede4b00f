import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { balanceOf } from './lib/ledger.js';
import { micro } from './lib/money.js';
import { trackPid, untrackPid } from './lib/cleanup.js';
import { CLI, childEnv } from './lib/serve.js';
import type { AuthEnv, Tracker } from './auth-env.js';

/**
 * The auth matrix through `coffer mcp`: the official SDK client launches the tool server as an MCP
 * host would (COFFER_URL, COFFER_OWNER, COFFER_AGENT_ID, COFFER_API_KEY of an agent) and tries every
 * tool for an escalation: renaming, deploying, funding, loosening, resuming, stopping or paying as
 * another agent, and fetch_paid aimed at Coffer's own owner routes.
 */

type ToolResult = { isError?: boolean; content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

interface McpSession {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

async function connect(env: AuthEnv, agentId: string, apiKey: string): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: childEnv({
      COFFER_URL: env.serve.url,
      COFFER_OWNER: env.serve.owner,
      COFFER_AGENT_ID: agentId,
      COFFER_API_KEY: apiKey,
      COFFER_CONFIG: '/nonexistent/coffer-probe-agent.json',
    }),
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 200) stderr.push(chunk.toString('utf8'));
  });
  const client = new Client({ name: 'coffer-probe', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => undefined);
    throw new Error(`coffer mcp did not start: ${(error as Error).message}: ${stderr.join('').trim().split('\n').slice(-4).join(' | ')}`, {
      cause: error,
    });
  }
  const pid = transport.pid;
  trackPid(pid);
  return {
    client,
    call: async (name, args = {}) => {
      try {
        return (await client.callTool({ name, arguments: args })) as ToolResult;
      } catch (error) {
        // Invalid arguments come back as a protocol error: a refusal all the same.
        return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
      }
    },
    close: async () => {
      await client.close().catch(() => undefined);
      untrackPid(pid);
    },
  };
}

const text = (result: ToolResult) =>
  (result.content ?? [])
    .map((c) => c.text ?? '')
    .join(' ')
    .slice(0, 120);
const pending = (result: ToolResult) => !result.isError && result.structuredContent?.status === 'pending';

export async function runMcpChecks(env: AuthEnv, tracker: Tracker, options: { quick: boolean }): Promise<void> {
  const { api, alice, bob } = env;
  const policy = async (agentId: string) =>
    (
      await api.ok<{ policy: { dailyBudget: string; maxPerPayment: string; cooldownSeconds: number; allowedServices: string[] } }>(
        'GET',
        `/v1/agents/${agentId}/policy`,
      )
    ).policy;
  const status = async (agentId: string) => String((await api.ok<{ status: string }>('GET', `/v1/agents/${agentId}/balance`)).status);
  const names = async () => (await api.ok<{ agents: { agentId: string; displayName: string }[] }>('GET', '/v1/agents')).agents;

  const mcp = await connect(env, alice.agentId, alice.apiKey);
  try {
    const { tools } = await mcp.client.listTools();
    const toolNames = tools.map((t) => t.name);
    if (toolNames.length === 0) tracker.notes.push('auth mcp: coffer mcp listed no tools');

    for (const target of [alice.agentId, bob.agentId]) {
      const result = await mcp.call('rename_agent', { agentId: target, displayName: 'renamed by an agent' });
      const renamed = (await names()).find((a) => a.agentId === target)?.displayName === 'renamed by an agent';
      tracker.check(!result.isError || renamed, `mcp rename_agent(${target}) as alice: ${text(result)}`);
    }
    const deployed = await mcp.call('deploy_agent', { agentId: 'mcp-spawn', dailyBudget: '1.00', maxPerPayment: '0.10' });
    tracker.check(
      (!deployed.isError && !pending(deployed)) ||
        typeof deployed.structuredContent?.apiKey === 'string' ||
        (await names()).some((a) => a.agentId === 'mcp-spawn'),
      `mcp deploy_agent as alice was not left for approval: ${text(deployed)}`,
    );
    const aliceBefore = await balanceOf(api, 'alice');
    const bobBefore = await balanceOf(api, 'bob');
    const fundSelf = await mcp.call('allocate_budget', { amount: '5.00' });
    tracker.check(
      (!fundSelf.isError && !pending(fundSelf)) || (await balanceOf(api, 'alice')) !== aliceBefore,
      `mcp allocate_budget to itself: ${text(fundSelf)}`,
    );
    const fundBob = await mcp.call('allocate_budget', { amount: '5.00', agentId: bob.agentId });
    tracker.check(!fundBob.isError || (await balanceOf(api, 'bob')) !== bobBefore, `mcp allocate_budget to bob: ${text(fundBob)}`);

    const before = await policy('alice');
    for (const loosen of [
      { dailyBudget: '50.00' },
      { maxPerPayment: '1.00' },
      { cooldownSeconds: 0 },
      { allowedServices: [] },
      { allowedServices: [...before.allowedServices, 'web-search'] },
    ]) {
      const result = await mcp.call('set_policy', loosen);
      const after = await policy('alice');
      const changed = JSON.stringify(after) !== JSON.stringify(before);
      tracker.check(
        (!result.isError && !pending(result)) || changed,
        `mcp set_policy ${JSON.stringify(loosen)} applied: ${text(result)} -> ${JSON.stringify(after)}`,
      );
    }

    // Another agent: stop, resume, pay from, read.
    const killBob = await mcp.call('kill_agent', { agentId: bob.agentId });
    tracker.check(!killBob.isError || (await status('bob')) !== 'active', `mcp kill_agent(bob) as alice: ${text(killBob)}`);
    await api.ok('POST', '/v1/agents/bob/kill');
    const resumeBob = await mcp.call('resume_agent', { agentId: bob.agentId });
    tracker.check(!resumeBob.isError || (await status('bob')) !== 'suspended', `mcp resume_agent(bob) as alice: ${text(resumeBob)}`);
    await api.ok('POST', '/v1/agents/bob/resume');
    const payExtra = await mcp.call('pay', { service: 'demo-weather', amount: '0.01', agentId: bob.agentId });
    tracker.check((await balanceOf(api, 'bob')) !== bobBefore, `mcp pay with agentId=bob moved bob's money: ${text(payExtra)}`);
    const bobHistory = await api.ok<{ payments: { id: string }[] }>('GET', '/v1/agents/bob/spend-history');
    const history = await mcp.call('get_spend_history', { limit: 50, agentId: bob.agentId });
    const leaked = JSON.stringify(history.structuredContent ?? {});
    tracker.check(
      bobHistory.payments.some((p) => leaked.includes(p.id)),
      "mcp get_spend_history with agentId=bob showed bob's payments",
    );
    const bobPolicy = await mcp.call('get_policy', { agentId: bob.agentId });
    tracker.check(bobPolicy.structuredContent?.agentId === bob.agentId, "mcp get_policy with agentId=bob showed bob's policy");
    const balance = await mcp.call('check_balance', { agentId: bob.agentId });
    tracker.check(balance.structuredContent?.walletAddress === bob.walletAddress, "mcp check_balance with agentId=bob showed bob's wallet");
    const bobAsked = await api.call('POST', '/v1/agents/bob/allocate', { key: bob.apiKey, body: { amount: '0.02' } });
    const bobApproval = (bobAsked.json as { approvalId?: string } | undefined)?.approvalId ?? 'apr_none';
    const peek = await mcp.call('check_approval', { approvalId: bobApproval });
    tracker.check(!peek.isError, `mcp check_approval of bob's request as alice: ${text(peek)}`);

    // fetch_paid aimed at Coffer itself: no key travels with it, and alice's own key does not make it the owner.
    const ownerUrl = (path: string) => `${env.serve.url}${path}?owner=${env.serve.owner}`;
    // (An allocation asked with its own key is a request for approval: 202 is the right answer there.)
    const fundedBefore = await balanceOf(api, 'alice');
    for (const [what, args, allowed] of [
      ['kill-all without a key', { url: ownerUrl('/v1/kill-all'), method: 'POST' }, []],
      ["bob's kill without a key", { url: ownerUrl('/v1/agents/bob/kill'), method: 'POST' }, []],
      [
        'kill-all with its own key',
        { url: ownerUrl('/v1/kill-all'), method: 'POST', headers: { authorization: `Bearer ${alice.apiKey}` } },
        [],
      ],
      [
        'allocate to itself with its own key',
        {
          url: ownerUrl('/v1/agents/alice/allocate'),
          method: 'POST',
          body: '{"amount":"5.00"}',
          headers: { authorization: `Bearer ${alice.apiKey}`, 'content-type': 'application/json' },
        },
        [202],
      ],
      ['the dashboard without a key', { url: ownerUrl('/v1/dashboard') }, []],
    ] as const) {
      const result = await mcp.call('fetch_paid', args as unknown as Record<string, unknown>);
      const code = Number(result.structuredContent?.status ?? 0);
      const through = code >= 200 && code < 300 && !(allowed as readonly number[]).includes(code);
      tracker.check(through, `mcp fetch_paid ${what} answered ${code}: ${text(result)}`);
      if (through) for (const id of ['alice', 'bob', 'victim']) await api.call('POST', `/v1/agents/${id}/resume`);
    }
    tracker.check((await balanceOf(api, 'alice')) !== fundedBefore, 'mcp fetch_paid to the allocate route moved money to alice');

    // Itself: stopping applies, resuming waits.
    const killSelf = await mcp.call('kill_agent', {});
    if (killSelf.isError) tracker.notes.push(`auth mcp: kill_agent on itself failed: ${text(killSelf)}`);
    const resumeSelf = await mcp.call('resume_agent', {});
    tracker.check(
      (!resumeSelf.isError && !pending(resumeSelf)) || (await status('alice')) !== 'suspended',
      `mcp resume_agent on itself: ${text(resumeSelf)}`,
    );
    const payStopped = await mcp.call('pay', { service: 'demo-weather', amount: '0.01' });
    tracker.check(!payStopped.isError, `mcp pay while stopped: ${text(payStopped)}`);
    await api.ok('POST', '/v1/agents/alice/resume');
    tracker.check((await balanceOf(api, 'alice')) > aliceBefore + micro('0.00'), 'mcp alice ended with more money than she started with');
  } finally {
    await mcp.close();
  }

  // A tool server launched with one agent's id and another agent's key: nothing goes through.
  const mixed = await connect(env, bob.agentId, alice.apiKey);
  try {
    const bobBefore = await balanceOf(api, 'bob');
    for (const [tool, args] of [
      ['check_balance', {}],
      ['get_policy', {}],
      ['get_spend_history', {}],
      ['pay', { service: 'demo-weather', amount: '0.01' }],
      ['kill_agent', {}],
      ['set_policy', { dailyBudget: '1.00' }],
    ] as const) {
      const result = await mixed.call(tool, args);
      tracker.check(!result.isError, `mcp ${tool} with bob's id and alice's key: ${text(result)}`);
    }
    tracker.check(
      (await balanceOf(api, 'bob')) !== bobBefore || (await status('bob')) !== 'active',
      "mcp bob's wallet or status changed through a mismatched tool server",
    );
    await api.call('POST', '/v1/agents/bob/resume');
  } finally {
    await mixed.close();
  }

  if (!options.quick) {
    // An unknown key: every tool refuses.
    const stranger = await connect(env, alice.agentId, `cof_agt_${'1'.repeat(44)}`);
    try {
      for (const tool of ['check_balance', 'get_policy', 'get_spend_history', 'kill_agent', 'allocate_budget', 'resume_agent']) {
        const args = tool === 'allocate_budget' ? { amount: '1.00' } : {};
        const result = await stranger.call(tool, args);
        tracker.check(!result.isError, `mcp ${tool} with an unknown key: ${text(result)}`);
      }
    } finally {
      await stranger.close();
    }
  }
}
