import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, generateKeyPairSigner } from '@solana/kit';
import { TestCluster } from '../fixtures/test-cluster.js';
import { answerOf, startFacilitator, startV1Seller, startV2Seller, type TestFacilitator, type TestSeller } from '../fixtures/x402-peers.js';
import { deployAgent, micro, startCoffer, type TestCoffer } from '../helpers/coffer.js';
import { usdcTokenAccount } from '../../server/chain/usdc-transfer.js';

/**
 * Coffer pays x402 sellers: the official `@x402/express` (v2) and `x402-express` (v1) sellers, each
 * settling through the official facilitator, on a local cluster presented as devnet. The agent hands
 * Coffer the 402, Coffer signs within the agent's policy, the agent retries with the header.
 */
describe('Coffer pays x402 sellers (POST /v1/agents/:id/x402)', () => {
  let cluster: TestCluster;
  let t: TestCoffer;
  let facilitator: TestFacilitator;
  let sellerWallet: string;
  let v2: TestSeller;
  let v1: TestSeller;

  const usdc = async (wallet: string) => {
    const account = cluster.ledger.account(await usdcTokenAccount(address(cluster.mint.address), address(wallet)));
    return account.exists ? new DataView(account.data.buffer, account.data.byteOffset + 64, 8).getBigUint64(0, true) : 0n;
  };

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
    t = await startCoffer({ network: cluster.url });
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
    await t.stop();
    await cluster.stop();
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
    const settled = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/x402/${paid.body.paymentId}/settlement`), { key: agent.apiKey, body: { headers: response } });
    expect(settled.status).toBe(200);
    expect(settled.body.status).toBe('confirmed');
    expect(settled.body.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const history = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key: agent.apiKey });
    expect(history.body.payments[0]).toMatchObject({ status: 'confirmed', amount: '0.01', recipient: sellerWallet, txSignature: settled.body.txSignature });
  });
});
