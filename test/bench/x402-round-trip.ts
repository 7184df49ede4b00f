/**
 * The x402 round trip as an agent lives it, measured beside a bare /pay on the same Coffer and the
 * same cluster: `coffer serve` as its own process on the test cluster presented as devnet, an
 * official `@x402/express` seller settling through the official facilitator (in the bench process).
 * One x402 call is: the request, its 402, Coffer's /x402 (policy, reservation, signing), the retry,
 * the facilitator's verify and settle (simulate, co-sign, send, confirm), the 200, and the
 * settlement report to Coffer.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { TestCluster } from '../fixtures/test-cluster.js';
import { startFacilitator, startV2Seller } from '../fixtures/x402-peers.js';
import { micro, tempDataDir } from '../helpers/coffer.js';
import { json, spawnServe } from '../helpers/serve-process.js';
import { payingFetch } from '../../server/x402/paying-fetch.js';
import { percentile } from './stats.js';

function summary(latencies: number[], seconds: number, failures: number) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { rate: latencies.length / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), failures };
}

export async function x402RoundTrip(n: number) {
  const cluster = await new TestCluster({ as: 'devnet' }).start();
  const dataDir = tempDataDir();
  const serve = await spawnServe(dataDir, { COFFER_NETWORK: cluster.url });
  const facilitator = await startFacilitator(cluster);
  const sellerWallet = (await generateKeyPairSigner()).address;
  await cluster.mintUsdc(sellerWallet, 0n);
  const seller = await startV2Seller(facilitator, { payTo: sellerWallet, price: '$0.01' });
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

    const bare: number[] = [];
    let bareFailures = 0;
    let began = performance.now();
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const response = await call('/v1/agents/bench-x402/pay', agent.apiKey, {
        service: 'bench-api',
        recipient,
        amount: '0.01',
        description: `bench ${i}`,
      });
      await response.arrayBuffer();
      bare.push(performance.now() - start);
      if (response.status !== 200) bareFailures += 1;
    }
    const pay = summary(bare, (performance.now() - began) / 1000, bareFailures);

    const trips: number[] = [];
    let tripFailures = 0;
    began = performance.now();
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      try {
        const { response } = await payingFetch(
          seller.url,
          {},
          { agent: { cofferUrl: serve.url, owner, agentId: 'bench-x402', apiKey: agent.apiKey } },
        );
        await response.arrayBuffer();
        if (response.status !== 200) tripFailures += 1;
      } catch {
        tripFailures += 1;
      }
      trips.push(performance.now() - start);
    }
    const x402 = summary(trips, (performance.now() - began) / 1000, tripFailures);
    return { pay, x402, settled: facilitator.settles.succeeded };
  } finally {
    await seller.close();
    await facilitator.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    rmSync(dataDir, { recursive: true, force: true });
    await cluster.stop();
  }
}
