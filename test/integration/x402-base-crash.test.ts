import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicClient, getAddress, http, parseEther, type Address } from 'viem';
import { baseSepolia } from 'viem/chains';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TestCluster } from '../fixtures/test-cluster.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { answerOf, type TestSeller } from '../fixtures/x402-peers.js';
import { startEvmFacilitator, startEvmV2Seller, type TestEvmFacilitator } from '../fixtures/x402-evm-peers.js';
import { json, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { micro, tempDataDir } from '../helpers/coffer.js';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';

/**
 * Issue 50, what must hold: x402 on Base under a SIGKILL of `coffer serve` in the middle of a burst of
 * purchases. Every purchase is paid at most once, whether its answer was lost with the process or
 * it was asked again under its Idempotency-Key; authorizations that never reached the seller fail
 * `dropped` once their time is past; and the ledger equals the chain.
 */
describe('x402 on Base: SIGKILL between the write and the handout', () => {
  let cluster: TestCluster;
  let node: TestEvmNode;
  let facilitator: TestEvmFacilitator;
  let seller: TestSeller;
  const payTo = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const dataDir = tempDataDir();
  let serve: ServeProcess;
  const usdc = (account: string) =>
    createPublicClient({ chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) }).readContract({
      address: node.usdc,
      abi: USDC_ABI,
      functionName: 'balanceOf',
      args: [account as Address],
    });

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
    node = await TestEvmNode.start();
    facilitator = await startEvmFacilitator(baseSepolia, node.url, (account) => node.fundEth(account, parseEther('1')));
    seller = await startEvmV2Seller(facilitator, { payTo, price: '$0.01' });
  }, 60_000);
  afterAll(async () => {
    serve?.child.kill('SIGKILL');
    await seller?.close();
    await facilitator?.close();
    await node?.stop();
    await cluster?.stop();
  });

  const env = () => ({ COFFER_NETWORK: cluster.url, COFFER_BASE_RPC: node.url });
  const connection = () => JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8')) as { owner: string; ownerKey: string };
  const call = (path: string, init: { method?: string; body?: unknown; key?: string; idempotencyKey?: string } = {}) => {
    const { owner, ownerKey } = connection();
    return fetch(`${serve.url}${path}${path.includes('?') ? '&' : '?'}owner=${owner}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.key ?? ownerKey}`,
        'content-type': 'application/json',
        ...(init.idempotencyKey === undefined ? {} : { 'idempotency-key': init.idempotencyKey }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  };
  const rows = () => {
    const db = openConnection(join(dataDir, 'coffer.db'), { readonly: true });
    try {
      return db
        .prepare(
          "SELECT id, status, error_code AS errorCode, idempotency_key AS idempotencyKey, amount FROM transfers WHERE kind = 'payment' AND rail = 'base'",
        )
        .all() as { id: string; status: string; errorCode: string | null; idempotencyKey: string; amount: number }[];
    } finally {
      db.close();
    }
  };

  it('pays each purchase at most once, drops what never reached the seller, and ledger equals chain', async () => {
    serve = await spawnServe(dataDir, env());
    const treasury = (await json(call('/v1/dashboard'))).treasury.wallets.base as Address;
    await node.fundEth(treasury, parseEther('1'));
    await node.mint(treasury, micro('10'));
    const { apiKey } = await json(
      call('/v1/agents/deploy', { method: 'POST', body: { agentId: 'burst', dailyBudget: '100', maxPerPayment: '1' } }),
    );
    expect((await call('/v1/agents/burst/allocate', { method: 'POST', body: { amount: '5', rail: 'base' } })).status).toBe(200);
    const agent = (await json(call('/v1/agents/burst/balance'))).wallets.base as Address;
    const before = { agent: await usdc(agent), seller: await usdc(payTo) };

    // A burst of purchases; each header that comes back is handed to the seller (the agent's retry).
    const BURST = 40;
    const offer = await answerOf(await fetch(seller.url), seller.url);
    const retries: Promise<unknown>[] = [];
    let answered = 0;
    const buy = (i: number) =>
      call('/v1/agents/burst/x402', { method: 'POST', key: apiKey, idempotencyKey: `burst-${i}`, body: offer })
        .then(async (response) => {
          answered += 1;
          if (answered === 12) serve.child.kill('SIGKILL');
          if (response.status !== 200) return;
          const paid = await response.json();
          retries.push(fetch(seller.url, { headers: { [paid.header.name]: paid.header.value } }));
        })
        .catch(() => undefined);
    await Promise.all(Array.from({ length: BURST }, (_, i) => buy(i)));
    await Promise.allSettled(retries);
    expect((await serve.exited).signal).toBe('SIGKILL');
    expect(answered).toBeLessThan(BURST);

    // Restarted: every purchase is asked again under its key. One whose row survived answers that
    // same payment and header (its authorization runs once however often it is presented); one
    // whose row never was written is paid now.
    serve = await spawnServe(dataDir, env());
    const askedAgain: { paymentId: string; header: { name: string; value: string } }[] = [];
    for (let i = 0; i < BURST; i += 1) {
      const response = await call('/v1/agents/burst/x402', { method: 'POST', key: apiKey, idempotencyKey: `burst-${i}`, body: offer });
      if (response.status === 200) askedAgain.push(await response.json());
    }
    expect(askedAgain.length).toBe(BURST);
    // Half are presented to the seller again; the rest were lost with the agent (never handed out).
    for (const paid of askedAgain.slice(0, BURST / 2)) await fetch(seller.url, { headers: { [paid.header.name]: paid.header.value } });

    // The chain's time passes every authorization's end; a restart reconciles what is left pending.
    await node.mine(2, 3_700);
    serve.child.kill('SIGTERM');
    await serve.exited;
    serve = await spawnServe(dataDir, env());

    const settled = rows();
    expect(settled.filter((row) => row.status === 'pending')).toEqual([]);
    const confirmed = settled.filter((row) => row.status === 'confirmed');
    const failed = settled.filter((row) => row.status === 'failed');
    // One record per purchase, each settled one way: confirmed, or dropped (its authorization ended
    // unused). Some always are: at least the headers of the last 20 that were never handed out.
    expect(settled.map((row) => row.idempotencyKey).sort()).toEqual(Array.from({ length: BURST }, (_, i) => `burst-${i}`).sort());
    expect(confirmed.length + failed.length).toBe(BURST);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.map((row) => row.errorCode)).toEqual(failed.map(() => 'dropped'));
    // Every settlement the seller's facilitator made is one confirmed payment, and the ledger equals
    // the chain. (The official seller serves before it settles, so an answer it served while its
    // facilitator's concurrent sends failed was not paid; presented again, it was paid once then.)
    expect(confirmed.length).toBe(facilitator.settles.succeeded);
    expect(seller.served).toBeGreaterThanOrEqual(confirmed.length);
    const spent = micro('0.01') * BigInt(confirmed.length);
    // Each confirmed record says what it paid: the ledger's sum is the chain's change.
    expect(confirmed.reduce((sum, row) => sum + BigInt(row.amount), 0n)).toBe(spent);
    expect(await usdc(agent)).toBe(before.agent - spent);
    expect(await usdc(payTo)).toBe(before.seller + spent);
  }, 180_000);
});
