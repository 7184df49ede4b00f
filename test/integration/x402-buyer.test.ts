/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { close, listen } from '../helpers/http-server.js';
import { address, generateKeyPairSigner, getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { TestCluster } from '../fixtures/test-cluster.js';
import { usdcOn } from '../helpers/cluster-usdc.js';
import { answerOf, startFacilitator, startV1Seller, startV2Seller, type TestFacilitator, type TestSeller } from '../fixtures/x402-peers.js';
import { deployAgent, micro } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { expectError } from '../helpers/expect-error.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { PaymentError } from '../../server/x402/paying-fetch/payment-error.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, runCoffer as cli } from '../helpers/serve-process.js';
import { writeAgentConfig } from '../../server/linked-agent/agent-config.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Coffer pays x402 sellers: the official `@x402/express` (v2) and `x402-express` (v1) sellers, each
 * settling through the official facilitator, on a local cluster presented as devnet. The agent hands
 * Coffer the 402, Coffer signs within the agent's policy, the agent retries with the header.
 */
describe('Coffer pays x402 sellers (POST /v1/agents/:id/x402)', () => {
  let cluster: TestCluster;
  let facilitator: TestFacilitator;
  let sellerWallet: string;
  let v2: TestSeller;
  let v1: TestSeller;

  const usdc = (wallet: string) => usdcOn(cluster, wallet);

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
  });
  afterAll(async () => cluster.stop());
  const t = useCoffer(() => ({ network: cluster.url }));
  beforeAll(async () => {
    cluster.airdrop(t.owner);
    await cluster.mintUsdc(t.owner, micro('100'));
    facilitator = await startFacilitator(cluster);
    sellerWallet = (await generateKeyPairSigner()).address;
    await cluster.mintUsdc(sellerWallet, 0n);
    v2 = await startV2Seller(facilitator, { payTo: sellerWallet, price: '$0.01' });
    v1 = await startV1Seller(facilitator, { payTo: sellerWallet, price: '$0.01' });
  });
  afterAll(async () => {
    await v2.close();
    await v1.close();
    await facilitator.close();
  });

  async function fundedX402Agent(agentId: string, amount: string, policy: Record<string, unknown> = {}) {
    const agent = await deployAgent(t, agentId, { dailyBudget: '5', maxPerPayment: '1', ...policy });
    const allocated = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount } });
    expect(allocated.status).toBe(200);
    return agent;
  }

  const payX402 = (agentId: string, key: string, answer: unknown, idempotencyKey?: string) =>
    t.api('POST', t.withOwner(`/v1/agents/${agentId}/x402`), {
      key,
      body: answer,
      headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
    });

  it.each([
    ['v2 (@x402/express, PAYMENT-REQUIRED header)', () => v2, 'PAYMENT-SIGNATURE'],
    ['v1 (x402-express, x402Version body)', () => v1, 'X-PAYMENT'],
  ])('pays a %s seller: signed within policy, the facilitator sends, the seller serves once', async (_label, seller, headerName) => {
    const agentId = `buyer-${headerName.toLowerCase()}`;
    const agent = await fundedX402Agent(agentId, '1.00');
    const before = { agent: await usdc(agent.walletAddress), seller: await usdc(sellerWallet), served: seller().served };

    const unpaid = await fetch(seller().url);
    expect(unpaid.status).toBe(402);
    const paid = await payX402(agentId, agent.apiKey, await answerOf(unpaid, seller().url));
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      status: 'pending',
      amount: '0.01',
      currency: 'USDC',
      recipient: sellerWallet,
      network: 'devnet',
      resource: seller().url,
      txSignature: null,
      header: { name: headerName },
    });

    const retried = await fetch(seller().url, { headers: { [paid.body.header.name]: paid.body.header.value } });
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ data: 'the paid answer' });
    expect(seller().served).toBe(before.served + 1);
    // Money moved once: 0.01 from the agent's wallet to the seller, the fee paid by the facilitator.
    expect(await usdc(agent.walletAddress)).toBe(before.agent - micro('0.01'));
    expect(await usdc(sellerWallet)).toBe(before.seller + micro('0.01'));
    expect(cluster.ledger.svm.getBalance(address(agent.walletAddress)) ?? 0n).toBe(0n);

    const response: Record<string, string> = {};
    retried.headers.forEach((value, name) => (response[name] = value));
    const settled = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/x402/${paid.body.paymentId}/settlement`), {
      key: agent.apiKey,
      body: { headers: response },
    });
    expect(settled.status).toBe(200);
    expect(settled.body.status).toBe('confirmed');
    expect(settled.body.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const history = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key: agent.apiKey });
    expect(history.body.payments[0]).toMatchObject({
      status: 'confirmed',
      amount: '0.01',
      recipient: sellerWallet,
      txSignature: settled.body.txSignature,
    });
  });

  const agentOf = (agentId: string, apiKey: string) => ({ cofferUrl: t.url, owner: t.owner, agentId, apiKey });
  const history = async (agentId: string, key: string) =>
    (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key })).body.payments as any[];
  /** What the ledger says the agent spent (confirmed) equals what left its wallet on chain. */
  const ledgerMatchesChain = async (agentId: string, key: string, wallet: string, allocated: bigint) => {
    const spent = (await history(agentId, key))
      .filter((entry) => entry.status === 'confirmed')
      .reduce((sum, entry) => sum + micro(entry.amount), 0n);
    expect(await usdc(wallet)).toBe(allocated - spent);
  };

  it.each([
    ['v2', () => v2],
    ['v1 (the case where Coffer used to pay and get nothing)', () => v1],
  ])(
    'payingFetch pays an official %s seller: 200 with the data, the payment confirmed, the ledger equals the chain',
    async (_label, seller) => {
      const agentId = `fetcher-${seller() === v2 ? 'v2' : 'v1'}`;
      const agent = await fundedX402Agent(agentId, '1.00');
      const served = seller().served;
      const asked: string[] = [];
      const recording: typeof fetch = (input, init) => {
        asked.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      };
      const {
        response,
        payment: made,
        settlement,
      } = await payingFetch(seller().url, {}, { agent: agentOf(agentId, agent.apiKey), fetch: recording });
      // The settlement report is not even started before the caller has its answer.
      const reported = () => asked.some((url) => new URL(url).pathname.endsWith('/settlement'));
      expect(reported()).toBe(false);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ data: 'the paid answer' });
      expect(seller().served).toBe(served + 1);
      // The answer does not wait for the seller's settlement to be reported to Coffer...
      expect(made).toMatchObject({ protocol: 'x402', amount: '0.01', status: 'pending', txSignature: null });
      // ...which follows: Coffer's word on the payment, confirmed with its transaction.
      const payment = await settlement;
      expect(reported()).toBe(true);
      expect(payment).toMatchObject({
        protocol: 'x402',
        paymentId: made!.paymentId,
        amount: '0.01',
        status: 'confirmed',
        txSignature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/),
      });
      const [entry] = await history(agentId, agent.apiKey);
      expect(entry).toMatchObject({
        status: 'confirmed',
        protocol: 'x402',
        resource: seller().url,
        recipient: sellerWallet,
        txSignature: payment!.txSignature,
      });
      await ledgerMatchesChain(agentId, agent.apiKey, agent.walletAddress, micro('1.00'));
    },
  );

  it.each([
    ['v2', () => v2],
    ['v1', () => v1],
  ])(
    'a purchase held for the owner (%s): payingFetch waits, the owner approves, it is bought once with fresh terms; denied, nothing is paid',
    async (label, seller) => {
      const agentId = `held-${label}`;
      const agent = await fundedX402Agent(agentId, '1.00', { askAbove: '0' });
      const served = seller().served;
      const approvals = () => t.api('GET', t.withOwner('/v1/approvals?status=pending'));
      let held: { approvalId: string; request: { amount: string } } | null = null;
      const buying = payingFetch(
        seller().url,
        {},
        { agent: agentOf(agentId, agent.apiKey), onHeld: (approval) => (held = approval as never) },
      );
      // The owner sees it waiting, and says yes.
      let waiting: any[] = [];
      for (let i = 0; i < 100 && waiting.length === 0; i += 1) {
        waiting = ((await approvals()).body.approvals as any[]).filter((a) => a.agentId === agentId);
        if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(waiting).toHaveLength(1);
      expect(waiting[0]).toMatchObject({
        kind: 'payment',
        request: { amount: '0.01', recipient: sellerWallet, reason: { code: 'ask_above' } },
      });
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${waiting[0].approvalId}/approve`))).body.status).toBe('approved');
      const { response, settlement } = await buying;
      expect(held).toMatchObject({ approvalId: waiting[0].approvalId });
      expect(response.status).toBe(200);
      expect(seller().served).toBe(served + 1);
      expect(await settlement).toMatchObject({ protocol: 'x402', amount: '0.01', status: 'confirmed', paymentId: waiting[0].paymentId });
      const entries = await history(agentId, agent.apiKey);
      expect(entries.filter((entry) => entry.status === 'confirmed')).toHaveLength(1);
      await ledgerMatchesChain(agentId, agent.apiKey, agent.walletAddress, micro('1.00'));

      // Denied: payingFetch fails saying so, and nothing moves.
      const denied = payingFetch(seller().url, {}, { agent: agentOf(agentId, agent.apiKey) });
      let next: any[] = [];
      for (let i = 0; i < 100 && next.length === 0; i += 1) {
        next = ((await approvals()).body.approvals as any[]).filter((a) => a.agentId === agentId);
        if (next.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await t.api('POST', t.withOwner(`/v1/approvals/${next[0].approvalId}/deny`));
      await expect(denied).rejects.toMatchObject({ code: 'payment_refused', details: { cofferCode: 'payment_denied' } });
      expect(seller().served).toBe(served + 1);
      await ledgerMatchesChain(agentId, agent.apiKey, agent.walletAddress, micro('1.00'));
    },
  );

  it("a purchase held, the owner's yes given, and the caller gives up before it is bought: the yes is withdrawn, nothing paid", async () => {
    const agentId = 'yes-given-up';
    const agent = await fundedX402Agent(agentId, '1.00', { askAbove: '0' });
    const served = v2.served;
    const caller = new AbortController();
    let held: { approvalId: string } | null = null;
    let sellerCalls = 0;
    // The seller asked again after the yes (its second call): the caller gives up as it goes out.
    const doFetch: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).startsWith(v2.url) && ++sellerCalls === 2) caller.abort();
      return fetch(input, init);
    };
    const buying = payingFetch(
      v2.url,
      { signal: caller.signal },
      { agent: agentOf(agentId, agent.apiKey), fetch: doFetch, onHeld: (approval) => (held = approval) },
    ).catch((error: unknown) => error);
    for (let i = 0; i < 100 && held === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${held!.approvalId}/approve`))).body.status).toBe('approved');
    expect(await buying).toBe(caller.signal.reason);
    expect((await t.api('GET', t.withOwner(`/v1/approvals/${held!.approvalId}`))).body.status).toBe('withdrawn');
    expect(v2.served).toBe(served);
    expect((await history(agentId, agent.apiKey)).filter((entry) => entry.status !== 'failed')).toHaveLength(0);
    await ledgerMatchesChain(agentId, agent.apiKey, agent.walletAddress, micro('1.00'));
  });

  it("the caller's signal aborted once the seller offered x402, before Coffer pays: its reason, nothing paid", async () => {
    const agentId = 'aborts-x402';
    const agent = await fundedX402Agent(agentId, '1.00');
    const served = v2.served;
    const caller = new AbortController();
    // Aborted once the seller's 402 has come (read whole), before Coffer is asked anything.
    const doFetch: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      if (answer.status === 402) {
        await answer.clone().arrayBuffer();
        caller.abort();
      }
      return answer;
    };
    const error = await payingFetch(v2.url, { signal: caller.signal }, { agent: agentOf(agentId, agent.apiKey), fetch: doFetch }).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBe(caller.signal.reason);
    expect(v2.served).toBe(served);
    expect(await history(agentId, agent.apiKey)).toEqual([]);
    await ledgerMatchesChain(agentId, agent.apiKey, agent.walletAddress, micro('1.00'));
  });

  it("a purchase held for the owner, and the caller gives up (its signal): the request is withdrawn, the signal's reason thrown, nothing paid", async () => {
    const agentId = 'held-given-up';
    const agent = await fundedX402Agent(agentId, '1.00', { askAbove: '0' });
    const served = v2.served;
    const caller = new AbortController();
    let held: { approvalId: string } | null = null;
    const buying = payingFetch(
      v2.url,
      { signal: caller.signal },
      { agent: agentOf(agentId, agent.apiKey), onHeld: (approval) => (held = approval) },
    ).catch((error: unknown) => error);
    for (let i = 0; i < 100 && held === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    const givenUpAt = Date.now();
    caller.abort();
    // Thrown as fetch throws it, at once: not after the long poll's minute.
    expect(await buying).toBe(caller.signal.reason);
    expect(Date.now() - givenUpAt).toBeLessThan(10_000);
    const request = (await t.api('GET', t.withOwner(`/v1/approvals/${held!.approvalId}`))).body;
    expect(request.status).toBe('withdrawn');
    // The owner's yes now finds nothing to carry out.
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${held!.approvalId}/approve`))).status).toBe(409);
    expect(v2.served).toBe(served);
    expect((await history(agentId, agent.apiKey)).filter((entry) => entry.status !== 'failed')).toHaveLength(0);
    await ledgerMatchesChain(agentId, agent.apiKey, agent.walletAddress, micro('1.00'));
  });

  it("a purchase held for the owner whose URL redirects elsewhere after the yes: the other URL's 402 is not paid under it", async () => {
    const agentId = 'held-moved';
    const agent = await fundedX402Agent(agentId, '1.00', { askAbove: '0' });
    const served = v2.served;
    // One server under two names (127.0.0.1, localhost): it passes the seller's answers on, until it
    // moves the URL asked to its other name.
    let moved = false;
    const relay = await listen(
      express().get('/item', async (req, res) => {
        if (moved && req.hostname === '127.0.0.1') return res.redirect(302, `${elsewhere}/item`);
        const payment = req.get('payment-signature');
        const answer = await fetch(v2.url, { headers: payment === undefined ? {} : { 'payment-signature': payment } });
        for (const name of ['payment-required', 'payment-response', 'content-type']) {
          const value = answer.headers.get(name);
          if (value !== null) res.set(name, value);
        }
        res.status(answer.status).send(Buffer.from(await answer.arrayBuffer()));
      }),
    );
    const elsewhere = relay.url.replace('127.0.0.1', 'localhost');
    try {
      let held: { approvalId: string } | null = null;
      const buying = payingFetch(
        `${relay.url}/item`,
        {},
        { agent: agentOf(agentId, agent.apiKey), onHeld: (approval) => (held = approval) },
      );
      for (let i = 0; i < 100 && held === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      moved = true;
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${held!.approvalId}/approve`))).body.status).toBe('approved');
      await expect(buying).rejects.toMatchObject({
        code: 'unsupported_offer',
        message: `${relay.url}/item now redirects to ${elsewhere}/item, which asked for payment: the owner's yes was for ${relay.url}/item; nothing was paid`,
      });
      expect(v2.served).toBe(served);
      expect((await history(agentId, agent.apiKey)).filter((entry) => entry.status !== 'held')).toEqual([]);
    } finally {
      await close(relay.server);
    }
  });

  it('a purchase held for an earlier call that went away: payingFetch given its approvalId waits for that yes and buys once under it, asking nothing anew', async () => {
    const agentId = 'held-resumed';
    const agent = await fundedX402Agent(agentId, '1.00', { askAbove: '0' });
    const served = v2.served;
    const pending = async () =>
      ((await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as any[]).filter((a) => a.agentId === agentId);
    // The earlier call: its purchase held for the owner; then it went away (a restart, a crash).
    const held = await payX402(agentId, agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect(held.status).toBe(202);
    const { approvalId, paymentId } = held.body;
    let told: { approvalId: string } | null = null;
    const buying = payingFetch(v2.url, {}, { agent: agentOf(agentId, agent.apiKey), approvalId, onHeld: (approval) => (told = approval) });
    for (let i = 0; i < 100 && told === null; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(told).toMatchObject({ approvalId });
    // One request for the owner, the earlier one.
    expect((await pending()).map((a) => a.approvalId)).toEqual([approvalId]);
    await t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/approve`));
    const { response, settlement } = await buying;
    expect(response.status).toBe(200);
    expect(v2.served).toBe(served + 1);
    expect(await settlement).toMatchObject({ protocol: 'x402', paymentId, status: 'confirmed' });
    // Under the same approval again: Coffer answers the purchase made (as a retry of it), which the
    // seller refuses as settled; nothing more is paid, and the words say it was made.
    const again = await payingFetch(v2.url, {}, { agent: agentOf(agentId, agent.apiKey), approvalId }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(PaymentError);
    expect(again).toMatchObject({ code: 'paid_call_failed', details: { payment: { paymentId, status: 'confirmed' } } });
    expect((again as Error).message).not.toMatch(/gives its budget back/);
    expect(await pending()).toEqual([]);
    expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
    // Used for another seller's URL: refused before anything waits or is bought.
    await expect(payingFetch(v1.url, {}, { agent: agentOf(agentId, agent.apiKey), approvalId })).rejects.toMatchObject({
      code: 'payment_refused',
      details: { cofferCode: 'approval_mismatch' },
      message: expect.stringContaining(`is for ${v2.url}, not ${v1.url}`),
    });
    expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
    // Another agent's request, or none: refused, nothing paid.
    const other = await fundedX402Agent('held-other', '1.00', { askAbove: '0' });
    await expect(payingFetch(v2.url, {}, { agent: agentOf('held-other', other.apiKey), approvalId })).rejects.toMatchObject({
      code: 'payment_refused',
      details: { cofferCode: 'wrong_agent' },
    });
    await expect(
      payingFetch(v2.url, {}, { agent: agentOf('held-other', other.apiKey), approvalId: 'apr_none0000000000' }),
    ).rejects.toMatchObject({ code: 'payment_refused', details: { cofferCode: 'approval_not_found' } });
    expect(await usdc(other.walletAddress)).toBe(micro('1.00'));
  });

  it("a seller gone after the owner's yes is named, not Coffer; nothing is paid", async () => {
    const agentId = 'held-gone';
    const agent = await fundedX402Agent(agentId, '1.00', { askAbove: '0' });
    let calls = 0;
    // The seller answers its 402, then no more (the host went away while the owner decided).
    const sellerThenGone: typeof fetch = async (input, init) => {
      // Coffer's own calls go through too: only the seller's are counted and cut.
      if (!String(input instanceof Request ? input.url : input).startsWith(v2.url)) return fetch(input, init);
      calls += 1;
      if (calls > 1)
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      return fetch(input, init);
    };
    const buying = payingFetch(v2.url, {}, { agent: agentOf(agentId, agent.apiKey), fetch: sellerThenGone });
    let waiting: any[] = [];
    for (let i = 0; i < 100 && waiting.length === 0; i += 1) {
      waiting = ((await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as any[]).filter(
        (a) => a.agentId === agentId,
      );
      if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await t.api('POST', t.withOwner(`/v1/approvals/${waiting[0].approvalId}/approve`));
    const failed = await buying.then(
      () => null,
      (error: unknown) => error as { code: string; message: string },
    );
    expect(failed?.code).toBe('url_unreachable');
    expect(failed?.message).toMatch(/could not be reached after the owner's yes \(.+\); nothing was paid/);
    // Tried again before giving up, as any call the agent makes.
    expect(calls).toBeGreaterThan(2);
    expect(await usdc(agent.walletAddress)).toBe(micro('1.00'));
  });

  it('MCP fetch_paid pays the v2 and the v1 seller through the stdio bridge', async () => {
    const agent = await fundedX402Agent('mcp-buyer', '1.00');
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: {
          ...(process.env as Record<string, string>),
          COFFER_URL: t.url,
          COFFER_OWNER: t.owner,
          COFFER_AGENT_ID: 'mcp-buyer',
          COFFER_API_KEY: agent.apiKey,
          COFFER_CONFIG: '/nonexistent/agent.json',
        },
        stderr: 'pipe',
      }),
    );
    try {
      for (const seller of [v2, v1]) {
        const served = seller.served;
        const result = (await client.callTool({ name: 'fetch_paid', arguments: { url: seller.url } })) as {
          isError?: boolean;
          structuredContent?: any;
          content: { text: string }[];
        };
        expect(result.isError, result.content[0]?.text).toBeFalsy();
        // As `coffer fetch` says it: Coffer's word once the seller's settlement reached it.
        expect(result.structuredContent).toMatchObject({ status: 200, payment: { protocol: 'x402', amount: '0.01', status: 'confirmed' } });
        expect(result.structuredContent.payment.txSignature).toEqual(expect.any(String));
        expect(JSON.parse(result.structuredContent.body)).toMatchObject({ data: 'the paid answer' });
        expect(seller.served).toBe(served + 1);
      }
      // Held for the owner: the host hears, as progress, that it waits and where the owner decides; approved, it completes.
      await t.api('POST', t.withOwner('/v1/agents/mcp-buyer/policy'), { body: { askAbove: '0' } });
      const told: string[] = [];
      const served = v2.served;
      const calling = client.callTool({ name: 'fetch_paid', arguments: { url: v2.url } }, undefined, {
        onprogress: (progress) => told.push(progress.message ?? ''),
        resetTimeoutOnProgress: true,
      });
      let waiting: any[] = [];
      for (let i = 0; i < 100 && waiting.length === 0; i += 1) {
        waiting = (await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as any[];
        if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (let i = 0; i < 100 && told.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(told[0]).toMatch(new RegExp(`waits for the owner's yes .*${t.url}/#/approvals/${waiting[0].approvalId} `));
      // What it waits for, its rail said: the policy's reason names an amount, not the chain.
      expect(told[0]).toMatch(/^This payment \(0\.01 USDC on Solana for 127\.0\.0\.1:\d+\) waits for the owner's yes \(/);
      await t.api('POST', t.withOwner(`/v1/approvals/${waiting[0].approvalId}/approve`));
      const result = (await calling) as { isError?: boolean; structuredContent?: any; content: { text: string }[] };
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 200, payment: { protocol: 'x402', status: 'confirmed' } });
      expect(v2.served).toBe(served + 1);
    } finally {
      await client.close();
    }
    expect(await usdc(agent.walletAddress)).toBe(micro('0.97'));
    await ledgerMatchesChain('mcp-buyer', agent.apiKey, agent.walletAddress, micro('1.00'));
  });

  it('every policy refusal applies to x402 payments, and moves nothing', async () => {
    const unpaid = await answerOf(await fetch(v2.url), v2.url);
    const refusedWith = async (agentId: string, key: string, code: string) => {
      const before = await usdc((await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`), { key })).body.walletAddress);
      const answer = await payX402(agentId, key, unpaid);
      expect(answer.body.code).toBe(code);
      expect(answer.status).toBe(code === 'agent_suspended' ? 403 : 402);
      expect(await history(agentId, key)).toHaveLength(0);
      const wallet = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`), { key })).body.walletAddress;
      expect(await usdc(wallet)).toBe(before);
    };
    const small = await fundedX402Agent('x-small', '1.00', { maxPerPayment: '0.005' });
    await refusedWith('x-small', small.apiKey, 'max_per_payment_exceeded');
    const narrow = await fundedX402Agent('x-narrow', '1.00', { allowedServices: ['demo-weather'] });
    await refusedWith('x-narrow', narrow.apiKey, 'service_not_allowed');
    const broke = await deployAgent(t, 'x-broke', { dailyBudget: '5', maxPerPayment: '1' });
    await refusedWith('x-broke', broke.apiKey, 'insufficient_funds');
    const stopped = await fundedX402Agent('x-stopped', '1.00');
    expect((await t.api('POST', t.withOwner('/v1/agents/x-stopped/kill'))).status).toBe(200);
    await refusedWith('x-stopped', stopped.apiKey, 'agent_suspended');
    // The budget and the cooldown count x402 payments like any other.
    const thrifty = await fundedX402Agent('x-thrifty', '1.00', { dailyBudget: '0.01', cooldownSeconds: 0 });
    expect((await payX402('x-thrifty', thrifty.apiKey, unpaid)).status).toBe(200);
    expect((await payX402('x-thrifty', thrifty.apiKey, await answerOf(await fetch(v2.url), v2.url))).body.code).toBe(
      'daily_budget_exceeded',
    );
    const patient = await fundedX402Agent('x-patient', '1.00', { cooldownSeconds: 3600 });
    expect((await payX402('x-patient', patient.apiKey, unpaid)).status).toBe(200);
    expect((await payX402('x-patient', patient.apiKey, await answerOf(await fetch(v2.url), v2.url))).body.code).toBe('cooldown_active');
    // allowedServices may name the seller's address.
    const pinned = await fundedX402Agent('x-pinned', '1.00', { allowedServices: [sellerWallet] });
    expect((await payX402('x-pinned', pinned.apiKey, unpaid)).status).toBe(200);
    // The owner sees each refusal.
    const refusals = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals as any[];
    expect(refusals.map((refusal) => refusal.code)).toEqual(
      expect.arrayContaining(['max_per_payment_exceeded', 'service_not_allowed', 'daily_budget_exceeded']),
    );
  });

  it('refuses a price above the registry listing of the recipient, before signing anything', async () => {
    // The demo services are listed at 0.01 and paid to this address: a seller there asking more is refused.
    const listedPayTo = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
    await cluster.mintUsdc(listedPayTo, 0n);
    const dear = await startV2Seller(facilitator, { payTo: listedPayTo, price: '$0.05' });
    try {
      const agent = await fundedX402Agent('x-dear', '1.00');
      const error = await payingFetch(dear.url, {}, { agent: agentOf('x-dear', agent.apiKey) }).catch((e) => e);
      expect(error).toBeInstanceOf(PaymentError);
      expect(error.code).toBe('price_above_registry');
      expect(await history('x-dear', agent.apiKey)).toHaveLength(0);
      expect(await usdc(agent.walletAddress)).toBe(micro('1.00'));
      expect(dear.served).toBe(0);
    } finally {
      await dear.close();
    }
  });

  it('refuses offers it cannot pay: another network, another asset, no fee payer, the agent as fee payer', async () => {
    const agent = await fundedX402Agent('x-odd', '1.00');
    const unpaid = await answerOf(await fetch(v2.url), v2.url);
    const required = JSON.parse(Buffer.from(unpaid.headers['payment-required']!, 'base64').toString());
    const variant = (edit: (accept: any) => void) => {
      const copy = structuredClone(required);
      edit(copy.accepts[0]);
      return { ...unpaid, headers: { ...unpaid.headers, 'payment-required': Buffer.from(JSON.stringify(copy)).toString('base64') } };
    };
    const cases: [string, any][] = [
      ['mainnet', variant((accept) => (accept.network = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'))],
      ['another asset', variant((accept) => (accept.asset = 'So11111111111111111111111111111111111111112'))],
      ['another scheme', variant((accept) => (accept.scheme = 'upto'))],
      ['no fee payer', variant((accept) => delete accept.extra.feePayer)],
      ['the agent as fee payer', variant((accept) => (accept.extra.feePayer = agent.walletAddress))],
      ['the treasury as fee payer', variant((accept) => (accept.extra.feePayer = t.owner))],
    ];
    for (const [label, answer] of cases) {
      const refused = await payX402('x-odd', agent.apiKey, answer);
      expect(refused.status, label).toBe(422);
      expect(refused.body.code, label).toBe('unsupported_offer');
    }
    const garbled = await payX402('x-odd', agent.apiKey, {
      ...unpaid,
      headers: { 'payment-required': Buffer.from('{"x402Version":2,"accepts":"no"}').toString('base64') },
    });
    expect(garbled.body.code).toBe('unreadable_402');
    // What does not follow x402 is named, so the seller knows what to mend.
    expect(garbled.body.error).toBe('the x402 offer does not follow the protocol: resource: Required');
    const untimed = await payX402(
      'x-odd',
      agent.apiKey,
      variant((accept) => delete accept.maxTimeoutSeconds),
    );
    expect([untimed.body.code, untimed.body.error]).toEqual([
      'unreadable_402',
      'the x402 offer does not follow the protocol: accepts[0].maxTimeoutSeconds: Required',
    ]);
    const nothing = await payX402('x-odd', agent.apiKey, { url: v2.url, status: 402, headers: {}, body: { hello: 1 } });
    expect(nothing.body.code).toBe('unreadable_402');
    expect(await history('x-odd', agent.apiKey)).toHaveLength(0);
    expect(await usdc(agent.walletAddress)).toBe(micro('1.00'));
  });

  it('a replayed or tampered payment header is refused by the seller; the money moves once', async () => {
    const agent = await fundedX402Agent('x-replay', '1.00');
    const unpaid = await answerOf(await fetch(v2.url), v2.url);
    const paid = await payX402('x-replay', agent.apiKey, unpaid);
    const header = paid.body.header as { name: string; value: string };
    const payload = JSON.parse(Buffer.from(header.value, 'base64').toString());
    const bytes = Buffer.from(payload.payload.transaction, 'base64');
    bytes[bytes.length - 9]! ^= 0xff; // one byte of the signed message
    payload.payload.transaction = bytes.toString('base64');
    const tampered = Buffer.from(JSON.stringify(payload)).toString('base64');
    // (@x402/express runs the route before it settles and answers 402 when settling fails, so what
    // the buyer receives is counted here, not how often the route ran.)
    const statuses = [];
    for (const value of [tampered, header.value, header.value])
      statuses.push((await fetch(v2.url, { headers: { [header.name]: value } })).status);
    expect(statuses).toEqual([402, 200, 402]);
    expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
    await t.coffer.engine.reconcile();
    expect((await history('x-replay', agent.apiKey)).map((entry) => entry.status)).toEqual(['confirmed']);
    await ledgerMatchesChain('x-replay', agent.apiKey, agent.walletAddress, micro('1.00'));
  });

  it('the same request under the same Idempotency-Key is the same payment and header; another request under it is 409', async () => {
    const agent = await fundedX402Agent('x-keyed', '1.00');
    const unpaid = await answerOf(await fetch(v2.url), v2.url);
    const first = await payX402('x-keyed', agent.apiKey, unpaid, 'k-1');
    const again = await payX402('x-keyed', agent.apiKey, unpaid, 'k-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await payX402('x-keyed', agent.apiKey, await answerOf(await fetch(v1.url), v1.url), 'k-1');
    expectError(other, 409, 'idempotency_key_reused');
    expect(await history('x-keyed', agent.apiKey)).toHaveLength(1);
  });

  it('records the URL as the seller was asked, however a client spelled it (a #fragment, one slash, capitals)', async () => {
    const agent = await fundedX402Agent('x-spelled', '1.00');
    const unpaid = await answerOf(await fetch(v2.url), v2.url);
    const asked = new URL(v2.url);
    // `HTTP:127.0.0.1:port/path#top` is what fetch sends as http://127.0.0.1:port/path.
    const spelled = `HTTP:${asked.host}${asked.pathname}${asked.search}#top`;
    const paid = await payX402('x-spelled', agent.apiKey, { ...unpaid, url: spelled });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const [payment] = await history('x-spelled', agent.apiKey);
    expect(payment).toMatchObject({ resource: asked.href, description: `GET ${asked.href}` });
  });

  it("a lost PAYMENT-RESPONSE still ends confirmed: reconciliation finds the transaction by the agent's signature", async () => {
    const agent = await fundedX402Agent('x-lost', '1.00');
    const paid = await payX402('x-lost', agent.apiKey, await answerOf(await fetch(v1.url), v1.url));
    expect((await fetch(v1.url, { headers: { [paid.body.header.name]: paid.body.header.value } })).status).toBe(200);
    expect((await history('x-lost', agent.apiKey))[0].status).toBe('pending');
    await t.coffer.engine.reconcile();
    const [entry] = await history('x-lost', agent.apiKey);
    expect(entry.status).toBe('confirmed');
    expect(entry.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    await ledgerMatchesChain('x-lost', agent.apiKey, agent.walletAddress, micro('1.00'));
  });

  it("a flood of transactions on the agent's account cannot hide a landed payment: it is confirmed, never dropped", async () => {
    const agent = await fundedX402Agent('x-flooded', '1.00', { dailyBudget: '0.01' });
    const paid = await payX402('x-flooded', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect((await fetch(v2.url, { headers: { [paid.body.header.name]: paid.body.header.value } })).status).toBe(200);
    // The seller keeps PAYMENT-RESPONSE to itself and buries the payment under 150 dust deposits.
    await cluster.depositMany(agent.walletAddress, 150, 1n);
    cluster.advanceBlocks(400);
    await t.coffer.engine.reconcile();
    const [entry] = (await history('x-flooded', agent.apiKey)) as any[];
    expect(entry.status).toBe('confirmed');
    // The budget stays spent: the next payment is refused.
    expect((await payX402('x-flooded', agent.apiKey, await answerOf(await fetch(v2.url), v2.url))).body.code).toBe('daily_budget_exceeded');
  });

  it('headers that are no HTTP headers, an oversized memo, a bad settlement hint: clear answers, nothing moves', async () => {
    const agent = await fundedX402Agent('x-hostile', '1.00');
    const unpaid = await answerOf(await fetch(v2.url), v2.url);
    for (const headers of [{ 'a b': 'x' }, { 'payment-required': 'line\r\nbreak' }, { 'payment-required': 'snow \u2603' }]) {
      const answer = await payX402('x-hostile', agent.apiKey, { ...unpaid, headers });
      expect(answer.status, JSON.stringify(headers)).toBe(400);
      expect(answer.body.code).toBe('invalid_request');
    }
    const required = JSON.parse(Buffer.from(unpaid.headers['payment-required']!, 'base64').toString());
    required.accepts[0].extra.memo = 'm'.repeat(257);
    const longMemo = await payX402('x-hostile', agent.apiKey, {
      ...unpaid,
      headers: { 'payment-required': Buffer.from(JSON.stringify(required)).toString('base64') },
    });
    expectError(longMemo, 422, 'unsupported_offer');
    expect(await history('x-hostile', agent.apiKey)).toHaveLength(0);
    // A seller reporting a signature that is no signature settles nothing and breaks nothing.
    const paid = await payX402('x-hostile', agent.apiKey, unpaid);
    const fake = Buffer.from(
      JSON.stringify({ success: true, transaction: 'z'.repeat(88), network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }),
    ).toString('base64');
    const reported = await t.api('POST', t.withOwner(`/v1/agents/x-hostile/x402/${paid.body.paymentId}/settlement`), {
      key: agent.apiKey,
      body: { headers: { 'payment-response': fake } },
    });
    expect(reported.status).toBe(200);
    expect(reported.body.status).toBe('pending');
    const unknown = await t.api('POST', t.withOwner('/v1/agents/x-hostile/x402/pay_1111111111111111111111/settlement'), {
      key: agent.apiKey,
      body: { headers: {} },
    });
    expect(unknown.body.code).toBe('payment_not_found');
    // Another agent's key pays nothing from this agent's wallet and settles none of its payments.
    const other = await fundedX402Agent('x-other', '1.00');
    expect((await payX402('x-hostile', other.apiKey, unpaid)).body.code).toBe('wrong_agent');
    const foreign = await t.api('POST', t.withOwner(`/v1/agents/x-hostile/x402/${paid.body.paymentId}/settlement`), {
      key: other.apiKey,
      body: { headers: {} },
    });
    expect(foreign.body.code).toBe('wrong_agent');
    expect(
      (
        await t.api('POST', t.withOwner(`/v1/agents/x-other/x402/${paid.body.paymentId}/settlement`), {
          key: other.apiKey,
          body: { headers: {} },
        })
      ).body.code,
    ).toBe('payment_not_found');
    expect((await payX402('x-hostile', 'cof_agt_11111111111111111111111111111111111111111111', unpaid)).status).toBe(401);
    expect(await usdc(agent.walletAddress)).toBe(micro('1.00'));
  });

  it('two payments of the same offer are two transactions; an offer binding the same memo again is refused', async () => {
    const agent = await fundedX402Agent('x-twice', '1.00');
    // The official client puts a random memo in each transaction when the seller names none.
    const first = await payX402('x-twice', agent.apiKey, await answerOf(await fetch(v1.url), v1.url));
    const second = await payX402('x-twice', agent.apiKey, await answerOf(await fetch(v1.url), v1.url));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.header.value).not.toBe(first.body.header.value);
    // A seller's memo is its nonce: the same one paid twice to the same seller is refused.
    const unpaid = await answerOf(await fetch(v2.url), v2.url);
    const required = JSON.parse(Buffer.from(unpaid.headers['payment-required']!, 'base64').toString());
    required.accepts[0].extra.memo = 'seller-nonce-1';
    const bound = { ...unpaid, headers: { 'payment-required': Buffer.from(JSON.stringify(required)).toString('base64') } };
    expect((await payX402('x-twice', agent.apiKey, bound)).status).toBe(200);
    const again = await payX402('x-twice', agent.apiKey, bound);
    expectError(again, 409, 'nonce_already_paid');
  });

  it('a settlement report racing reconciliation is settled, announced and audited once', async () => {
    const agent = await fundedX402Agent('x-race', '1.00');
    const paid = await payX402('x-race', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    const retried = await fetch(v2.url, { headers: { [paid.body.header.name]: paid.body.header.value } });
    const response: Record<string, string> = {};
    retried.headers.forEach((value, name) => (response[name] = value));
    const events: string[] = [];
    const off = t.coffer.engine.events.subscribe((event) => {
      if (event.type === 'payment' && 'paymentId' in event && event.paymentId === paid.body.paymentId) events.push(event.status);
    });
    try {
      await Promise.all([
        t.api('POST', t.withOwner(`/v1/agents/x-race/x402/${paid.body.paymentId}/settlement`), {
          key: agent.apiKey,
          body: { headers: response },
        }),
        t.coffer.engine.reconcile(),
        t.coffer.engine.reconcile(),
      ]);
    } finally {
      off();
    }
    expect(events).toEqual(['confirmed']);
    const audits = t.coffer.db
      .prepare("SELECT COUNT(*) FROM audit_log WHERE action = 'payment.confirmed' AND detail LIKE ?")
      .pluck()
      .get(`%${paid.body.paymentId}%`);
    expect(audits).toBe(1);
  });

  it('a v2 payment is signed with a blockhash Coffer read, so it knows the exact last height it can land at', async () => {
    const agent = await fundedX402Agent('x-lifetime', '1.00');
    const paid = await payX402('x-lifetime', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect(paid.status).toBe(200);
    const row = t.coffer.engine.ctx.store.getPayment(paid.body.paymentId)!;
    const signedWith = getCompiledTransactionMessageDecoder().decode(
      getTransactionDecoder().decode(getBase64Encoder().encode(row.txWire!)).messageBytes,
    ).lifetimeToken;
    expect(cluster.ledger.isBlockhashUsable(signedWith)).toBe(true);
    // A blockhash lives 150 blocks: an upper bound read from the height after signing (plus a lagging
    // node's margin) would lie past that, and hold the budget of a dead transaction that much longer.
    expect(row.lifetimeEnd! - cluster.ledger.blockHeight).toBeLessThanOrEqual(150n);
    expect(row.lifetimeEnd! - cluster.ledger.blockHeight).toBeGreaterThan(0n);
  });

  it('a provider that caps its pages of signatures cannot make a landed payment dropped (helper 205)', async () => {
    const agent = await fundedX402Agent('x-capped', '1.00', { dailyBudget: '0.01' });
    const paid = await payX402('x-capped', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect((await fetch(v2.url, { headers: { [paid.body.header.name]: paid.body.header.value } })).status).toBe(200);
    // The seller keeps PAYMENT-RESPONSE to itself; newer deposits, and a provider answering 5 where 1,000 are asked.
    await cluster.depositMany(agent.walletAddress, 12, 1n);
    cluster.advanceBlocks(400);
    cluster.listingCap = 5;
    try {
      await t.coffer.engine.reconcile();
    } finally {
      cluster.listingCap = null;
    }
    const [entry] = (await history('x-capped', agent.apiKey)) as any[];
    expect(entry.status).toBe('confirmed');
    expect((await payX402('x-capped', agent.apiKey, await answerOf(await fetch(v2.url), v2.url))).body.code).toBe('daily_budget_exceeded');
  });

  it('a payment signed but never sent gives its budget back once it can no longer land', async () => {
    const agent = await fundedX402Agent('x-unsent', '1.00', { dailyBudget: '0.01' });
    const paid = await payX402('x-unsent', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect(paid.status).toBe(200);
    // Pending, it holds the whole budget.
    expect((await payX402('x-unsent', agent.apiKey, await answerOf(await fetch(v2.url), v2.url))).body.code).toBe('daily_budget_exceeded');
    await t.coffer.engine.reconcile();
    expect((await history('x-unsent', agent.apiKey))[0].status).toBe('pending');
    cluster.advanceBlocks(400);
    await t.coffer.engine.reconcile();
    expect((await history('x-unsent', agent.apiKey))[0].status).toBe('failed');
    // The header is worthless now, and the budget is back.
    expect((await fetch(v2.url, { headers: { [paid.body.header.name]: paid.body.header.value } })).status).toBe(402);
    const next = await payX402('x-unsent', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect(next.status).toBe(200);
    expect(await usdc(agent.walletAddress)).toBe(micro('1.00'));
  });

  it('coffer fetch <url> pays an x402 seller as the linked agent: the body to stdout, the payment to stderr', async () => {
    const agent = await fundedX402Agent('x-cli', '1.00');
    const dir = mkdtempSync(join(tmpdir(), 'coffer-cli-'));
    const config = join(dir, 'agent.json');
    writeAgentConfig(config, {
      agentId: 'x-cli',
      walletAddress: agent.walletAddress,
      apiKey: agent.apiKey,
      linkedAt: new Date().toISOString(),
      owner: t.owner,
      url: t.url,
    });
    try {
      const ok = await cli(['fetch', v2.url, '--config', config]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ data: 'the paid answer' });
      expect(ok.stderr).toMatch(/^Paid 0\.01 USDC on Solana \(x402, pay_\w+, confirmed, transaction \w+\)/);
      const shown = await cli(['status', '--config', config]);
      expect(shown.stdout).toContain(`0.01 USDC  on Solana  ${new URL(v2.url).host}  (confirmed)  x402 ${v2.url}`);
      await t.api('POST', t.withOwner('/v1/agents/x-cli/policy'), { body: { maxPerPayment: '0.001' } });
      const refused = await cli(['fetch', v1.url, '--config', config]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/max_per_payment_exceeded/);
      expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
      // A seller whose facilitator refuses the payment: nothing reached the chain, and it is not said to be made.
      await t.api('POST', t.withOwner('/v1/agents/x-cli/policy'), { body: { maxPerPayment: '1' } });
      const refusing = await startV2Seller(
        {
          ...facilitator,
          client: {
            ...facilitator.client,
            verify: async () => ({ isValid: false, invalidReason: 'invalid_exact_svm_payload_transaction_simulation_failed', payer: '' }),
          },
        },
        { payTo: sellerWallet, price: '$0.01' },
      );
      try {
        const unsettled = await cli(['fetch', refusing.url, '--config', config]);
        expect(unsettled.code).toBe(1);
        expect(unsettled.stderr).toMatch(/paid_call_failed/);
        expect(unsettled.stderr).toMatch(/The seller did not settle the payment pay_\w+ \(0\.01 USDC\): Coffer holds its budget/);
        expect(unsettled.stderr).not.toMatch(/was made/);
        expect(await usdc(agent.walletAddress)).toBe(micro('0.99'));
        // MCP fetch_paid says the same of the payment: its id, its amount, what Coffer holds (it said
        // only "paid_call_failed", and an agent asking again paid again).
        const host = new Client({ name: 'test-host', version: '1.0.0' });
        await host.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [CLI, 'mcp', '--config', config],
            env: process.env as Record<string, string>,
            stderr: 'pipe',
          }),
        );
        try {
          const result = (await host.callTool({ name: 'fetch_paid', arguments: { url: refusing.url } })) as {
            isError?: boolean;
            content: { text: string }[];
          };
          expect(result.isError).toBe(true);
          expect(result.content[0]?.text).toMatch(/paid_call_failed/);
          expect(result.content[0]?.text).toMatch(/The seller did not settle the payment pay_\w+ \(0\.01 USDC\): Coffer holds its budget/);
        } finally {
          await host.close();
        }
      } finally {
        await refusing.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
