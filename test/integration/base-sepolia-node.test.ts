import {
  bytesToHex,
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  parseEther,
  parseEventLogs,
  zeroAddress,
  type Address,
  type Hash,
} from 'viem';
import { baseSepolia } from 'viem/chains';
import { startChainWatch } from '../../server/boot/chain-watch.js';
import type { CofferEvent } from '../../server/core/events.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createFileBackend } from '../../server/keys/file-backend.js';
import { createKeyVault } from '../../server/keys/key-vault.js';
import { openRemoteEvmRail } from '../../server/chain/evm/rail.js';
import { restoreFromPhrase } from '../../server/backup/restore-phrase.js';
import { evmWalletKeyAt, newRecoveryPhrase, seedOfPhrase } from '../../server/keys/recovery-phrase.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { encodeAuthorization } from '../../server/chain/evm/authorization.js';
import { paymentRow } from '../fixtures/transfer-rows.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { TEST_USDC_ABI } from '../../server/chain/evm/token/test-usdc-artifact.js';
import { BASE_SEPOLIA } from '../../server/chain/evm/networks.js';
import { baseReceiptSchema } from '../../server/wire/receipts.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { deployAgent, manualClock, micro, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';
import { payUsdc } from '../helpers/pay.js';

/**
 * Issue 49, point 2 and what must hold: the Base rail over JSON-RPC, on a local EVM node standing in
 * for Base Sepolia (its chain id, its USDC address and EIP-712 domain), beside a local Solana cluster
 * standing in for devnet, with viem as the client: moves and payments land there, read back from it.
 */
describe('the Base rail on a node with Base Sepolia’s chain id', () => {
  let cluster: TestCluster;
  let node: TestEvmNode;
  let t: TestCoffer;
  const dataDir = tempDataDir();
  const seller = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const client = () => createPublicClient({ transport: http(node.url, { retryCount: 0 }) });
  const held = (account: string) =>
    client().readContract({ address: node.usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [account as Address] });
  let treasury: Address;
  const engineLog: string[] = [];

  beforeAll(async () => {
    cluster = await new TestCluster().start();
    node = await TestEvmNode.start();
    t = await startCoffer({
      dataDir,
      keepDataDir: true,
      network: cluster.url,
      usdcMint: cluster.mint.address,
      baseRpc: node.url,
      log: (line) => engineLog.push(line),
    });
    treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base;
    // USDC and gas arrive from outside, as on Base Sepolia from a faucet.
    await node.fundEth(treasury, parseEther('1'));
    await node.mint(treasury, micro('10'));
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await node?.stop();
    await cluster?.stop();
  });

  it('names the network by its chain id and reads its USDC’s EIP-712 domain from the token', async () => {
    const chain = t.coffer.base!.chain;
    expect([chain.network, chain.chainId, chain.usdc, chain.isSim]).toEqual(['base-sepolia', 84532, BASE_SEPOLIA.usdc, false]);
    const { treasury } = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
    expect([treasury.balances.base, treasury.baseNetwork]).toEqual(['10.00', 'base-sepolia']);
  });

  it("says how many moves the treasury's gas on Base pays for, and warns before it runs out", async () => {
    const gas = async () => (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.baseGas;
    const plenty = await gas();
    expect(plenty).toMatchObject({ balance: '1', low: false });
    expect(plenty.moves).toBeGreaterThan(1000);
    await node.fundEth(treasury, parseEther('0.00001'));
    const low = await gas();
    expect(low).toMatchObject({ balance: '0.00001', low: true });
    expect(low.moves).toBeLessThan(100);
    await node.fundEth(treasury, parseEther('1'));
  });

  it('allocates on Base and pays an EVM recipient there, the node holding what the ledger says', async () => {
    const agent = await deployAgent(t, 'sepolia', { dailyBudget: '5.00', maxPerPayment: '2.00' });
    const allocated = await t.api('POST', t.withOwner('/v1/agents/sepolia/allocate'), { body: { amount: '3', rail: 'base' } });
    expect(allocated.status).toBe(200);
    const wallet = (await t.api('GET', t.withOwner('/v1/agents/sepolia/balance'))).body.wallets.base as Address;
    expect(await held(wallet)).toBe(micro('3'));
    const paid = await payUsdc(t, 'sepolia', agent.apiKey, { service: 'sepolia-api', recipient: seller, amount: '1.25' });
    expect(paid.status).toBe(200);
    const receipt = baseReceiptSchema.parse(JSON.parse(Buffer.from(paid.body.xPaymentHeader.slice(3), 'base64').toString('utf8')));
    expect(receipt).toMatchObject({ network: 'base-sepolia', chainId: 84532, payer: wallet, recipient: seller });
    const landed = await client().getTransactionReceipt({ hash: paid.body.txSignature as Hash });
    expect(parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: landed.logs }).map((log) => log.args)).toEqual([
      { from: wallet, to: seller, value: micro('1.25') },
    ]);
    expect(getAddress(landed.from)).toBe(treasury);
    expect([await held(seller), await held(wallet), await held(treasury)]).toEqual([micro('1.25'), micro('1.75'), micro('7')]);
  });

  it("a node that refuses a sent payment's receipt: refused in one line without the node's URL, settled once it answers", async () => {
    const agent = await deployAgent(t, 'lost-node', { dailyBudget: '5.00', maxPerPayment: '2.00' });
    const sellerBefore = await held(seller);
    expect((await t.api('POST', t.withOwner('/v1/agents/lost-node/allocate'), { body: { amount: '1', rail: 'base' } })).status).toBe(200);
    node.refusing('eth_getTransactionReceipt', { code: -32000, message: 'header not found' });
    const paid = await payUsdc(t, 'lost-node', agent.apiKey, {
      service: 'sepolia-api',
      recipient: seller,
      amount: '0.10',
      rail: 'base',
    }).finally(() => node.refusing('eth_getTransactionReceipt', null));
    expect([paid.status, paid.body.code]).toEqual([502, 'chain_unavailable']);
    // A hosted RPC's URL carries its key: never in an answer (nor the log, which says the same).
    expect(paid.body.error).not.toMatch(/127\.0\.0\.1|URL|\n/);
    expect(engineLog.join('\n')).not.toMatch(new RegExp(node.url.replace(/[.:/]/g, '\\$&')));
    await t.coffer.engine.reconcile(['base']);
    const rows = t.coffer.db.prepare("SELECT status, tx_signature AS tx FROM payments WHERE agent_id = 'lost-node'").all() as {
      status: string;
      tx: Hash;
    }[];
    expect(rows.map((row) => row.status)).toEqual(['confirmed']);
    // Settled by the one transfer sent before the node stopped answering, read from the chain; nothing sent anew.
    const wallet = (await t.api('GET', t.withOwner('/v1/agents/lost-node/balance'))).body.wallets.base as Address;
    const landed = await client().getTransactionReceipt({ hash: rows[0]!.tx });
    expect(parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: landed.logs }).map((log) => log.args)).toEqual([
      { from: getAddress(wallet), to: seller, value: micro('0.10') },
    ]);
    expect([await held(seller), await held(wallet)]).toEqual([sellerBefore + micro('0.10'), micro('0.90')]);
  });

  it('records USDC sent to the treasury on Base from outside as a deposit, once, paging over blocks; never an agent giving back', async () => {
    const log: string[] = [];
    const watch = startChainWatch(t.coffer, (line) => log.push(line), 3_600_000);
    const events: CofferEvent[] = [];
    const unsubscribe = t.coffer.engine.events.subscribe((event) => events.push(event));
    try {
      const baseDeposits = async () =>
        ((await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body.deposits as { rail: string; amount: string; from: string }[])
          .filter((deposit) => deposit.rail === 'base')
          .map(({ amount, from }) => ({ amount, from }));
      await watch.tick();
      // The beforeAll's 10 USDC (minted to it, as Circle mints) is the first; the agent's allocation is not.
      expect(await baseDeposits()).toEqual([{ amount: '10.00', from: zeroAddress }]);

      // An agent giving USDC back is Coffer's own move, not a deposit, though it arrives from outside the treasury.
      const back = await t.api('POST', t.withOwner('/v1/agents/sepolia/return'), { body: { amount: '0.25', rail: 'base' } });
      expect(back.status, JSON.stringify(back.body)).toBe(200);
      // Then a sender outside Coffer, more than a page of blocks after the last read.
      await node.mine(2_500);
      const outsider = privateKeyToAccount(generatePrivateKey());
      await node.fundEth(outsider.address, parseEther('1'));
      await node.mint(outsider.address, micro('5'));
      const wallet = createWalletClient({ account: outsider, chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) });
      const sent = await wallet.writeContract({
        address: node.usdc,
        abi: TEST_USDC_ABI,
        functionName: 'transfer',
        args: [treasury, micro('2.5')],
      });
      await client().waitForTransactionReceipt({ hash: sent });
      await watch.tick();
      await watch.tick();
      expect(await baseDeposits()).toEqual([
        { amount: '2.50', from: outsider.address },
        { amount: '10.00', from: zeroAddress },
      ]);
      expect(
        events.filter((event) => event.type === 'deposit').map((event) => event.type === 'deposit' && [event.amount, event.rail]),
      ).toEqual([
        ['10.00', 'base'],
        ['2.50', 'base'],
      ]);
      expect(log.filter((line) => /chain watch:/.test(line))).toEqual([]);
    } finally {
      unsubscribe();
      await watch.stop();
    }
  });

  it("one rail's node away holds back neither the other rail's deposits nor its pending payments", async () => {
    const log: string[] = [];
    const watch = startChainWatch(t.coffer, (line) => log.push(line), 3_600_000);
    const solSeller = 'CZQNapiF5nsKom9V71M8baYecLgD3msMDgkYoT4Xs2Hx';
    const deposits = async (rail: string) =>
      ((await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body.deposits as { rail: string; amount: string }[])
        .filter((deposit) => deposit.rail === rail)
        .map((deposit) => deposit.amount);
    try {
      cluster.airdrop(t.owner);
      await cluster.depositFromOutside(t.owner, micro('4'));
      await cluster.depositFromOutside(solSeller, 1n);
      const agent = await deployAgent(t, 'two-rails', { dailyBudget: '5.00', maxPerPayment: '2.00' });
      expect((await t.api('POST', t.withOwner('/v1/agents/two-rails/allocate'), { body: { amount: '2' } })).status).toBe(200);
      // A Solana payment sent just before its node went away: pending, though it landed.
      cluster.offlineAfterNextSend = true;
      const paid = await payUsdc(t, 'two-rails', agent.apiKey, { service: 'sol-api', recipient: solSeller, amount: '0.50' });
      expect(paid.status).toBe(502);
      const status = () => t.coffer.db.prepare("SELECT status FROM payments WHERE agent_id = 'two-rails'").pluck().all();
      expect(status()).toEqual(['pending']);
      cluster.offline = false;

      // Base's node away: Solana's deposits and its pending payment are read all the same.
      node.offline = true;
      await cluster.depositFromOutside(t.owner, micro('0.75'));
      await watch.tick();
      expect(status()).toEqual(['confirmed']);
      expect(await deposits('sol')).toContain('0.75');
      expect(log.filter((line) => /^chain watch: Base/.test(line))).toHaveLength(1);

      // Solana's away: Base's deposits are read all the same.
      cluster.offline = true;
      node.offline = false;
      await node.mint(treasury, micro('0.25'));
      await watch.tick();
      expect(await deposits('base')).toContain('0.25');
      expect(log.filter((line) => /^chain watch: Solana/.test(line))).toHaveLength(1);
      cluster.offline = false;
      await watch.tick();
      expect(log.filter((line) => /answers again/.test(line))).toEqual([
        "chain watch: Base's RPC answers again",
        "chain watch: Solana's RPC answers again",
      ]);
      // Each said in one line (viem's own message spans several: the request's URL, body, version).
      expect(log.find((line) => /Base's RPC: /.test(line))).toMatch(
        /^chain watch: Base's RPC: the base-sepolia node did not answer the USDC sent to the treasury: [^\n]+ \(will retry every 3600 s\)$/,
      );
    } finally {
      cluster.offline = false;
      node.offline = false;
      await watch.stop();
    }
  });

  it("a rail's node that takes requests and goes quiet holds back nothing pending on the other rail", async () => {
    const solSeller = 'CZQNapiF5nsKom9V71M8baYecLgD3msMDgkYoT4Xs2Hx';
    cluster.airdrop(t.owner);
    await cluster.depositFromOutside(t.owner, micro('2'));
    await cluster.depositFromOutside(solSeller, 1n);
    const agent = await deployAgent(t, 'quiet-base', { dailyBudget: '5.00', maxPerPayment: '2.00' });
    expect((await t.api('POST', t.withOwner('/v1/agents/quiet-base/allocate'), { body: { amount: '1' } })).status).toBe(200);
    // Pending on Base first (as its start left it): an authorization the node is to be asked about.
    const wallet = getAddress((await t.api('GET', t.withOwner('/v1/agents/quiet-base/balance'))).body.wallets.base);
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3_600);
    const authorization = encodeAuthorization({
      domain: { name: 'USDC', version: '2', chainId: BASE_SEPOLIA.chainId, verifyingContract: node.usdc },
      from: wallet,
      to: seller,
      value: micro('0.01'),
      validAfter: 0n,
      validBefore,
      nonce: bytesToHex(randomBytes(32)),
      signature: `0x${'11'.repeat(65)}`,
      relayer: treasury,
    });
    t.coffer.engine.ctx.store.insertTransfer(
      paymentRow({
        id: 'pay_quiet_base',
        owner: t.owner,
        agentId: 'quiet-base',
        amount: micro('0.01'),
        createdAt: Date.now() - 60_000,
        rail: 'base',
        recipient: seller,
        txSignature: bytesToHex(randomBytes(32)),
        txWire: authorization,
        lifetimeEnd: validBefore,
      }),
    );
    // Then a Solana payment that landed while its answer was lost.
    cluster.offlineAfterNextSend = true;
    expect((await payUsdc(t, 'quiet-base', agent.apiKey, { service: 'sol-api', recipient: solSeller, amount: '0.25' })).status).toBe(502);
    cluster.offline = false;
    const status = (id: string) => t.coffer.db.prepare('SELECT status FROM payments WHERE id = ?').pluck().get(id);
    const solana = t.coffer.db.prepare("SELECT id FROM payments WHERE agent_id = 'quiet-base' AND rail = 'sol'").pluck().get() as string;

    const release = node.hold();
    const round = t.coffer.engine.reconcile();
    try {
      // Settled while Base's node still holds the question about the row before it.
      await vi.waitFor(() => expect(status(solana)).toBe('confirmed'), { timeout: 10_000 });
      expect([node.heldRequests, status('pay_quiet_base')]).toEqual([1, 'pending']);
    } finally {
      release();
    }
    await round;
    try {
      // The node away: the row stays pending, said in one line that names no URL (a hosted RPC's
      // carries its key), not viem's message with the request.
      node.offline = true;
      await t.coffer.engine.reconcile();
      expect(status('pay_quiet_base')).toBe('pending');
      expect(engineLog.filter((line) => line.includes('pay_quiet_base'))).toContain(
        'reconcile: payment pay_quiet_base stays pending: the chain could not be asked (the base-sepolia node did not answer what became of a transfer: HTTP request failed (fetch failed))',
      );
      node.offline = false;

      // The chain watch alike: Base's round held (its deposit read first), Solana's goes on.
      const watch = startChainWatch(t.coffer, () => undefined, 3_600_000);
      await watch.tick();
      cluster.offlineAfterNextSend = true;
      expect((await payUsdc(t, 'quiet-base', agent.apiKey, { service: 'sol-api', recipient: solSeller, amount: '0.25' })).status).toBe(502);
      cluster.offline = false;
      const second = t.coffer.db
        .prepare("SELECT id FROM payments WHERE agent_id = 'quiet-base' AND rail = 'sol' AND status = 'pending'")
        .pluck()
        .get() as string;
      const releaseWatch = node.hold();
      const ticking = watch.tick();
      try {
        await vi.waitFor(() => expect(status(second)).toBe('confirmed'), { timeout: 10_000 });
        // Base's round still waits on its node meanwhile: the tick is not over.
        await vi.waitFor(() => expect(node.heldRequests).toBeGreaterThan(0));
        expect(await Promise.race([ticking.then(() => 'over'), Promise.resolve('still running')])).toBe('still running');
      } finally {
        releaseWatch();
        await ticking;
        await watch.stop();
      }
    } finally {
      node.offline = false;
      // Not left pending for the tests after: it never ran (its signature is no one's).
      const row = t.coffer.engine.ctx.store.getTransfer('pay_quiet_base')!;
      t.coffer.engine.ctx.store.transaction(() => t.coffer.engine.ctx.store.settleTransfer(row, 'failed', 'dropped', Date.now()));
    }
  });

  it('opens on the same node again with the same accounts and balances, and refuses another network for its Base rail', async () => {
    await t.stop();
    t = await startCoffer({ dataDir, keepDataDir: true, network: cluster.url, usdcMint: cluster.mint.address, baseRpc: node.url });
    const balance = (await t.api('GET', t.withOwner('/v1/agents/sepolia/balance'))).body;
    expect(balance.balances.base).toBe('1.50');
    await t.stop();
    // A node of another chain (its USDC named) is another network: the data dir stays on its own.
    const other = await TestEvmNode.start(31_337);
    try {
      await expect(
        startCoffer({
          dataDir,
          keepDataDir: true,
          network: cluster.url,
          usdcMint: cluster.mint.address,
          baseRpc: other.url,
          baseUsdc: other.usdc,
        }),
      ).rejects.toThrow(/holds a treasury on base-sepolia for the Base rail, not evm-31337/);
    } finally {
      await other.stop();
    }
    t = await startCoffer({ dataDir, keepDataDir: true, network: cluster.url, usdcMint: cluster.mint.address, baseRpc: 'off' });
    const off = await t.api('POST', t.withOwner('/v1/agents/sepolia/allocate'), { body: { amount: '1', rail: 'base' } });
    expect({ status: off.status, code: off.body.code }).toEqual({ status: 503, code: 'rail_unavailable' });
    // The refusal says how the rail is opened, not only that it is shut.
    expect(off.body.error).toBe(
      "the Base rail is not open on this data dir: it is off where Coffer was started with COFFER_BASE_RPC=off, on a Solana RPC of the owner's own without a COFFER_BASE_RPC, or where the embedded EVM cannot run (Coffer's start said which)",
    );
    expect((await t.api('GET', t.withOwner('/v1/agents/sepolia/balance'))).body.balances.base).toBeNull();
  }, 60_000);

  it('a restore by phrase finds a wallet used only on Base, and brings back its account there', async () => {
    const phrase = newRecoveryPhrase();
    const account = privateKeyToAccount(bytesToHex(evmWalletKeyAt(await seedOfPhrase(phrase), 3))).address;
    await node.mint(account, micro('4.5'));
    const into = tempDataDir();
    const { coffer, found } = await restoreFromPhrase({
      phrase,
      dataDir: into,
      network: cluster.url,
      usdcMint: cluster.mint.address,
      baseRpc: node.url,
      keyStore: 'file',
      log: () => undefined,
    });
    try {
      expect(found.agents.map((agent) => agent.index)).toEqual([3]);
      const restored = coffer.db.prepare("SELECT address FROM rail_wallets WHERE rail = 'base'").pluck().all();
      expect(restored).toContain(account);
      expect(await coffer.base!.chain.usdcBalance(account)).toBe(micro('4.5'));
    } finally {
      await coffer.close();
      rmSync(into, { recursive: true, force: true });
    }
  });

  /**
   * A rail of its own over the node, on Coffer's `clock` (moved by `ahead` seconds past the chain's
   * time), with an agent's wallet holding a dollar and a relayer with gas: what a transfer needs.
   */
  async function railBesideTheChain(keys: string, ahead: number) {
    const vault = createKeyVault(createFileBackend(join(keys, 'keys')));
    const owner = await vault.createWallet({ kind: 'treasury' });
    const relayer = getAddress(await vault.evmWalletOf(owner, owner));
    const payer = getAddress(await vault.evmWalletOf(await vault.createWallet({ kind: 'agent', treasury: owner }), owner));
    await node.fundEth(relayer, parseEther('1'));
    await node.mint(payer, micro('1'));
    // Earlier tests moved the chain ahead of the wall clock: Coffer's clock starts from the chain's.
    const clock = manualClock((Number((await client().getBlock()).timestamp) + ahead) * 1000);
    const { chain } = await openRemoteEvmRail(node.url, undefined, { vault, clock });
    const transfer = (reference: string) =>
      chain.prepareTransfer({
        from: payer,
        to: seller,
        amount: micro('0.25'),
        memo: '',
        reference,
        feePayer: relayer,
        createRecipientAccount: true,
      });
    return { chain, clock, relayer, transfer };
  }

  it('finds where an authorization landed thousands of blocks into a chain, reading logs a page at a time as public nodes allow', async () => {
    const keys = tempDataDir();
    try {
      const { chain, relayer, transfer } = await railBesideTheChain(keys, 0);
      // A chain with a history, more than a page of it, all at that time (within the authorization's window).
      await node.mine(3_000, 0);
      const prepared = await transfer('landed-far');
      const landed = await chain.submitTransfer(prepared);
      await node.mine(2_500, 0);
      // What reconciliation asks of a row whose transaction it never heard back from, and a send of it
      // again: its simulation finds it ran, so nothing is sent.
      expect(await chain.fateOf(prepared)).toEqual({
        state: 'succeeded',
        landedAs: landed,
      });
      const sent = await client().getTransactionCount({ address: relayer });
      await chain.resend(prepared);
      expect(await client().getTransactionCount({ address: relayer })).toBe(sent);
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('finds where an authorization landed when Coffer’s clock runs ten minutes ahead of the chain’s', async () => {
    const keys = tempDataDir();
    try {
      const { chain, clock, transfer } = await railBesideTheChain(keys, 600);
      // Base's pace: a block every 2 s, before and after; Coffer's clock keeps its ten minutes ahead.
      await node.mine(500, 2);
      clock.advance(1_000_000);
      const prepared = await transfer('clock-ahead');
      const landed = await chain.submitTransfer(prepared);
      await node.mine(300, 2);
      clock.advance(600_000);
      expect(await chain.fateOf(prepared)).toEqual({ state: 'succeeded', landedAs: landed });
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('finds where an authorization landed when Coffer’s clock ran ten minutes ahead as it signed, and was set right since, hours later', async () => {
    const keys = tempDataDir();
    try {
      const { chain, clock, transfer } = await railBesideTheChain(keys, 600);
      // Base's pace: a block every 2 s; Coffer's clock keeps its ten minutes ahead as it signs.
      await node.mine(500, 2);
      clock.advance(1_000_000);
      const prepared = await transfer('clock-set-right');
      const landed = await chain.submitTransfer(prepared);
      // Coffer closed for hours meanwhile: thousands of blocks since.
      await node.mine(5_000, 2);
      // The clock is set right (NTP): the chain's time and Coffer's agree now; the authorization's
      // window still says when the fast clock signed it, ten minutes after it ran.
      clock.set(Number((await client().getBlock()).timestamp) * 1000);
      expect(await chain.fateOf(prepared)).toEqual({ state: 'succeeded', landedAs: landed });
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('calls an authorization never run dropped only once the chain’s safe head is past its end, not its newest block (a node that does not say: 15 minutes behind)', async () => {
    const keys = tempDataDir();
    try {
      const { chain, clock, transfer } = await railBesideTheChain(keys, 0);
      const prepared = await transfer('never-sent');
      // Its end passes on the newest blocks (a block every 2 s), not yet on those posted to L1: a
      // reorganization of the newer ones could still run it before its end.
      await node.mine(400, 2);
      clock.advance(800_000);
      node.safeBehind = 350;
      try {
        expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
        // A node that says neither its safe head nor its finalized one: taken to be 15 minutes
        // behind the newest block.
        node.safeBehind = 'refused';
        node.finalizedBehind = 'refused';
        expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
        await node.mine(450, 2);
        clock.advance(900_000);
        // A node that fails to answer it (a hosted RPC's rate limit) says nothing of how far behind
        // its safe head is: the question fails, asked again next round.
        node.safeBehind = 'rate-limited';
        await expect(chain.fateOf(prepared)).rejects.toMatchObject({ code: 'chain_unavailable' });
        node.safeBehind = 'refused';
        expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
      } finally {
        node.safeBehind = 0;
        node.finalizedBehind = 0;
      }
      expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('calls an authorization never run dropped through a node that fails the `safe` tag (-32603): by its finalized head', async () => {
    const keys = tempDataDir();
    try {
      const { chain, clock, transfer } = await railBesideTheChain(keys, 0);
      const prepared = await transfer('never-sent-no-safe-tag');
      await node.mine(400, 2);
      clock.advance(800_000);
      // Some nodes fail the `safe` tag with an internal error rather than refusing it: their
      // finalized head (older, as sure) says instead, here not yet past the end.
      node.safeBehind = 'internal-error';
      node.finalizedBehind = 350;
      try {
        expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
        // A finalized head past the end.
        node.finalizedBehind = 50;
        expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
        // Failing `finalized` too, or rate-limited there, says nothing of either head, however far
        // past the end the newest block is (never the 15-minute guess: a node in trouble may also
        // answer a newest block of its own fork): asked again next round.
        await node.mine(450, 2);
        clock.advance(900_000);
        for (const failing of ['internal-error', 'rate-limited'] as const) {
          node.finalizedBehind = failing;
          await expect(chain.fateOf(prepared)).rejects.toMatchObject({ code: 'chain_unavailable' });
        }
        // Refusing `finalized` outright: taken to be 15 minutes behind the newest block.
        node.finalizedBehind = 'refused';
        expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
      } finally {
        node.safeBehind = 0;
        node.finalizedBehind = 0;
      }
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('never calls an authorization that ran dropped on a newest block read from a node on a fork of its own, behind the safe head', async () => {
    const keys = tempDataDir();
    try {
      const { chain, clock, transfer } = await railBesideTheChain(keys, 0);
      const prepared = await transfer('ran-canonically');
      const landed = await chain.submitTransfer(prepared);
      const ranAt = (await client().getTransactionReceipt({ hash: landed as `0x${string}` })).blockNumber;
      // Its end passes, posted to L1 too (the safe head is the newest).
      await node.mine(400, 2);
      clock.advance(800_000);
      // A load-balanced RPC's node stuck on a fork of its own answers the newest block: below the
      // block it ran in, yet past its end; the token's state there says unused.
      const { timestamp } = await client().getBlock();
      node.newestOnFork = { number: ranAt - 1n, timestamp };
      try {
        expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
      } finally {
        node.newestOnFork = null;
      }
      expect(await chain.fateOf(prepared)).toEqual({ state: 'succeeded', landedAs: landed });
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('never calls an authorization that ran dropped on a newest block of a fork of its own above the safe head, whichever node keeps what state', async () => {
    const keys = tempDataDir();
    try {
      const { chain, clock, transfer } = await railBesideTheChain(keys, 0);
      const prepared = await transfer('ran-below-the-fork');
      const landed = await chain.submitTransfer(prepared);
      const ranAt = (await client().getTransactionReceipt({ hash: landed as `0x${string}` })).blockNumber;
      // Its end passes; the safe head (posted to L1) is past it, above the block it ran in (mineAfter:
      // state is read at the safe head).
      for (let block = 0; block < 60; block += 1) await node.mineAfter(20);
      clock.advance(1_200_000);
      node.safeBehind = 10;
      // A load-balanced RPC's node on a fork of its own from before it ran answers the newest block,
      // above the safe head, and the token's state there (unused). The safe head and the block at its
      // height come from the chain's nodes.
      const { number, timestamp } = await client().getBlock();
      node.newestOnFork = { number, timestamp, stateOf: ranAt - 1n };
      try {
        expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
        // A full node that keeps only the newest blocks' state (not the safe head's): the newest
        // block read must descend from the safe head, which the fork's does not.
        node.stateKept = 5;
        expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
        // The safe head further back than BLOCKHASH reaches: the fork's history contract names its own ancestors.
        await node.mineAfter(600);
        for (let block = 0; block < 300; block += 1) await node.mineAfter(2);
        const newest = await client().getBlock();
        node.newestOnFork = { number: newest.number, timestamp: newest.timestamp, stateOf: ranAt - 1n };
        node.safeBehind = 280;
        expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
      } finally {
        node.newestOnFork = null;
        node.stateKept = null;
        node.safeBehind = 0;
      }
      expect(await chain.fateOf(prepared)).toEqual({ state: 'succeeded', landedAs: landed });
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('calls an authorization never run dropped through a node that keeps only its newest blocks’ state, its safe head far behind', async () => {
    const keys = tempDataDir();
    try {
      const { chain, clock, transfer } = await railBesideTheChain(keys, 0);
      const prepared = await transfer('never-sent-full-node');
      await node.mine(800, 2);
      clock.advance(1_600_000);
      // A full node (no archive): the state of its last 128 blocks; its safe head 200 behind, past the
      // end. The newest block read descends from it (the EVM's BLOCKHASH there says so).
      node.stateKept = 128;
      node.safeBehind = 200;
      try {
        expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
        // Further back than BLOCKHASH reaches (256 blocks): EIP-2935's history contract says it.
        node.safeBehind = 300;
        expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
      } finally {
        node.stateKept = null;
        node.safeBehind = 0;
      }
    } finally {
      rmSync(keys, { recursive: true, force: true });
    }
  });

  it('refuses an RPC of another chain where the network names Base’s (mainnet goes with Base, chain 8453)', async () => {
    await expect(startCoffer({ network: 'mainnet', baseRpc: node.url })).rejects.toThrow(
      /chain 84532; mainnet goes with base \(chain 8453\)/,
    );
  });
});

/**
 * The ledger's durability where rails differ: the embedded chains' state lives in the ledger's own
 * file (no fsync per commit needed), but a Base rail on a node of its own beside the Solana sim
 * (COFFER_BASE_RPC) moves money that lives elsewhere, so each commit is fsynced before the payment
 * it records leaves (docs/ARCHITECTURE.md).
 */
describe('the ledger on sim fsyncs each commit where the Base rail reads a node of its own', () => {
  const FULL = 2;
  const NORMAL = 1;
  const synchronous = (t: TestCoffer) => t.coffer.db.pragma('synchronous', { simple: true });

  it('NORMAL beside the embedded EVM chain, FULL beside a remote one', async () => {
    const embedded = await startCoffer({});
    try {
      expect(embedded.coffer.base?.chain.isSim).toBe(true);
      expect(synchronous(embedded)).toBe(NORMAL);
    } finally {
      await embedded.stop();
    }
    const node = await TestEvmNode.start();
    const remote = await startCoffer({ baseRpc: node.url, baseUsdc: node.usdc });
    try {
      expect(remote.coffer.base?.chain.isSim).toBe(false);
      expect(synchronous(remote)).toBe(FULL);
    } finally {
      await remote.stop();
      await node.stop();
    }
  });
});
