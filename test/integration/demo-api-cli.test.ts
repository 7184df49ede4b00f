import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/coffer.js';
import { CLI, json, runCoffer, spawnDemoApi, spawnServe, ownerPost } from '../helpers/serve-process.js';
import { generateKeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { TestCluster } from '../fixtures/test-cluster.js';
import { startFacilitator } from '../fixtures/x402-peers.js';
import { payingFetch } from '../../server/x402/paying-fetch.js';
import { DEMO_API_LISTED_URL } from '../../server/core/registry/registry.js';
import { DEMO_API_PORT } from '../../server/cli/demo-api.js';

describe('coffer demo-api beside coffer serve', () => {
  const dataDir = tempDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves paid weather that an agent pays for through Coffer, and remembers used receipts', async () => {
    const serve = await spawnServe(dataDir);
    const { child: demo, firstLine, url: demoUrl } = await spawnDemoApi(dataDir);
    try {
      expect(firstLine).toMatch(/demo API listening on http:\/\/127\.0\.0\.1:\d+ \(network: sim/);
      // Not on the catalog's port: the registry lists it where it really runs (and back once it stops).
      expect(DEMO_API_LISTED_URL).toBe(`http://127.0.0.1:${DEMO_API_PORT}`);
      const listed = async () =>
        ((await json(fetch(`${serve.url}/v1/services/search?q=demo`))).results as { id: string; endpoint: string }[]).find(
          (s) => s.id === 'demo-weather',
        )!.endpoint;
      expect(await listed()).toBe(`GET ${demoUrl}/weather?city={city}`);

      const { owner, post } = ownerPost(serve.url, dataDir);
      const deployed = await post('/v1/agents/deploy', { agentId: 'demo-user', dailyBudget: '1', maxPerPayment: '0.05' });
      await post('/v1/agents/demo-user/allocate', { amount: '0.50' });

      const unpaid = await fetch(`${demoUrl}/weather?city=Kyoto`);
      expect(unpaid.status).toBe(402);
      const agent = { cofferUrl: serve.url, owner, agentId: 'demo-user', apiKey: deployed.apiKey };
      const { response, payment } = await payingFetch(`${demoUrl}/weather?city=Kyoto`, {}, { agent });
      expect(response.status).toBe(200);
      expect((await json(response)).city).toBe('Kyoto');
      const replay = await fetch(`${demoUrl}/weather?city=Kyoto`, { headers: { 'x-payment': payment!.header.value } });
      expect((await json(replay)).code).toBe('receipt_already_used');

      // Paid on Base: the same terms, to its Base recipient, verified on the server's embedded EVM chain.
      expect(firstLine).toMatch(/, and Base on sim;/);
      await post('/v1/agents/demo-user/allocate', { amount: '0.10', rail: 'base' });
      const terms = await json(await fetch(`${demoUrl}/quote?symbol=ACME`));
      const onBase = await json(
        fetch(`${serve.url}/v1/agents/demo-user/pay?owner=${owner}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${deployed.apiKey}` },
          body: JSON.stringify({
            service: 'demo-quotes-on-base',
            recipient: terms.base.recipient,
            amount: terms.amount,
            nonce: terms.nonce,
          }),
        }),
      );
      expect(onBase).toMatchObject({ rail: 'base' });
      const bought = await fetch(`${demoUrl}/quote?symbol=ACME`, { headers: { 'x-payment': onBase.xPaymentHeader } });
      expect(bought.status).toBe(200);
      expect((await json(bought)).paid.txSignature).toBe(onBase.txSignature);
      expect(statSync(join(dataDir, 'demo-api', 'paywall.db')).mode & 0o777).toBe(0o600);
      const stopped = new Promise((resolve) => demo.once('exit', resolve));
      demo.kill('SIGTERM');
      await stopped;
      expect(await listed()).toBe(`GET ${DEMO_API_LISTED_URL}/weather?city={city}`);
    } finally {
      demo.kill('SIGTERM');
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('Ctrl-C twice, or its terminal closed, still stops it gracefully (exit 0), never cut short by the second signal', async () => {
    const serve = await spawnServe(dataDir);
    try {
      for (const signals of [['SIGINT', 'SIGINT'], ['SIGHUP']] as const) {
        const { child: demo } = await spawnDemoApi(dataDir);
        const exited = new Promise<[number | null, string | null]>((resolve) =>
          demo.once('exit', (code, signal) => resolve([code, signal])),
        );
        for (const signal of signals) demo.kill(signal);
        expect(await exited, signals.join(', ')).toEqual([0, null]);
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('says what to do when no Coffer server is running', async () => {
    const empty = tempDataDir();
    try {
      const demo = spawn(process.execPath, [CLI, 'demo-api', '--data-dir', empty, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      demo.stderr!.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise((resolve) => demo.once('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toMatch(/start `coffer serve` first/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('on devnet with --facilitator, an official x402 client (@x402/fetch) pays it; on sim --facilitator is refused', async () => {
    const cluster = await new TestCluster({ as: 'devnet' }).start();
    const facilitator = await startFacilitator(cluster);
    const dir = tempDataDir();
    const demo = spawn(
      process.execPath,
      [CLI, 'demo-api', '--data-dir', dir, '--port', '0', '--network', cluster.url, '--facilitator', facilitator.url],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: demo.stdout! }).once('line', resolve);
        demo.once('exit', (code) => reject(new Error(`demo-api exited with ${code}`)));
      });
      expect(firstLine).toMatch(/\(network: devnet; .*; x402 through http/);
      const demoUrl = /(http:\/\/127\.0\.0\.1:\d+)/.exec(firstLine)![1]!;
      await cluster.mintUsdc('93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx', 0n);
      const buyer = await generateKeyPairSigner();
      await cluster.mintUsdc(buyer.address, 1_000_000n);
      const paidFetch = wrapFetchWithPayment(
        fetch,
        x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
      );
      const response = await paidFetch(`${demoUrl}/quote?symbol=SOL`);
      expect(response.status).toBe(200);
      expect((await json(response)).symbol).toBe('SOL');
      expect(facilitator.settles.succeeded).toBe(1);

      const refused = await runCoffer([
        'demo-api',
        '--data-dir',
        dir,
        '--port',
        '0',
        '--network',
        'sim',
        '--coffer-url',
        'http://127.0.0.1:9',
        '--facilitator',
        facilitator.url,
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/x402 is paid on devnet and mainnet/);
    } finally {
      demo.kill('SIGTERM');
      await facilitator.close();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
