import { rmSync } from 'node:fs';
import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster } from '../fixtures/test-cluster.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { deployAgent, manualClock, micro, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';

/**
 * A Coffer whose COFFER_BASE_RPC does not answer when it starts: a hosted RPC down for an hour, a node
 * still starting. Solana's rail (and the owner's brake) must not go down with it: Coffer starts, the
 * Base rail refuses in words until its node answers, and the chain that node serves is checked then,
 * before anything is asked of it.
 */
describe('a Base node away when Coffer starts', () => {
  let cluster: TestCluster;
  let node: TestEvmNode;
  let elsewhere: TestEvmNode;
  const dataDirs: string[] = [];

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
    node = await TestEvmNode.start();
    // A node of another chain at the URL given: found out only once it answers.
    elsewhere = await TestEvmNode.start(8453);
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    await elsewhere?.stop();
    await cluster?.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  // Coffer's clock: a node that did not answer is asked again once 10 s passed by it.
  const clock = manualClock();
  const back = (door: TestEvmNode) => {
    door.offline = false;
    clock.advance(10_001);
  };
  const started = async (baseRpc: string, log: string[]): Promise<TestCoffer> => {
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    return startCoffer({
      dataDir,
      keepDataDir: true,
      network: cluster.url,
      usdcMint: cluster.mint.address,
      baseRpc,
      clock,
      log: (line) => log.push(line),
    });
  };

  it('starts on Solana all the same; Base refuses in words until its node answers, then works', async () => {
    node.offline = true;
    const log: string[] = [];
    const t = await started(node.url, log).finally(() => (node.offline = false));
    try {
      // Said once, in one line, without the node's URL (a hosted RPC's carries its key).
      expect(log.filter((line) => /COFFER_BASE_RPC/.test(line))).toEqual([
        "the Base rail's node (COFFER_BASE_RPC) did not answer at start (HTTP request failed (fetch failed)): Base is refused until it answers",
      ]);
      node.offline = true;
      cluster.airdrop(t.owner);
      await cluster.mintUsdc(t.owner, micro('10'));
      await deployAgent(t, 'both', { dailyBudget: '5', maxPerPayment: '1' });
      expect((await t.api('POST', t.withOwner('/v1/agents/both/allocate'), { body: { amount: '2' } })).status).toBe(200);
      const away = await t.api('POST', t.withOwner('/v1/agents/both/allocate'), { body: { amount: '1', rail: 'base' } });
      expect([away.status, away.body.code]).toEqual([502, 'chain_unavailable']);
      expect(away.body.error).toMatch(/^the base-sepolia node did not answer/);
      // The dashboard answers all the same, Base's balances unknown.
      for (const agentId of ['second', 'third', 'fourth']) await deployAgent(t, agentId, { dailyBudget: '5', maxPerPayment: '1' });
      const board = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
      expect([board.treasury.balances.base, board.agents.map((row: { balances: { base: unknown } }) => row.balances.base)]).toEqual([
        null,
        [null, null, null, null],
      ]);

      back(node);
      const treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base;
      await node.fundEth(treasury, parseEther('1'));
      await node.mint(treasury, micro('3'));
      const allocated = await t.api('POST', t.withOwner('/v1/agents/both/allocate'), { body: { amount: '1', rail: 'base' } });
      expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
      expect((await t.api('GET', t.withOwner('/v1/agents/both/balance'))).body.balances).toMatchObject({ sol: '2.00', base: '1.00' });
      // The node's absence did not turn the agents' one read a page into one a wallet.
      node.asked.clear();
      await t.api('GET', t.withOwner('/v1/dashboard'));
      expect(node.asked.get('eth_call')).toBe(2);
    } finally {
      node.offline = false;
      await t.stop();
    }
  });

  it('a node that answers at last for another chain is refused, named, and nothing is asked of it', async () => {
    elsewhere.offline = true;
    const log: string[] = [];
    const t = await started(elsewhere.url, log);
    try {
      back(elsewhere);
      const treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base;
      await elsewhere.mint(treasury, micro('3'));
      elsewhere.asked.clear();
      await deployAgent(t, 'wrong-chain', { dailyBudget: '5', maxPerPayment: '1' });
      // The other chain's USDC is never taken for the treasury's on Base.
      expect((await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.balances.base).toBeNull();
      const refused = await t.api('POST', t.withOwner('/v1/agents/wrong-chain/allocate'), { body: { amount: '1', rail: 'base' } });
      expect([refused.status, refused.body.code]).toEqual([502, 'chain_unavailable']);
      expect(refused.body.error).toMatch(/serves chain 8453; devnet goes with base-sepolia \(chain 84532\)/);
      // Asked which chain it serves, and nothing else: no balance, no gas, no transaction sent to it.
      expect([...elsewhere.asked.keys()].filter((method) => method !== 'eth_chainId')).toEqual([]);
    } finally {
      await t.stop();
    }
  });

  it('a data dir opened before names the chain its node must serve; a first start on an unknown chain waits for its node', async () => {
    const localnet = await new TestCluster().start();
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    const options = { dataDir, keepDataDir: true, network: localnet.url, usdcMint: localnet.mint.address, baseRpc: node.url, clock };
    try {
      node.offline = true;
      // Solana's own RPC names no Base network: the node must say which chain it serves, once.
      const refused = await startCoffer(options).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toBe(
        'COFFER_BASE_RPC did not answer which chain it serves (HTTP request failed (fetch failed)); this data dir has not been opened on a Base network yet: start Coffer again once it answers, or with COFFER_BASE_RPC=off',
      );
      node.offline = false;
      await (await startCoffer(options)).stop();
      // Opened once on it, the data dir says which chain: Coffer starts with the node away.
      node.offline = true;
      const log: string[] = [];
      const t = await startCoffer({ ...options, log: (line) => log.push(line) });
      try {
        expect(t.coffer.base?.chain.network).toBe('base-sepolia');
        expect(log.filter((line) => /COFFER_BASE_RPC/.test(line))).toHaveLength(1);
        back(node);
        expect((await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.balances.base).toBe('0.00');
      } finally {
        await t.stop();
      }
    } finally {
      node.offline = false;
      await localnet.stop();
    }
  });

  it("a chain known only by its id (a sim data dir's embedded one) is not named without its node: refused in words", async () => {
    const dataDir = tempDataDir();
    dataDirs.push(dataDir);
    await (await startCoffer({ dataDir, keepDataDir: true })).stop();
    node.offline = true;
    try {
      const refused = await startCoffer({ dataDir, keepDataDir: true, baseRpc: node.url }).catch((error: Error) => error);
      expect((refused as Error).message).toBe(
        'COFFER_BASE_RPC did not answer which chain it serves (HTTP request failed (fetch failed)): start Coffer again once it answers, or with COFFER_BASE_RPC=off',
      );
    } finally {
      node.offline = false;
    }
  });
});
