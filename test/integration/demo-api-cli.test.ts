import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { connect } from 'node:net';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/coffer.js';
import { CLI, json, runCoffer, spawnDemoApi, spawnServe } from '../helpers/serve-process.js';
import { endedWithTest } from '../helpers/ended-with-test.js';
import { ownerApi, readConnection } from '../helpers/owner-api.js';
import { generateKeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { TestCluster } from '../fixtures/test-cluster.js';
import { startFacilitator } from '../fixtures/x402-peers.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { DEMO_API_LISTED_URL } from '../../server/core/registry/registry.js';
import { DEMO_API_PORT } from '../../server/cli/demo-api.js';
import { createPublicClient, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { useCoffer } from '../helpers/server-fixture.js';
import { deployAgent } from '../helpers/coffer.js';
import { payUsdc } from '../helpers/pay.js';
import { startEvmFacilitator } from '../fixtures/x402-evm-peers.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { EMBEDDED_EVM_CHAIN_ID, EMBEDDED_EVM_VIEM_CHAIN } from '../../server/chain/evm/sim/chain.js';
import { DEMO_BASE_PAY_TO } from '../../server/demo-api/demo-api.js';

describe('coffer demo-api beside coffer serve', () => {
  const dataDir = tempDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves paid weather that an agent pays for through Coffer, and remembers used receipts', async () => {
    const serve = endedWithTest(await spawnServe(dataDir));
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

      const { owner } = readConnection(dataDir);
      const post = (path: string, body: unknown) => ownerApi(dataDir).json('POST', path, body);
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
      // A payment header past Node's 16 KiB never reaches the paywall: still answered in JSON, with a code.
      const oversized = await fetch(`${demoUrl}/weather?city=Kyoto`, { headers: { 'x-payment': 'v'.repeat(60_000) } });
      expect([oversized.status, oversized.headers.get('content-type')]).toEqual([431, 'application/json; charset=utf-8']);
      expect(await oversized.json()).toEqual({ error: 'the request line and headers are larger than 16 KiB', code: 'invalid_request' });

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
      expect((await json(bought)).paid).toMatchObject({ txSignature: onBase.txSignature, rail: 'base', testMoney: true });
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
    const serve = endedWithTest(await spawnServe(dataDir));
    try {
      for (const signals of [['SIGINT', 'SIGINT'], ['SIGHUP']] as const) {
        const { child: demo, url } = await spawnDemoApi(dataDir);
        const exited = new Promise<[number | null, string | null]>((resolve) =>
          demo.once('exit', (code, signal) => resolve([code, signal])),
        );
        // A request still arriving holds the stop open (its server closes once it is answered), so
        // each signal surely lands while the demo API is stopping, however loaded the machine is.
        const { port } = new URL(url);
        const socket = connect(Number(port), '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write('GET /weather?city=Oslo HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        const answered = new Promise<string>((resolve) => {
          let text = '';
          socket.on('data', (chunk) => (text += chunk));
          socket.on('close', () => resolve(text));
        });
        for (const signal of signals) {
          demo.kill(signal);
          await new Promise((resolve) => setTimeout(resolve, 300));
          expect(demo.exitCode, `${signal}: the stop waits for the request`).toBeNull();
          expect(demo.signalCode).toBeNull();
        }
        socket.write('\r\n');
        expect(await answered).toMatch(/^HTTP\/1\.1 402 /);
        expect(await exited, signals.join(', ')).toEqual([0, null]);
      }
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }, 120_000);

  it('says what to do when no Coffer server is running', async () => {
    const empty = tempDataDir();
    try {
      const demo = spawn(process.execPath, [CLI, 'demo-api', '--data-dir', empty, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      demo.stderr!.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise((resolve) => demo.once('exit', resolve));
      // As every command that finds no Coffer: exit 3 and the code, so a script may start one and retry.
      expect(code).toBe(3);
      expect(stderr).toMatch(/start `coffer serve` first, or pass --coffer-url \(coffer_unreachable\)$/m);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('on devnet with --facilitator, an official x402 client (@x402/fetch) pays it', async () => {
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
      // Devnet's USDC is test money too (a faucet's), and x402's payment is said on its rail.
      expect(await json(response)).toMatchObject({ symbol: 'SOL', paid: { rail: 'sol', testMoney: true } });
      expect(facilitator.settles.succeeded).toBe(1);
    } finally {
      demo.kill('SIGTERM');
      await facilitator.close();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Issue 50, point 3: on sim, `coffer demo-api --facilitator` offers x402 on the embedded EVM chain
 * (its Base rail), where the facilitator settles there; the official `@x402/fetch` EVM buyer pays it,
 * the money moving once on the chain. Without a Base rail, x402 on sim is refused in words.
 */
describe('coffer demo-api on sim with an official facilitator on the embedded EVM chain', () => {
  const t = useCoffer();

  it('takes an official @x402/fetch payment on eip155:790526, once, settled by the facilitator', async () => {
    const rpc = `${t.url}/evm-rpc`;
    const chain = createPublicClient({ chain: EMBEDDED_EVM_VIEM_CHAIN, transport: http(rpc, { retryCount: 0 }) });
    const usdc = (await t.api('GET', '/v1/health')).body.base.usdc as Address;
    const balanceOf = (account: Address) =>
      chain.readContract({ address: usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [account] });
    // The buyer: a key of its own, given test USDC by an agent's payment on Base.
    const buyer = privateKeyToAccount(generatePrivateKey());
    const { apiKey } = await deployAgent(t, 'demo-api-buyer', { dailyBudget: '10', maxPerPayment: '5' });
    expect((await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '5', rail: 'base' } })).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/demo-api-buyer/allocate'), { body: { amount: '2', rail: 'base' } })).status).toBe(
      200,
    );
    const funded = await payUsdc(t, 'demo-api-buyer', apiKey, { service: 'buyer', recipient: buyer.address, amount: '1' });
    expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    const facilitator = await startEvmFacilitator(EMBEDDED_EVM_VIEM_CHAIN, rpc, (account) => t.coffer.base!.chain.prepareFeePayer(account));
    const dir = tempDataDir();
    const demo = spawn(
      process.execPath,
      [CLI, 'demo-api', '--data-dir', dir, '--port', '0', '--network', 'sim', '--coffer-url', t.url, '--facilitator', facilitator.url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: demo.stdout! }).once('line', resolve);
        demo.once('exit', (code) => reject(new Error(`demo-api exited with ${code}`)));
      });
      expect(firstLine).toMatch(/\(network: sim, and Base on sim; .*; x402 through http\S+, which settles exact on eip155:790526\)$/);
      const demoUrl = /(http:\/\/127\.0\.0\.1:\d+)/.exec(firstLine)![1]!;
      // x402 v1 names no network of this chain: the body carries no v1 list (an empty one would
      // read as an offer of nothing), only the v2 header.
      const unpaid = await fetch(`${demoUrl}/quote?symbol=SOL`);
      expect(unpaid.headers.get('payment-required')).toBeTruthy();
      const unpaidBody = await json(unpaid);
      expect(unpaidBody).toMatchObject({ code: 'payment_required', nonce: expect.any(String) });
      expect(unpaidBody).not.toHaveProperty('accepts');
      expect(unpaidBody).not.toHaveProperty('x402Version');
      const before = { buyer: await balanceOf(buyer.address), seller: await balanceOf(DEMO_BASE_PAY_TO) };
      const paidFetch = wrapFetchWithPayment(
        fetch,
        x402Client.fromConfig({
          schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(buyer)) }],
          // The test token is no network's default USDC: the official client takes it only when allowed.
          spendControls: { allowedAssets: [{ network: `eip155:${EMBEDDED_EVM_CHAIN_ID}`, asset: usdc, maxAmountPerPayment: '100000' }] },
        }),
      );
      const response = await paidFetch(`${demoUrl}/quote?symbol=SOL`);
      expect(response.status).toBe(200);
      // Paid on the embedded EVM chain: test money, said on its rail.
      expect(await json(response)).toMatchObject({ symbol: 'SOL', paid: { rail: 'base', testMoney: true } });
      expect(facilitator.settles.succeeded).toBe(1);
      expect({ buyer: await balanceOf(buyer.address), seller: await balanceOf(DEMO_BASE_PAY_TO) }).toEqual({
        buyer: before.buyer - 10_000n,
        seller: before.seller + 10_000n,
      });
    } finally {
      demo.kill('SIGTERM');
      await facilitator.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says on its first line where the facilitator cannot be asked: no x402 offer until it answers', async () => {
    const dir = tempDataDir();
    const demo = spawn(
      process.execPath,
      [CLI, 'demo-api', '--data-dir', dir, '--port', '0', '--network', 'sim', '--coffer-url', t.url, '--facilitator', 'http://127.0.0.1:9'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: demo.stdout! }).once('line', resolve);
        demo.once('exit', (code) => reject(new Error(`demo-api exited with ${code}`)));
      });
      expect(firstLine).toMatch(
        /; x402 through http:\/\/127\.0\.0\.1:9, which could not be asked \(.+\): its 402s offer x402 once it answers\)$/,
      );
    } finally {
      demo.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('coffer demo-api on sim without a Base rail', () => {
  const t = useCoffer(() => ({ baseRpc: 'off' }));

  it('refuses --facilitator in words: x402 names no network it verifies', async () => {
    const dir = tempDataDir();
    try {
      const refused = await runCoffer(
        ['demo-api', '--data-dir', dir, '--port', '0', '--network', 'sim', '--coffer-url', t.url, '--facilitator', 'http://127.0.0.1:9'],
        { COFFER_BASE_RPC: 'off' },
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /x402 is paid on Solana on devnet and mainnet, and on Base where the Base rail is open; this demo API verifies sim without Base/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A Coffer on sim whose Base rail reads a node of its own (COFFER_BASE_RPC) serves no embedded chain
 * at /evm-rpc: a demo API beside it offered Base all the same, so an agent paid on Base, and every
 * receipt then answered 503 (its chain read at /evm-rpc answered 404): money taken, nothing served.
 */
describe('coffer demo-api beside a Coffer on sim whose Base rail reads a node of its own', () => {
  let node: TestEvmNode;
  beforeAll(async () => {
    node = await TestEvmNode.start();
  });
  const t = useCoffer(() => ({ baseRpc: node.url }));
  afterAll(async () => {
    await node.stop();
  });

  /** The demo API beside `t`, by its URL (no connection file in its own data dir), with `env`. */
  async function demoApiBeside(dir: string, env: Record<string, string> = {}) {
    const demo = spawn(process.execPath, [CLI, 'demo-api', '--data-dir', dir, '--port', '0', '--coffer-url', t.url], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    demo.stderr!.on('data', (chunk) => (stderr += chunk));
    const firstLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: demo.stdout! }).once('line', resolve);
      demo.once('exit', (code) => reject(new Error(`demo-api exited with ${code}: ${stderr}`)));
    });
    return { demo, firstLine, url: /(http:\/\/127\.0\.0\.1:\d+)/.exec(firstLine)![1]!, stderr: () => stderr };
  }

  it('reads through the Coffer its data dir names by a label no RPC answers to (demo-x402 names its local cluster demo-localnet)', async () => {
    const dir = tempDataDir();
    writeFileSync(join(dir, 'connection.json'), JSON.stringify({ url: t.url, network: 'demo-localnet' }));
    const demo = spawn(process.execPath, [CLI, 'demo-api', '--data-dir', dir, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, COFFER_BASE_RPC: node.url },
    });
    let stderr = '';
    demo.stderr!.on('data', (chunk) => (stderr += chunk));
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: demo.stdout! }).once('line', resolve);
        demo.once('exit', (code) => reject(new Error(`demo-api exited with ${code}: ${stderr}`)));
      });
      expect(firstLine).toMatch(/\(network: sim, and Base on base-sepolia; GET /);
    } finally {
      demo.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('offers no Base, and says why, where it cannot read that node; given it as COFFER_BASE_RPC, takes a Base receipt', async () => {
    const dir = tempDataDir();
    const blind = await demoApiBeside(dir);
    try {
      expect(blind.firstLine).toMatch(/\(network: sim; GET /);
      expect(blind.stderr()).toMatch(
        /demo API: Base receipts are not taken \(its chain could not be read: the Coffer at http\S+ reads Base \(base-sepolia\) from a node of its own, not at \/evm-rpc: give that node's URL \(rpcUrl; COFFER_BASE_RPC to coffer demo-api\)\)/,
      );
      const unpaid = await json(fetch(`${blind.url}/weather?city=Oslo`));
      expect(unpaid.base).toBeUndefined();
    } finally {
      blind.demo.kill('SIGTERM');
    }

    const seeing = await demoApiBeside(dir, { COFFER_BASE_RPC: node.url });
    try {
      expect(seeing.firstLine).toMatch(/\(network: sim, and Base on base-sepolia; GET /);
      const treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base as string;
      await node.fundEth(treasury, 10n ** 18n);
      await node.mint(treasury, 5_000_000n);
      const { apiKey } = await deployAgent(t, 'beside-node', { dailyBudget: '1', maxPerPayment: '0.05' });
      const allocated = await t.api('POST', t.withOwner('/v1/agents/beside-node/allocate'), { body: { amount: '1', rail: 'base' } });
      expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
      const agent = { cofferUrl: t.url, owner: t.owner, agentId: 'beside-node', apiKey };
      const { response, payment } = await payingFetch(`${seeing.url}/weather?city=Oslo`, {}, { agent, rail: 'base' });
      expect(response.status).toBe(200);
      expect((await json(response)).city).toBe('Oslo');
      expect(payment!.rail).toBe('base');
    } finally {
      seeing.demo.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
