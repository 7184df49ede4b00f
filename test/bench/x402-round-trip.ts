/**
 * The x402 purchase as an agent lives it, measured against the official buyer on the same seller,
 * facilitator and chain: `coffer serve` as its own process on the test cluster presented as devnet,
 * an official `@x402/express` seller settling through the official facilitator (in the bench
 * process). Per round, alternated, in a fresh order each round, so drift and what one purchase
 * leaves running weigh on all alike:
 * - `payingFetch` through Coffer: the 402, Coffer's `/x402` (policy, reservation, signing), the paid
 *   retry (the facilitator's verify and settle); the settlement report follows, not waited for;
 * - the official `@x402/fetch` with a bare keypair (no policy, no ledger): the 402, signing, the retry;
 * - MCP `fetch_paid` through `coffer mcp` and a real MCP client (the SDK's, over stdio);
 * - `payingFetch` in an agent's own process, as the MCP server's is (the baseline of fetch_paid).
 * Then `/pay` over HTTP and MCP `pay`, alternated, on the same Coffer (Coffer sends and confirms).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateKeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import { startFacilitator, startV2Seller } from '../fixtures/x402-peers.js';
import { micro, tempDataDir } from '../helpers/coffer.js';
import { CLI, json, spawnServe } from '../helpers/serve-process.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { Timings, paidAnswer, steppedFetch, type PurchaseSteps } from './stats.js';
import { Rng } from '../probe/lib/rng.js';
import { commandedChild } from './commanded-child.js';

const WARM_UP = 10;
/** payingFetch as `npm run bench` compiled it, for a process of its own. */
const PAYING_FETCH = fileURLToPath(new URL('../../dist/app/server/x402/paying-fetch/paying-fetch.js', import.meta.url));

/**
 * An agent's own process buying through payingFetch, timing each purchase itself: the baseline of MCP
 * fetch_paid, which pays from a process of its own too. (The bench's own payingFetch shares its
 * process with the seller, the facilitator and the cluster: each of its hops to them wakes no other
 * process, which made it 1 to 2 ms faster than the same code in the MCP server's process.)
 */
function agentBuying(url: string, agent: { cofferUrl: string; owner: string; agentId: string; apiKey: string }) {
  const child = commandedChild(
    "the agent's process",
    `(async () => {
      const { payingFetch } = await import(${JSON.stringify(pathToFileURL(PAYING_FETCH).href)});
      const agent = ${JSON.stringify(agent)};
      for await (const line of require('node:readline').createInterface({ input: process.stdin })) {
        const began = performance.now();
        const ok = await payingFetch(${JSON.stringify(url)}, {}, { agent }).then(
          async ({ response }) => (await response.arrayBuffer(), response.status === 200),
          () => false,
        );
        console.log(JSON.stringify({ ms: performance.now() - began, ok }));
      }
    })()`,
  );
  return {
    buy: async (): Promise<{ ms: number; ok: boolean }> => JSON.parse(await child.ask('buy', (line) => line.startsWith('{'))),
    stop: child.stop,
  };
}

export async function x402RoundTrip(n: number) {
  const cluster = await new TestCluster({ as: 'devnet' }).start();
  const dataDir = tempDataDir();
  const serve = await spawnServe(dataDir, { COFFER_NETWORK: cluster.url });
  const facilitator = await startFacilitator(cluster);
  const sellerWallet = (await generateKeyPairSigner()).address;
  await cluster.mintUsdc(sellerWallet, 0n);
  const seller = await startV2Seller(facilitator, { payTo: sellerWallet, price: '$0.01' });
  const mcp = new Client({ name: 'coffer-bench', version: '1.0.0' });
  try {
    const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
    cluster.airdrop(owner, 1000n);
    await cluster.mintUsdc(owner, micro('1000'));
    const call = (path: string, key: string, body: unknown) =>
      fetch(`${serve.url}${path}?owner=${owner}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const agent = await json(call('/v1/agents/deploy', ownerKey, { agentId: 'bench-x402', dailyBudget: '1000000', maxPerPayment: '1' }));
    await call('/v1/agents/bench-x402/allocate', ownerKey, { amount: '500' });
    const recipient = (await generateKeyPairSigner()).address;
    await cluster.mintUsdc(recipient, 0n);
    // The official buyer: a bare keypair holding USDC (the facilitator pays the fees).
    const buyer = await generateKeyPairSigner();
    await cluster.mintUsdc(buyer.address, micro('500'));
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: {
          ...(process.env as Record<string, string>),
          COFFER_URL: serve.url,
          COFFER_OWNER: owner,
          COFFER_AGENT_ID: 'bench-x402',
          COFFER_API_KEY: agent.apiKey,
          COFFER_CONFIG: '/nonexistent/agent.json',
        },
        stderr: 'ignore',
      }),
    );
    const paying = { cofferUrl: serve.url, owner, agentId: 'bench-x402', apiKey: agent.apiKey };

    // Where each buyer's purchase spends its time: each request it makes, by what it is. The official
    // buyer's signing (its own RPC reads and the signature) is what its purchase spends between them.
    let measuring = false;
    const steppedBy = (steps: PurchaseSteps) => steppedFetch(seller.url, () => measuring, steps);
    const steps = { seller402: new Timings(), x402: new Timings(), paidRetry: new Timings() };
    const officialSteps = { seller402: new Timings(), paidRetry: new Timings() };
    const stepped = steppedBy(steps);
    const official = wrapFetchWithPayment(
      steppedBy(officialSteps),
      x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
    );

    const viaCoffer = new Timings();
    const viaOfficial = new Timings();
    const viaMcp = new Timings();
    const viaAgentProcess = new Timings();
    const agentProcess = agentBuying(seller.url, paying);
    const purchases = [
      () =>
        viaCoffer.time(
          () => paidAnswer(payingFetch(seller.url, {}, { agent: paying, fetch: stepped }).then((paid) => paid.response)),
          measuring,
        ),
      () => viaOfficial.time(() => paidAnswer(official(seller.url)), measuring),
      () => viaAgentProcess.record(agentProcess.buy(), measuring),
      () =>
        viaMcp.time(async () => {
          const result = (await mcp.callTool({ name: 'fetch_paid', arguments: { url: seller.url } })) as {
            isError?: boolean;
            structuredContent?: { status?: number };
          };
          return result.isError !== true && result.structuredContent?.status === 200;
        }, measuring),
    ];
    // A fresh order each round: what one purchase leaves running (Coffer's settlement report, reading
    // the chain for 6 to 10 ms on a cluster that answers one request at a time; the MCP server's work)
    // weighs on each kind alike. (Rotating one order kept each kind behind the same other kind: MCP
    // followed the agent process's report, which the agent process, behind the official buyer, never met.)
    // Seeded: every run shuffles alike.
    const order = new Rng(0x2f6b1c3d);
    for (let i = 0; i < WARM_UP + n; i++) {
      measuring = i >= WARM_UP;
      for (const purchase of order.shuffle(purchases)) await purchase();
    }

    const httpPay = new Timings();
    const mcpPay = new Timings();
    for (let i = 0; i < WARM_UP + n; i++) {
      const measured = i >= WARM_UP;
      const body = { service: 'bench-api', recipient, amount: '0.01', description: `bench ${i}` };
      await httpPay.time(async () => {
        const response = await call('/v1/agents/bench-x402/pay', agent.apiKey, body);
        await response.arrayBuffer();
        return response.status === 200;
      }, measured);
      await mcpPay.time(async () => {
        const result = (await mcp.callTool({ name: 'pay', arguments: { ...body, description: `mcp ${i}` } })) as {
          isError?: boolean;
          structuredContent?: { status?: string };
        };
        return result.isError !== true && result.structuredContent?.status === 'confirmed';
      }, measured);
    }
    await agentProcess.stop();
    return {
      coffer: viaCoffer.summary,
      agentProcess: viaAgentProcess.summary,
      official: viaOfficial.summary,
      mcp: viaMcp.summary,
      steps: { seller402: steps.seller402.summary, x402: steps.x402.summary, paidRetry: steps.paidRetry.summary },
      officialSteps: { seller402: officialSteps.seller402.summary, paidRetry: officialSteps.paidRetry.summary },
      pay: httpPay.summary,
      mcpPay: mcpPay.summary,
      settled: facilitator.settles.succeeded,
    };
  } finally {
    await mcp.close().catch(() => undefined);
    await seller.close();
    await facilitator.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
    await cluster.stop();
  }
}
