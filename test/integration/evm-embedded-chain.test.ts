import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, custom, parseEther, toHex, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection, type SqliteDatabase } from '../../server/store/sqlite-driver.js';
import { migrate } from '../../server/store/migrations.js';
import { EMBEDDED_EVM_CHAIN_ID, EMBEDDED_EVM_VIEM_CHAIN, openEmbeddedEvm, type EmbeddedEvm } from '../../server/chain/evm/sim/chain.js';
import { TEST_USDC_ABI } from '../../server/chain/evm/token/test-usdc-artifact.js';

const dir = mkdtempSync(join(tmpdir(), 'coffer-evm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openDb(name: string): SqliteDatabase {
  const db = openConnection(join(dir, name));
  migrate(db);
  return db;
}
const transportOf = (evm: EmbeddedEvm) =>
  custom({ request: ({ method, params }) => evm.request(method, params as unknown[]) }, { retryCount: 0 });
const journalRows = (db: SqliteDatabase) => db.prepare('SELECT COUNT(*) FROM evm_journal').pluck().get() as number;

/** An EIP-3009 authorization signed by `from` for the chain's test USDC. */
async function authorize(
  evm: EmbeddedEvm,
  from: PrivateKeyAccount,
  message: { to: Address; value: bigint; validAfter?: bigint; validBefore?: bigint; nonce?: Hex },
  primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
) {
  const full = {
    from: from.address,
    to: message.to,
    value: message.value,
    validAfter: message.validAfter ?? 0n,
    validBefore: message.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 600),
    nonce: message.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const fields = ['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'].map((name) => ({
    name,
    type: name === 'from' || name === 'to' ? 'address' : name === 'nonce' ? 'bytes32' : 'uint256',
  }));
  const signature = await from.signTypedData({
    domain: { name: 'USDC', version: '2', chainId: EMBEDDED_EVM_CHAIN_ID, verifyingContract: evm.usdc },
    types: { [primaryType]: fields },
    primaryType,
    message: full,
  });
  return { ...full, signature };
}

describe('the embedded EVM chain', () => {
  let db: SqliteDatabase;
  let evm: EmbeddedEvm;
  let client: PublicClient;
  const agent = privateKeyToAccount(generatePrivateKey());
  const relayer = privateKeyToAccount(generatePrivateKey());
  const seller = privateKeyToAccount(generatePrivateKey()).address;
  const balanceOf = (who: Address, on: PublicClient = client) =>
    on.readContract({ address: evm.usdc, abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [who] });
  const relay = () => createWalletClient({ account: relayer, transport: transportOf(evm), chain: EMBEDDED_EVM_VIEM_CHAIN });
  const send = (functionName: 'transferWithAuthorization' | 'receiveWithAuthorization', auth: Awaited<ReturnType<typeof authorize>>) =>
    relay().writeContract({
      address: evm.usdc,
      abi: TEST_USDC_ABI,
      functionName,
      args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
    });
  const revertOf = async (promise: Promise<unknown>) => {
    const error = (await promise.then(
      () => null,
      (e: unknown) => e,
    )) as { shortMessage?: string; message?: string } | null;
    return error === null ? null : `${error.shortMessage ?? ''} ${error.message ?? ''}`;
  };

  beforeAll(async () => {
    db = openDb('chain.db');
    evm = await openEmbeddedEvm(db, { now: () => Date.now() });
    client = createPublicClient({ transport: transportOf(evm) });
    await evm.sendTestEth(relayer.address, parseEther('1'));
    await evm.mintTestUsdc(agent.address, 10_000_000n);
  });

  it("has a chain id of its own and USDC's interface: 6 decimals, EIP-712 domain (USDC, 2)", async () => {
    expect(await client.getChainId()).toBe(EMBEDDED_EVM_CHAIN_ID);
    expect([8453, 84532]).not.toContain(EMBEDDED_EVM_CHAIN_ID);
    const read = (functionName: 'name' | 'symbol' | 'version' | 'decimals') =>
      client.readContract({ address: evm.usdc, abi: TEST_USDC_ABI, functionName });
    expect([await read('name'), await read('symbol'), await read('version'), await read('decimals')]).toEqual(['USDC', 'USDC', '2', 6]);
    const domain = await client.readContract({ address: evm.usdc, abi: TEST_USDC_ABI, functionName: 'eip712Domain' });
    expect(domain.slice(1, 5)).toEqual(['USDC', '2', BigInt(EMBEDDED_EVM_CHAIN_ID), evm.usdc]);
    expect(await balanceOf(agent.address)).toBe(10_000_000n);
    expect(await client.getBalance({ address: relayer.address })).toBe(parseEther('1'));
  });

  it('moves USDC by an EIP-3009 authorization that a relayer sends, once, and logs the Transfer', async () => {
    const auth = await authorize(evm, agent, { to: seller, value: 250_000n });
    const hash = await send('transferWithAuthorization', auth);
    const receipt = await client.getTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(await balanceOf(seller)).toBe(250_000n);
    expect(await balanceOf(agent.address)).toBe(9_750_000n);
    expect(
      await client.readContract({
        address: evm.usdc,
        abi: TEST_USDC_ABI,
        functionName: 'authorizationState',
        args: [agent.address, auth.nonce],
      }),
    ).toBe(true);
    const logs = await client.getContractEvents({ address: evm.usdc, abi: TEST_USDC_ABI, eventName: 'Transfer', args: { to: seller } });
    expect(logs.map((log) => [log.args.from, log.args.value, log.transactionHash])).toEqual([[agent.address, 250_000n, hash]]);

    // The same authorization again is refused with USDC's words, and moves nothing.
    expect(await revertOf(send('transferWithAuthorization', auth))).toMatch(/authorization is used or canceled/);
    expect(await balanceOf(seller)).toBe(250_000n);
  });

  it("refuses an expired authorization, one not yet valid, a canceled one, a tampered one, and another's receive", async () => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    expect(
      await revertOf(send('transferWithAuthorization', await authorize(evm, agent, { to: seller, value: 1n, validBefore: now - 1n }))),
    ).toMatch(/authorization is expired/);
    expect(
      await revertOf(send('transferWithAuthorization', await authorize(evm, agent, { to: seller, value: 1n, validAfter: now + 3600n }))),
    ).toMatch(/authorization is not yet valid/);
    const tampered = { ...(await authorize(evm, agent, { to: seller, value: 1n })), value: 2n };
    expect(await revertOf(send('transferWithAuthorization', tampered))).toMatch(/invalid signature/);

    const canceled = await authorize(evm, agent, { to: seller, value: 1n });
    const cancelSignature = await agent.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: EMBEDDED_EVM_CHAIN_ID, verifyingContract: evm.usdc },
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: agent.address, nonce: canceled.nonce },
    });
    await relay().writeContract({
      address: evm.usdc,
      abi: TEST_USDC_ABI,
      functionName: 'cancelAuthorization',
      args: [agent.address, canceled.nonce, cancelSignature],
    });
    expect(await revertOf(send('transferWithAuthorization', canceled))).toMatch(/authorization is used or canceled/);

    // receiveWithAuthorization: only the payee may send it.
    const toSeller = await authorize(evm, agent, { to: seller, value: 1n }, 'ReceiveWithAuthorization');
    expect(await revertOf(send('receiveWithAuthorization', toSeller))).toMatch(/caller must be the payee/);
    const toRelayer = await authorize(evm, agent, { to: relayer.address, value: 3n }, 'ReceiveWithAuthorization');
    await send('receiveWithAuthorization', toRelayer);
    expect(await balanceOf(relayer.address)).toBe(3n);
    expect(await balanceOf(seller)).toBe(250_000n);
  });

  it('takes an EIP-2612 permit, then transferFrom by the spender', async () => {
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 600);
    const nonce = await client.readContract({ address: evm.usdc, abi: TEST_USDC_ABI, functionName: 'nonces', args: [agent.address] });
    const signature = await agent.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: EMBEDDED_EVM_CHAIN_ID, verifyingContract: evm.usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: agent.address, spender: relayer.address, value: 7n, nonce, deadline },
    });
    await relay().writeContract({
      address: evm.usdc,
      abi: TEST_USDC_ABI,
      functionName: 'permit',
      args: [agent.address, relayer.address, 7n, deadline, signature],
    });
    await relay().writeContract({ address: evm.usdc, abi: TEST_USDC_ABI, functionName: 'transferFrom', args: [agent.address, seller, 7n] });
    expect(await balanceOf(seller)).toBe(250_007n);
  });

  it('refuses what would sign, mint or set its state from outside, and journals nothing for it', async () => {
    const before = journalRows(db);
    for (const [method, params] of [
      ['eth_sendTransaction', [{ from: relayer.address, to: seller, value: '0x1' }]],
      ['hardhat_setBalance', [seller, '0x1']],
      ['hardhat_impersonateAccount', [seller]],
      ['evm_mine', []],
      ['evm_setNextBlockTimestamp', ['0x1']],
    ] as const) {
      await expect(evm.request(method, params)).rejects.toMatchObject({ code: -32601 });
    }
    // A transaction the node refuses (its sender has no ETH for gas) leaves the journal as it was.
    const broke = createWalletClient({
      account: privateKeyToAccount(generatePrivateKey()),
      transport: transportOf(evm),
      chain: EMBEDDED_EVM_VIEM_CHAIN,
    });
    await expect(broke.sendTransaction({ to: seller, value: 1n, gas: 21_000n })).rejects.toThrow();
    expect(journalRows(db)).toBe(before);
  });

  it('gives a call, an estimate or a transaction no more gas than one transaction may use, and reads logs up to its head', async () => {
    // An endless loop (JUMPDEST, PUSH1 0, JUMP) with the most gas asked: refused as an Osaka node
    // refuses it (EIP-7825), not run until the process runs out of memory.
    const LOOP = '0x5b600056';
    for (const [method, params] of [
      ['eth_call', [{ data: LOOP, gas: '0xffffffffffffffff' }, 'latest']],
      ['eth_estimateGas', [{ data: LOOP, gas: '0x1000001' }]],
    ] as const) {
      await expect(evm.request(method, params)).rejects.toMatchObject({
        code: -32000,
        message: expect.stringMatching(/^transaction gas limit \(\d+\) is greater than the cap \(16777216\)$/),
      });
    }
    const before = journalRows(db);
    const refused = (await relay()
      .sendTransaction({ to: seller, gas: 16_777_217n })
      .catch((error: unknown) => error)) as { details?: string };
    expect(refused.details).toBe('transaction gas limit (16777217) is greater than the cap (16777216)');
    expect(journalRows(db)).toBe(before);
    // A range past the last block is read to the last block (EDR walked every number in it, for good).
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const all = (await evm.request('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0xffffffffffffffff', address: evm.usdc }])) as unknown[];
    const toHead = (await evm.request('eth_getLogs', [{ fromBlock: '0x0', toBlock: toHex(head), address: evm.usdc }])) as unknown[];
    expect(all.length).toBeGreaterThan(0);
    expect(all).toEqual(toHead);
    expect(await evm.request('eth_getLogs', [{ fromBlock: '0xffffffffffffffff', toBlock: 'latest' }])).toEqual([]);
    // However the number is written: leading zeros past 64 digits, or as EIP-1898's object.
    const zeros = `0x${'0'.repeat(60)}ffffffffffffffff`;
    expect(await evm.request('eth_getLogs', [{ fromBlock: '0x0', toBlock: zeros, address: evm.usdc }])).toEqual(toHead);
    const asObject = { blockNumber: '0xffffffffffffffff' };
    expect(await evm.request('eth_getLogs', [{ fromBlock: '0x0', toBlock: asObject, address: evm.usdc }])).toEqual(toHead);
    expect(await evm.request('eth_getLogs', [{ fromBlock: asObject, toBlock: 'latest' }])).toEqual([]);
  });

  it('is the same chain after the data dir opens again: blocks, hashes, balances, used authorizations', async () => {
    const latest = await client.getBlock();
    const again = await openEmbeddedEvm(db, { now: () => Date.now() });
    const reopened = createPublicClient({ transport: transportOf(again) });
    const replayed = await reopened.getBlock();
    expect([replayed.number, replayed.hash, replayed.stateRoot, replayed.timestamp]).toEqual([
      latest.number,
      latest.hash,
      latest.stateRoot,
      latest.timestamp,
    ]);
    expect(await balanceOf(seller, reopened)).toBe(250_007n);
    expect(await reopened.getBalance({ address: relayer.address })).toBe(await client.getBalance({ address: relayer.address }));
  });

  it('is the same chain after reopening even when the clock turned a second while it was made', async () => {
    // The genesis block's time and the token's deploy were read from the clock apart: a second
    // ticking between them gave the reopened chain another genesis, so other block hashes.
    const ticking = openDb('ticking.db');
    let now = 1_800_000_000_000;
    const chain = await openEmbeddedEvm(ticking, { now: () => (now += 1_000) });
    const first = await createPublicClient({ transport: transportOf(chain) }).getBlock();
    const again = await openEmbeddedEvm(ticking, { now: () => (now += 1_000) });
    const replayed = await createPublicClient({ transport: transportOf(again) }).getBlock();
    expect([replayed.number, replayed.hash]).toEqual([first.number, first.hash]);
    ticking.close();
  });

  it('keeps the chain id it was made with: another asked at genesis is its own, and a reopening asking another keeps it', async () => {
    // Two embedded chains on one machine (a Coffer's, `coffer demo-x402`'s) with one id would take
    // each other's signatures: an agent would sign for a seller whose facilitator cannot settle.
    const own = openDb('own-id.db');
    const chain = await openEmbeddedEvm(own, { now: () => Date.now() }, { chainId: 790_527 });
    expect(chain.chainId).toBe(790_527);
    const on = createPublicClient({ transport: transportOf(chain) });
    expect(await on.getChainId()).toBe(790_527);
    // A signed transaction (EIP-155: the id is in its signature) replays on the reopened chain.
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.sendTestEth(payer.address, parseEther('1'));
    const signed = createWalletClient({
      account: payer,
      transport: transportOf(chain),
      chain: { ...EMBEDDED_EVM_VIEM_CHAIN, id: 790_527 },
    });
    await signed.sendTransaction({ to: seller, value: 1n });
    const latest = await on.getBlock();
    const again = await openEmbeddedEvm(own, { now: () => Date.now() });
    expect(again.chainId).toBe(790_527);
    const replayed = await createPublicClient({ transport: transportOf(again) }).getBlock();
    expect([replayed.number, replayed.hash]).toEqual([latest.number, latest.hash]);
    own.close();
  });

  it('a chain made before its id was kept is the embedded id, whatever a reopening asks', async () => {
    const legacy = openDb('legacy-id.db');
    await openEmbeddedEvm(legacy, { now: () => Date.now() });
    legacy.prepare("DELETE FROM meta WHERE key = 'evm.chainId'").run();
    const again = await openEmbeddedEvm(legacy, { now: () => Date.now() }, { chainId: 790_527 });
    expect(again.chainId).toBe(EMBEDDED_EVM_CHAIN_ID);
    expect(await createPublicClient({ transport: transportOf(again) }).getChainId()).toBe(EMBEDDED_EVM_CHAIN_ID);
    legacy.close();
  });

  it("never gives a block an earlier time than the last one's, whatever the clock says", async () => {
    const other = openDb('clock.db');
    let now = Date.now();
    const chain = await openEmbeddedEvm(other, { now: () => now });
    const on = createPublicClient({ transport: transportOf(chain) });
    await chain.mintTestUsdc(seller, 1n);
    const before = (await on.getBlock()).timestamp;
    now -= 3_600_000;
    await chain.mintTestUsdc(seller, 1n);
    expect((await on.getBlock()).timestamp).toBe(before);
    other.close();
  });
});

describe('the embedded EVM chain killed mid-burst (SIGKILL)', () => {
  it('keeps every transaction it answered for, and its supply is what its blocks say', async () => {
    const file = join(dir, 'killed.db');
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const child = spawn(process.execPath, ['server/cli/run-ts.js', 'test/fixtures/evm-journal-writer.ts', file, wallet], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const answered: Hex[] = [];
    let buffered = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('0x')) answered.push(line as Hex);
      if (answered.length >= 300 && child.exitCode === null) child.kill('SIGKILL');
    });
    expect(await exited).toBe('SIGKILL');
    expect(answered.length).toBeGreaterThanOrEqual(300);

    const db = openDb('killed.db');
    const evm = await openEmbeddedEvm(db, { now: () => Date.now() });
    const client = createPublicClient({ transport: transportOf(evm) });
    for (const hash of answered) expect((await client.getTransactionReceipt({ hash })).status).toBe('success');
    // Mints of 1 each: the wallet holds one per mint block after the token's, and nothing was minted twice.
    const blocks = Number(await client.getBlockNumber());
    const held = await client.readContract({ address: evm.usdc, abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [wallet] });
    expect(held).toBe(BigInt(blocks - 1));
    expect(held).toBeGreaterThanOrEqual(BigInt(answered.length));
    expect(await client.readContract({ address: evm.usdc, abi: TEST_USDC_ABI, functionName: 'totalSupply' })).toBe(held);
    expect(journalRows(db)).toBe(blocks);
    db.close();
  }, 120_000);
});
