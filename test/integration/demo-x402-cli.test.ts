import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { address, createSolanaRpc } from '@solana/kit';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../server/package/package-files.js';
import { userShellEnv } from '../helpers/user-shell.js';
import { USDC_MINTS } from '../../server/chain/solana/networks.js';
import { usdcTokenAccount } from '../../server/chain/solana/usdc-transfer.js';
import { CLI, runCoffer, spawnServe } from '../helpers/serve-process.js';
import { ownerApi, writeLinkedConfig } from '../helpers/owner-api.js';
import { createPublicClient, http, type Address } from 'viem';
import { EMBEDDED_EVM_CHAIN_ID, EMBEDDED_EVM_USDC } from '../../server/chain/evm/sim/chain.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { openDemoDir } from '../../server/demo-x402/demo-dir.js';
import { startLocalEvmChain } from '../../server/demo-x402/local-evm-chain.js';
import { DEMO_EVM_CHAIN_ID } from '../../server/wire/network-words.js';
import { LocalCluster } from '../../server/demo-x402/local-cluster.js';
import { DEMO_LOCALNET_GENESIS_HASH } from '../../server/chain/solana/networks.js';
import { openCoffer } from '../../server/boot/open-coffer.js';

/**
 * Issue 29, point 3: x402 could not be seen working without devnet (x402 names no local network, and
 * Coffer refuses it on sim). `coffer demo-x402` runs the loop locally. Here docs/X402.md's "Try x402
 * offline" is followed literally, as a user would: its command typed in the checkout, then the two
 * commands it prints run from the user's shell, each to a paid 200, with the money moved once each,
 * read back from the local cluster. Everything is a real process and a real official package.
 */

const root = packagePath();

const home = mkdtempSync(join(tmpdir(), 'coffer-home-'));
const userEnv = userShellEnv(home);

const running: ChildProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((child) => stop(child, 'SIGKILL')));
  rmSync(home, { recursive: true, force: true });
});

/** A long-running command started as a terminal starts it (its own process group), its output kept. */
function start(command: string, args: string[], cwd: string) {
  const child = spawn(command, args, { cwd, env: userEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  /** Waits for the output to match (or the process to end), then asserts it did. */
  const until = async (pattern: RegExp, ms = 60_000) => {
    for (let waited = 0; waited < ms && !pattern.test(output.stdout); waited += 50) {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output.stdout, output.stderr).toMatch(pattern);
  };
  return { child, exited, output, until };
}

/** Ctrl-C (or kill) to the command's whole process group, as a terminal sends it. */
async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Not a group of its own (a `coffer serve` of the test's), or already gone.
    child.kill(signal);
  }
  await exited;
}

/**
 * A command line the demo printed, run from the user's shell. Not spawnSync: a test blocked for
 * seconds misses that the servers closed its idle keep-alive sockets meanwhile (Node's 5 s), and its
 * next request on one fails with "other side closed"; it would stop reading the demo's output too.
 */
const sh = (line: string) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', line], { cwd: home, env: userEnv, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });

/** What the demo printed, read as a person reads it. */
function readPrinted(stdout: string) {
  const lines = stdout.split('\n');
  const after = (label: RegExp) => {
    const line = lines.find((candidate) => label.test(candidate));
    expect(line, `a line matching ${label}`).toBeDefined();
    return label.exec(line!)!;
  };
  const next = lines.findIndex((line) => line.startsWith('Next, in another terminal'));
  expect(next).toBeGreaterThan(0);
  const commands: string[] = [];
  for (const line of lines.slice(next + 1)) {
    if (line.trim() === '') break;
    if (line.startsWith('    ')) commands.push(line.trim());
  }
  return {
    lines,
    clusterUrl: after(/^Local cluster \(Solana JSON-RPC\): (http:\/\/127\.0\.0\.1:\d+)/)[1]!,
    cofferUrl: after(/^Coffer: (http:\/\/127\.0\.0\.1:\d+) \(network: demo-localnet/)[1]!,
    seller: after(/^Seller: .* paid to (\w{32,44})/)[1]!,
    buyer: after(/^Buyer wallet for any x402 client: (\w{32,44})/)[1]!,
    evm: {
      url: after(/^Local EVM chain \(Ethereum JSON-RPC\): (http:\/\/127\.0\.0\.1:\d+\/evm-rpc)$/)[1]!,
      seller: after(/^Seller: .* \(on the EVM chain to (0x[0-9a-fA-F]{40})\)$/)[1]! as Address,
      buyer: after(/^Buyer account on the EVM chain: (0x[0-9a-fA-F]{40}) /)[1]! as Address,
      // The line under the agent's (the treasury's says the same of the treasury).
      agent: /^ {2}on the EVM chain: (0x[0-9a-fA-F]{40}) holding [\d.]+ test USDC$/.exec(
        lines[lines.findIndex((line) => line.startsWith('Agent ')) + 1]!,
      )![1]! as Address,
    },
    agentConfig: after(/^ {2}its config: (\S+)/)[1]!,
    dataDir: after(/^Data dir: (\S+)/)[1]!,
    commands,
  };
}

/** Test USDC (micro) of accounts, read from the demo's EVM chain over its JSON-RPC as any EVM client would. */
async function evmBalancesOn(rpcUrl: string, accounts: Record<string, Address>) {
  const chain = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
  const balance = (account: Address) =>
    chain.readContract({ address: EMBEDDED_EVM_USDC, abi: USDC_ABI, functionName: 'balanceOf', args: [account] });
  return Object.fromEntries(
    await Promise.all(Object.entries(accounts).map(async ([name, account]) => [name, await balance(account)] as const)),
  );
}

/** Test USDC (micro) and SOL (lamports) of wallets, read from the local cluster over its JSON-RPC. */
async function balancesOn(clusterUrl: string, wallets: Record<string, string>) {
  const rpc = createSolanaRpc(clusterUrl);
  const entries = await Promise.all(
    Object.entries(wallets).map(async ([name, wallet]) => {
      const account = await usdcTokenAccount(address(USDC_MINTS.devnet), address(wallet));
      const { value } = await rpc.getTokenAccountBalance(account).send();
      return [name, BigInt(value.amount)] as const;
    }),
  );
  return Object.fromEntries(entries);
}

describe.skipIf(process.platform === 'win32')('docs/X402.md\'s "Try x402 offline", followed as a user would', () => {
  it('runs the whole x402 loop locally on both chains: coffer fetch and the official @x402/fetch each buy once on each, 0.01 test USDC each', async () => {
    const page = readFileSync(join(root, 'docs', 'X402.md'), 'utf8');
    const heading = page.indexOf('## Try x402 offline');
    expect(heading).toBeGreaterThanOrEqual(0);
    const section = page.slice(heading);
    const typed = /```sh\n([^\n]+)\n```/.exec(section)?.[1];
    expect(typed).toBe('npx coffer demo-x402');
    // Typed as the page says, with one flag: a free port for the seller (7404 by default), beside other tests.
    const [command, ...args] = `${typed!} --port 0`.split(' ');
    const demo = start(command!, args, root);
    await demo.until(/Ctrl-C stops it all/);
    const printed = readPrinted(demo.output.stdout);

    // Test money, said first and everywhere; never called devnet or Base.
    expect(printed.lines[0]).toMatch(
      /^TEST MONEY: .*local Solana cluster \(demo-localnet\) and a local EVM chain \(evm-790527\), not devnet, mainnet or Base/,
    );
    const health = (await (await fetch(`${printed.cofferUrl}/v1/health`)).json()) as {
      network: string;
      usdcMint: string;
      base: { network: string; chainId: number; usdc: string } | null;
    };
    expect(health).toMatchObject({
      network: 'demo-localnet',
      usdcMint: USDC_MINTS.devnet,
      base: { network: 'evm-790527', chainId: DEMO_EVM_CHAIN_ID, usdc: EMBEDDED_EVM_USDC },
    });
    const genesis = await createSolanaRpc(printed.clusterUrl).getGenesisHash().send();
    expect(genesis).not.toBe('EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    expect(await createPublicClient({ transport: http(printed.evm.url, { retryCount: 0 }) }).getChainId()).toBe(DEMO_EVM_CHAIN_ID);

    // The data dir is a new temporary one, never the user's ~/.coffer, and its keys are files there.
    expect(printed.dataDir.startsWith(tmpdir())).toBe(true);
    expect(existsSync(join(home, '.coffer'))).toBe(false);
    expect(readdirSync(join(printed.dataDir, 'coffer', 'keys')).length).toBeGreaterThan(0);

    const agent = JSON.parse(readFileSync(printed.agentConfig, 'utf8')) as { walletAddress: string; apiKey: string; owner: string };
    const wallets = { agent: agent.walletAddress, buyer: printed.buyer, seller: printed.seller };
    const accounts = { agent: printed.evm.agent, buyer: printed.evm.buyer, seller: printed.evm.seller };
    const before = await balancesOn(printed.clusterUrl, wallets);
    const beforeOnEvm = await evmBalancesOn(printed.evm.url, accounts);
    expect(before).toMatchObject({ agent: 1_000_000n, buyer: 1_000_000n });
    expect(beforeOnEvm).toMatchObject({ agent: 1_000_000n, buyer: 1_000_000n });

    // The commands it printed, run from the user's shell, in that order: four purchases, then the owner's two.
    expect(printed.commands).toHaveLength(6);
    const [cofferFetch, cofferFetchBase, officialClient, officialClientEvm, ownerStatus, preferBase] = printed.commands as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    expect(cofferFetch).toMatch(/ fetch --config \S+agent\.json 'http:\/\/127\.0\.0\.1:\d+\/weather\?city=Lisbon'$/);
    const paidByCoffer = await sh(cofferFetch);
    expect(paidByCoffer.status, paidByCoffer.stderr).toBe(0);
    expect(JSON.parse(paidByCoffer.stdout)).toMatchObject({
      city: 'Lisbon',
      paid: { amount: '0.01', testMoney: true, network: 'demo-localnet' },
    });
    expect(paidByCoffer.stderr).toMatch(/Paid 0\.01 test USDC on Solana \(x402, pay_\w+, confirmed, transaction \w{64,88}\)/);

    expect(cofferFetchBase).toMatch(/ fetch --rail base --config \S+agent\.json 'http:\/\/127\.0\.0\.1:\d+\/weather\?city=Lisbon'$/);
    const paidOnBase = await sh(cofferFetchBase);
    expect(paidOnBase.status, paidOnBase.stderr).toBe(0);
    expect(JSON.parse(paidOnBase.stdout)).toMatchObject({
      city: 'Lisbon',
      // Each chain by the name Coffer gives it (demo-localnet, evm-790527), as the demo's lines say.
      paid: { amount: '0.01', testMoney: true, network: 'evm-790527' },
    });
    expect(paidOnBase.stderr).toMatch(/Paid 0\.01 test USDC on Base \(x402, pay_\w+, confirmed, transaction 0x[0-9a-f]{64}\)/);

    expect(officialClient).toMatch(/^node \S+examples\/x402-official-buyer\.mjs \S+x402-buyer\.json /);
    const paidByOfficial = await sh(officialClient);
    expect(paidByOfficial.status, paidByOfficial.stderr).toBe(0);
    expect(paidByOfficial.stdout).toMatch(/^200 /);
    expect(JSON.parse(paidByOfficial.stdout.replace(/^200 /, ''))).toMatchObject({
      symbol: 'SOL',
      paid: { amount: '0.01', network: 'demo-localnet' },
    });

    expect(officialClientEvm).toMatch(
      /^node \S+examples\/x402-official-buyer\.mjs \S+x402-buyer-evm\.key \S+\/evm-rpc '\S+' eip155:790527\/0x/,
    );
    const paidByOfficialOnEvm = await sh(officialClientEvm);
    expect(paidByOfficialOnEvm.status, paidByOfficialOnEvm.stderr).toBe(0);
    expect(JSON.parse(paidByOfficialOnEvm.stdout.replace(/^200 /, ''))).toMatchObject({
      symbol: 'SOL',
      paid: { amount: '0.01', network: 'evm-790527' },
    });

    // Money moved once for each purchase: 0.01 from each buyer to the seller on each chain, the fees
    // and gas paid by the facilitator (the agent holds no SOL and no ETH).
    const after = await balancesOn(printed.clusterUrl, wallets);
    expect(after).toEqual({ agent: before.agent! - 10_000n, buyer: before.buyer! - 10_000n, seller: before.seller! + 20_000n });
    expect(await createSolanaRpc(printed.clusterUrl).getBalance(address(agent.walletAddress)).send()).toMatchObject({ value: 0n });
    const afterOnEvm = await evmBalancesOn(printed.evm.url, accounts);
    expect(afterOnEvm).toEqual({
      agent: beforeOnEvm.agent! - 10_000n,
      buyer: beforeOnEvm.buyer! - 10_000n,
      seller: beforeOnEvm.seller! + 20_000n,
    });
    expect(
      await createPublicClient({ transport: http(printed.evm.url, { retryCount: 0 }) }).getBalance({ address: printed.evm.agent }),
    ).toBe(0n);
    // Coffer's ledger says the same: one confirmed x402 payment on each rail.
    const history = (await (
      await fetch(`${printed.cofferUrl}/v1/agents/x402-demo/spend-history?owner=${agent.owner}`, {
        headers: { authorization: `Bearer ${agent.apiKey}` },
      })
    ).json()) as { payments: { status: string; amount: string; protocol: string; recipient: string; rail: string }[] };
    expect(history.payments).toHaveLength(2);
    expect(history.payments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'confirmed', amount: '0.01', protocol: 'x402', recipient: printed.seller, rail: 'sol' }),
        expect.objectContaining({ status: 'confirmed', amount: '0.01', protocol: 'x402', recipient: printed.evm.seller, rail: 'base' }),
      ]),
    );

    // The owner's commands name the demo's Coffer by its data dir (a folder inside the demo's).
    expect(ownerStatus).toMatch(new RegExp(` status --owner --data-dir ${printed.dataDir}/coffer$`));
    const status = await sh(ownerStatus);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/treasury +99\.00 USDC on Solana/);
    // Its Base is the demo's local chain, test money: never read as Base.
    expect(status.stdout).toMatch(/; Base on the local EVM chain of coffer demo-x402 \(test USDC, not Base\)\n/);
    expect(status.stdout).toMatch(/x402-demo "x402 demo agent \(test money\)" +active +0\.99 USDC on Solana +0\.99 USDC on Base/);
    expect(preferBase).toMatch(new RegExp(` settings --preferred-rail base --data-dir ${printed.dataDir}/coffer$`));
    // The folder the owner's commands take is said under the demo's own (which they do not take).
    expect(printed.lines).toContain(`  its Coffer's, for the owner's commands (--data-dir): ${printed.dataDir}/coffer`);
    const preferred = await sh(preferBase);
    expect(preferred.status, preferred.stderr).toBe(0);
    expect(preferred.stdout).toMatch(/^rail +Base \(set by you\)/m);
    // Then a purchase payable on both, with no rail asked, is paid on Base.
    const paidOnPreferred = await sh(cofferFetch);
    expect(paidOnPreferred.status, paidOnPreferred.stderr).toBe(0);
    expect(paidOnPreferred.stderr).toMatch(/Paid 0\.01 test USDC on Base \(x402, pay_\w+, confirmed/);

    // A Coffer of the user's own on sim pays Base on its own embedded chain (790526): its agent refuses
    // the demo seller's Base offer before it signs. On one chain id it signed an authorization the
    // demo's facilitator could not settle, and its money stayed promised until the authorization ran out.
    const ownDir = mkdtempSync(join(tmpdir(), 'coffer-own-'));
    const own = await spawnServe(ownDir);
    // Stopped however the test ends: a failed assertion below must not leave it serving.
    running.push(own.child);
    const ownApi = ownerApi(ownDir);
    const mine = await ownApi.json<{ apiKey: string; agent: { walletAddress: string } }>('POST', '/v1/agents/deploy', {
      agentId: 'mine',
      dailyBudget: '1.00',
      maxPerPayment: '0.10',
    });
    await ownApi.json('POST', '/v1/agents/mine/allocate', { amount: '0.10', rail: 'base' });
    const mineConfig = writeLinkedConfig(ownDir, join(ownDir, 'mine.json'), 'mine', mine);
    const refused = await sh(cofferFetchBase.replace(/--config \S+agent\.json/, `--config ${mineConfig}`));
    expect(refused.status, refused.stdout).not.toBe(0);
    expect(refused.stderr).toMatch(
      new RegExp(
        `pays x402 "exact" in USDC on eip155:${EMBEDDED_EVM_CHAIN_ID}; the seller offers .*exact on eip155:${DEMO_EVM_CHAIN_ID} .*\\(unsupported_offer\\)`,
      ),
    );
    // And whose agent can: a newcomer sent here by the README learns the demo's Coffer pays its seller.
    expect(refused.stderr).toContain(
      `; eip155:${DEMO_EVM_CHAIN_ID} is the test chain of coffer demo-x402, whose seller is paid by the demo's own Coffer and agent (the commands it prints name that agent's --config)`,
    );
    const mineHistory = await ownApi.json<{ payments: unknown[] }>('GET', '/v1/agents/mine/spend-history');
    expect(mineHistory.payments).toEqual([]);
    await stop(own.child, 'SIGTERM');
    rmSync(ownDir, { recursive: true, force: true });

    // Ctrl-C: everything stops, and the temporary folder is gone (npx itself then ends by the signal).
    await stop(demo.child, 'SIGINT');
    await demo.exited;
    expect(demo.output.stderr).toMatch(/SIGINT: stopping the demo\nstopped; removed /);
    expect(demo.output.stderr).not.toMatch(/Error|at .*\.ts:\d+/);
    expect(existsSync(printed.dataDir)).toBe(false);
  }, 180_000);
});

describe.skipIf(process.platform === 'win32')('coffer demo-x402 refusals and restarts', () => {
  const demo = (args: string[]) => start(process.execPath, [CLI, 'demo-x402', ...args], home);
  const scratch = mkdtempSync(join(tmpdir(), 'coffer-demo-x402-test-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('refuses a port in use before creating anything (port_in_use)', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const dir = join(scratch, 'never-made');
    try {
      const refused = demo(['--port', String(port), '--data-dir', dir]);
      expect(await refused.exited).toBe(1);
      expect(refused.output.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*\\(port_in_use\\)`));
      expect(existsSync(dir)).toBe(false);
    } finally {
      taken.close();
    }
  });

  it('refuses a data dir that is not a demo one, touching nothing in it (data_dir_not_demo)', async () => {
    const dir = join(scratch, 'someones-coffer');
    mkdirSync(dir);
    writeFileSync(join(dir, 'coffer.db'), 'not the demo');
    const refused = demo(['--port', '0', '--data-dir', dir]);
    expect(await refused.exited).toBe(1);
    expect(refused.output.stderr).toMatch(/is not a coffer demo-x402 folder.*\(data_dir_not_demo\)/);
    expect(readdirSync(dir)).toEqual(['coffer.db']);
    expect(readFileSync(join(dir, 'coffer.db'), 'utf8')).toBe('not the demo');
  });

  it('a start cut short after its Coffer made the treasury funds it at the next start', async () => {
    // What a kill leaves between the treasury's making and its funding: the cluster, a Coffer on it, nothing funded.
    const dir = join(scratch, 'cut-short-sol');
    const opened = openDemoDir(dir);
    if (!opened.ok) throw new Error(opened.message);
    const cluster = await new LocalCluster({
      file: opened.dir.clusterFile,
      genesisHash: DEMO_LOCALNET_GENESIS_HASH,
      usdc: 'devnet-address',
    }).start();
    const coffer = await openCoffer({
      dataDir: opened.dir.cofferDir,
      network: cluster.url,
      baseRpc: 'off',
      keyStore: 'file',
      log: () => {},
    });
    await coffer.close();
    await cluster.stop();
    opened.dir.close();

    const again = demo(['--port', '0', '--data-dir', dir]);
    await again.until(/Ctrl-C stops it all/);
    const printed = readPrinted(again.output.stdout);
    expect(again.output.stdout).toMatch(/^Coffer: .* holding 99\.00 test USDC$/m);
    const agent = JSON.parse(readFileSync(printed.agentConfig, 'utf8')) as { walletAddress: string };
    expect(await balancesOn(printed.clusterUrl, { agent: agent.walletAddress, buyer: printed.buyer })).toEqual({
      agent: 1_000_000n,
      buyer: 1_000_000n,
    });
    await stop(again.child, 'SIGTERM');
    expect(await again.exited).toBe(0);
  });

  it('a start cut short after its EVM chain was made funds the chain at the next start', async () => {
    // What a kill leaves between the chain's file and its first funding: the folder, the chain, nothing funded.
    const dir = join(scratch, 'cut-short');
    const opened = openDemoDir(dir);
    if (!opened.ok) throw new Error(opened.message);
    opened.dir.close();
    await (await startLocalEvmChain({ file: join(dir, 'evm-chain.db') })).stop();

    const again = demo(['--port', '0', '--data-dir', dir]);
    await again.until(/Ctrl-C stops it all/);
    const printed = readPrinted(again.output.stdout);
    expect(await evmBalancesOn(printed.evm.url, { agent: printed.evm.agent, buyer: printed.evm.buyer })).toEqual({
      agent: 1_000_000n,
      buyer: 1_000_000n,
    });
    expect(again.output.stdout).toMatch(/^ {2}on the EVM chain: 0x[0-9a-fA-F]{40} holding 99\.00 test USDC$/m);
    const paid = await sh(printed.commands[1]!);
    expect(paid.status, paid.stderr).toBe(0);
    await stop(again.child, 'SIGTERM');
    expect(await again.exited).toBe(0);
  });

  it('with --data-dir: one demo at a time on it (data_dir_in_use), and started again it goes on where it stopped', async () => {
    const dir = join(scratch, 'kept');
    const first = demo(['--port', '0', '--data-dir', dir]);
    await first.until(/Ctrl-C stops it all/);
    const printed = readPrinted(first.output.stdout);
    expect(printed.dataDir).toBe(dir);

    const second = demo(['--port', '0', '--data-dir', dir]);
    expect(await second.exited).toBe(1);
    expect(second.output.stderr).toMatch(/\(data_dir_in_use\)/);

    expect((await sh(printed.commands[0]!)).status).toBe(0);
    expect((await sh(printed.commands[1]!)).status).toBe(0);
    await stop(first.child, 'SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output.stderr).toMatch(/stopped; \S+ kept/);
    expect(existsSync(join(dir, 'agent.json'))).toBe(true);

    // Again on the same folder: the same agent and buyer, their balances as they were left.
    const again = demo(['--port', '0', '--data-dir', dir]);
    await again.until(/Ctrl-C stops it all/);
    const resumed = readPrinted(again.output.stdout);
    expect(resumed.buyer).toBe(printed.buyer);
    const agent = JSON.parse(readFileSync(resumed.agentConfig, 'utf8')) as { walletAddress: string };
    expect(await balancesOn(resumed.clusterUrl, { agent: agent.walletAddress })).toEqual({ agent: 990_000n });
    // The EVM chain too, replayed from its file: paid once on Base before, funded once (not again).
    expect(resumed.evm.agent).toBe(printed.evm.agent);
    expect(resumed.evm.buyer).toBe(printed.evm.buyer);
    expect(await evmBalancesOn(resumed.evm.url, { agent: resumed.evm.agent, buyer: resumed.evm.buyer })).toEqual({
      agent: 990_000n,
      buyer: 1_000_000n,
    });
    const paid = await sh(resumed.commands[0]!);
    expect(paid.status, paid.stderr).toBe(0);
    expect(await balancesOn(resumed.clusterUrl, { agent: agent.walletAddress })).toEqual({ agent: 980_000n });
    const paidOnBase = await sh(resumed.commands[1]!);
    expect(paidOnBase.status, paidOnBase.stderr).toBe(0);
    expect(await evmBalancesOn(resumed.evm.url, { agent: resumed.evm.agent })).toEqual({ agent: 980_000n });
    // The treasury funded once on the chain: 100 less the agent's 1.00, on both starts.
    expect(resumed.lines.filter((line) => / {2}on the EVM chain: .* holding 99\.00 test USDC$/.test(line))).toHaveLength(1);
    await stop(again.child, 'SIGTERM');
    expect(await again.exited).toBe(0);

    // Its Coffer data dir is never taken for devnet funds: started on devnet, or as any Coffer, it is refused.
    for (const network of [['--network', 'devnet'], []]) {
      const served = await runCoffer(['serve', '--data-dir', join(dir, 'coffer'), '--port', '0', ...network], { COFFER_KEYSTORE: 'file' });
      expect(served.code).toBe(1);
      expect(served.stderr).toContain(
        `holds the test money of coffer demo-x402 (a local cluster, not devnet): start it again with coffer demo-x402 --data-dir ${dir}`,
      );
    }
  }, 180_000);
});
