import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { custom, getAddress, http, parseEventLogs, parseSignature, type Address } from 'viem';
import type { CofferError } from '../../server/wire/errors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { migrate } from '../../server/store/migrations.js';
import { createFileBackend } from '../../server/keys/file-backend.js';
import { createKeyVault, type WalletKeyVault } from '../../server/keys/key-vault.js';
import { openEmbeddedEvm, type EmbeddedEvm } from '../../server/chain/evm/sim/chain.js';
import { openEvmTestFunds } from '../../server/chain/evm/sim/test-funds.js';
import { AUTHORIZATION_SECONDS, EvmChain } from '../../server/chain/evm/chain.js';
import { decodeAuthorization, isSignedByPayer } from '../../server/chain/evm/authorization.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { expectCofferError } from '../helpers/expect-error.js';
import { manualClock } from '../helpers/coffer.js';
import type { Clock } from '../../server/core/ports/keys.js';

/**
 * The EVM rail's Chain adapter on the embedded EVM chain: a transfer is the payer's EIP-3009
 * authorization, sent by the relayer, landing once at most; what the chain says of it settles it.
 */
const dir = mkdtempSync(join(tmpdir(), 'coffer-evm-chain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the EVM rail on the embedded chain', () => {
  const clock = manualClock();
  let evm: EmbeddedEvm;
  let chain: EvmChain;
  let vault: WalletKeyVault;
  let owner: string;
  let treasury: Address;
  let agent: Address;
  let reference = 0;
  /** A move's terms, named by a record of its own; signed by `through` (the test's chain unless told). */
  const prepare = (from: Address, to: Address, amount: bigint, through = chain) =>
    through.prepareTransfer({
      from,
      to,
      amount,
      memo: '',
      reference: `ref-${++reference}`,
      feePayer: treasury,
      createRecipientAccount: true,
    });
  type NodeRequest = (args: { method: string; params?: unknown }) => Promise<unknown>;
  const toNode: NodeRequest = ({ method, params }) => evm.request(method, params as unknown[]);
  /** Another adapter over the embedded node, through a test's stand-in (`request`): this chain's id and clock unless told. */
  const chainThrough = (request: NodeRequest = toNode, options: { chainId?: number; clock?: Clock } = {}) =>
    new EvmChain(
      { name: 'sim', chainId: options.chainId ?? 790_526, usdc: evm.usdc, isSim: true },
      custom({ request }, { retryCount: 0 }),
      vault,
      options.clock ?? clock,
      null,
    );
  const nonceOf = (address: Address) => evm.request('eth_getTransactionCount', [address, 'latest']).then((n) => BigInt(n as string));

  beforeAll(async () => {
    const db = openConnection(join(dir, 'coffer.db'));
    migrate(db);
    vault = createKeyVault(createFileBackend(join(dir, 'keys')));
    evm = await openEmbeddedEvm(db, clock);
    const funds = await openEvmTestFunds(evm, db, vault);
    chain = new EvmChain(
      { name: 'sim', chainId: 790_526, usdc: evm.usdc, isSim: true },
      custom({ request: ({ method, params }) => evm.request(method, params as unknown[]) }, { retryCount: 0 }),
      vault,
      clock,
      funds,
    );
    owner = await vault.createWallet({ kind: 'treasury' });
    treasury = getAddress(await vault.evmWalletOf(owner, owner));
    agent = getAddress(await vault.evmWalletOf(await vault.createWallet({ kind: 'agent', treasury: owner }), owner));
    await chain.prepareFeePayer(treasury);
    await chain.submitTransfer(await chain.prepareTestMint(treasury, 100_000_000n));
  });

  it('signs an authorization of exactly what was asked, by the payer, for this token and chain, ending in 10 minutes', async () => {
    const prepared = await prepare(treasury, agent, 1_500_000n);
    const authorization = decodeAuthorization(prepared.txWire);
    expect(authorization).toMatchObject({ from: treasury, to: agent, value: 1_500_000n, relayer: treasury, validAfter: 0n });
    expect(authorization.domain).toEqual({ name: 'USDC', version: '2', chainId: 790_526, verifyingContract: evm.usdc });
    expect(authorization.validBefore).toBe(BigInt(Math.floor(clock.now() / 1000)) + AUTHORIZATION_SECONDS);
    expect(prepared.txSignature).toBe(authorization.nonce);
    expect(await isSignedByPayer(authorization)).toBe(true);
    expect(await isSignedByPayer({ ...authorization, value: 1_500_001n })).toBe(false);
  });

  it('signs nothing under a chain id the token does not sign under', async () => {
    // A node of another chain than configured: every authorization signed for it would revert there.
    const elsewhere = chainThrough(toNode, { chainId: 790_527 });
    await expectCofferError(prepare(treasury, agent, 1n, elsewhere), 'chain_unavailable');
    await expectCofferError(elsewhere.domain(), 'chain_unavailable');
  });

  it('lands a transfer once, however often it is sent, and says where it landed', async () => {
    const prepared = await prepare(treasury, agent, 2_000_000n);
    expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
    const landed = await chain.submitTransfer(prepared);
    expect(landed).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.usdcBalance(agent)).toBe(2_000_000n);
    // Sent again by reconciliation: its simulation says it ran already, so nothing is sent.
    const relayerNonce = await nonceOf(treasury);
    await chain.resend(prepared);
    expect(await nonceOf(treasury)).toBe(relayerNonce);
    // Sent as new (which Coffer never does: a first send's simulation cannot see that it ran): its
    // transaction reverts, and the same landing is answered. Nothing moves either way.
    expect(await chain.submitTransfer(prepared)).toBe(landed);
    expect(await chain.usdcBalance(agent)).toBe(2_000_000n);
    expect(await chain.fateOf(prepared)).toEqual({ state: 'succeeded', landedAs: landed });
    const found = await chain.findTransfer(landed as string);
    expect(found).toMatchObject({ succeeded: true, from: treasury, to: agent, amount: 2_000_000n, mint: evm.usdc });
  });

  it('refuses a payer short of USDC before any gas is spent, as insufficient_funds', async () => {
    const relayerNonce = await nonceOf(treasury);
    const prepared = await prepare(agent, treasury, 999_000_000n);
    await expectCofferError(chain.submitTransfer(prepared), 'insufficient_funds');
    expect(await nonceOf(treasury)).toBe(relayerNonce);
    expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
  });

  it('refuses a payer short of USDC without showing the node its signed authorization', async () => {
    // A refusal as it is sent fails the row at once, so the authorization must not have left Coffer:
    // a node that kept what it was asked could run it after a top-up, within its 10 minutes, and move
    // money the ledger says failed (a retry under a new record would then pay twice).
    const heard: { method: string; params: unknown }[] = [];
    const recording = chainThrough((args) => {
      heard.push({ method: args.method, params: args.params });
      return toNode(args);
    });
    const prepared = await prepare(agent, treasury, 999_000_000n);
    const { r, s } = parseSignature(decodeAuthorization(prepared.txWire).signature);
    await expectCofferError(recording.submitTransfer(prepared), 'insufficient_funds');
    expect(heard.map((each) => each.method)).toContain('eth_call');
    const said = JSON.stringify(heard).toLowerCase();
    expect(said).not.toContain(r.slice(2).toLowerCase());
    expect(said).not.toContain(s.slice(2).toLowerCase());
    expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
  });

  it('an authorization never sent is dropped once the chain passes its end, and can no longer land', async () => {
    const prepared = await prepare(agent, treasury, 1n);
    clock.advance(Number(AUTHORIZATION_SECONDS) * 1000 + 1000);
    expect(await chain.fateOf(prepared)).toEqual({ state: 'unknown' });
    // The chain's time moves with its next block.
    await chain.submitTransfer(await chain.prepareTestMint(treasury, 1n));
    expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
    await expectCofferError(chain.submitTransfer(prepared), 'transaction_expired');
    expect(await chain.usdcBalance(agent)).toBe(2_000_000n);
  });

  it('a first send that reverts because the chain is past its end, though this clock is not, fails as expired', async () => {
    // Coffer's clock 11 minutes behind the chain's: the authorization it signs has ended there already.
    const behind = manualClock(clock.now() - (Number(AUTHORIZATION_SECONDS) + 60) * 1000);
    const slow = chainThrough(toNode, { clock: behind });
    const balance = await chain.usdcBalance(agent);
    const prepared = await prepare(agent, treasury, 1n, slow);
    await expectCofferError(slow.submitTransfer(prepared), 'transaction_expired');
    expect(await chain.fateOf(prepared)).toEqual({ state: 'dropped' });
    expect(await chain.usdcBalance(agent)).toBe(balance);
  });

  it('a transfer that passed its simulation but reverted in its block stays undecided while it can still run', async () => {
    // Two transfers that each fit the payer's funds and not both: simulated together, the one mined
    // second reverts in its block (which one that is, the race decides). Its authorization, public in
    // that transaction, can still run until its end.
    const payer = getAddress(await vault.evmWalletOf(await vault.createWallet({ kind: 'agent', treasury: owner }), treasury));
    await chain.submitTransfer(await chain.prepareTestMint(payer, 1_000_000n));
    const both = [await prepare(payer, treasury, 700_000n), await prepare(payer, treasury, 700_000n)];
    const sent = await Promise.allSettled(both.map((prepared) => chain.submitTransfer(prepared)));
    expect(sent.map((each) => each.status).sort()).toEqual(['fulfilled', 'rejected']);
    const reverted = sent.findIndex((each) => each.status === 'rejected');
    const second = both[reverted]!;
    // Not refused for good: the ledger keeps it pending, as a send whose outcome is not known yet.
    expect((sent[reverted] as PromiseRejectedResult).reason).toMatchObject({ code: 'chain_unavailable' });
    expect(await chain.fateOf(second)).toEqual({ state: 'unknown' });
    // Funds come in, and anyone runs the authorization: it landed, and its fate says so.
    await chain.submitTransfer(await chain.prepareTestMint(payer, 1_000_000n));
    await chain.resend(second);
    expect((await chain.fateOf(second)).state).toBe('succeeded');
    expect(await chain.usdcBalance(payer)).toBe(600_000n);
  });

  it('an authorization found used before its log is indexed stays undecided: it moved money somewhere', async () => {
    // A node whose log index lags its state (load-balanced RPCs do): the token says the authorization
    // ran, and no AuthorizationUsed log is found yet.
    let logsLag = true;
    const lagging = chainThrough((args) => (logsLag && args.method === 'eth_getLogs' ? Promise.resolve([]) : toNode(args)));
    const prepared = await prepare(treasury, agent, 300_000n);
    const landed = await chain.submitTransfer(prepared);
    // Reconciliation through the lagging node: not failed, since the money moved, and not sent again.
    const relayerNonce = await nonceOf(treasury);
    expect(await lagging.fateOf(prepared)).toEqual({ state: 'unknown' });
    await lagging.resend(prepared);
    expect(await nonceOf(treasury)).toBe(relayerNonce);
    logsLag = false;
    expect(await lagging.fateOf(prepared)).toEqual({ state: 'succeeded', landedAs: landed });
  });

  it('an agent pays without holding ETH: the relayer sends, and the agent sends nothing', async () => {
    const landed = await chain.submitTransfer(await prepare(agent, treasury, 500_000n));
    const receipt = await evm.request('eth_getTransactionReceipt', [landed]);
    expect(getAddress((receipt as { from: string }).from)).toBe(treasury);
    expect(await nonceOf(agent)).toBe(0n);
    expect(BigInt((await evm.request('eth_getBalance', [agent, 'latest'])) as string)).toBe(0n);
    const logs = parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: (receipt as { logs: never[] }).logs });
    expect(logs.map((log) => log.args)).toEqual([{ from: agent, to: treasury, value: 500_000n }]);
  });

  it("reads many wallets' USDC in one call to the node, each the same as read alone", async () => {
    const methods: string[] = [];
    const counted = chainThrough((args) => {
      methods.push(args.method);
      return toNode(args);
    });
    // A dashboard's page of agents (50) on a public RPC: one eth_call, not one an account.
    const strangers = Array.from({ length: 248 }, (_, index) => getAddress(`0x${(index + 1).toString(16).padStart(40, '0')}`));
    const page = [treasury, agent, ...strangers.slice(0, 48), agent];
    const balances = await counted.usdcBalances(page);
    expect(methods.filter((method) => method === 'eth_call')).toHaveLength(1);
    expect(balances.size).toBe(50);
    expect(balances.get(treasury)).toBe(await chain.usdcBalance(treasury));
    expect(balances.get(treasury)).toBeGreaterThan(0n);
    expect(balances.get(agent)).toBe(await chain.usdcBalance(agent));
    // More wallets than one call may create code for (EIP-3860's 48 KB): 100 a call.
    methods.length = 0;
    const many = await counted.usdcBalances([treasury, agent, ...strangers]);
    expect(methods.filter((method) => method === 'eth_call')).toHaveLength(3);
    expect(many.size).toBe(250);
    expect(many.get(treasury)).toBe(balances.get(treasury));
    for (const stranger of strangers) expect(many.get(stranger)).toBe(0n);
    expect(await counted.usdcBalances([])).toEqual(new Map());
  });

  it('reads balances one wallet at a time from a node that refuses a call with creation code; says a node that does not answer in short', async () => {
    const calls: { to: unknown }[] = [];
    const refusing = chainThrough((args) => {
      const call = (args.params as [{ to?: unknown }])[0];
      if (args.method === 'eth_call') calls.push({ to: call.to });
      // A gateway that wants a `to` (its JSON-RPC error, not a revert).
      if (args.method === 'eth_call' && call.to === undefined)
        return Promise.reject(Object.assign(new Error('missing "to"'), { code: -32602 }));
      return toNode(args);
    });
    const expected = new Map([
      [treasury, await chain.usdcBalance(treasury)],
      [agent, await chain.usdcBalance(agent)],
    ]);
    expect(await refusing.usdcBalances([treasury, agent])).toEqual(expected);
    expect(calls.map((call) => call.to === undefined)).toEqual([true, false, false]);
    // Asked one at a time from then on: the refused call is not tried again.
    calls.length = 0;
    expect(await refusing.usdcBalances([treasury, agent])).toEqual(expected);
    expect(calls.every((call) => call.to !== undefined)).toBe(true);

    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const away = new EvmChain(
      { name: 'sim', chainId: 790_526, usdc: evm.usdc, isSim: true },
      http(`http://127.0.0.1:${closed}`, { retryCount: 0 }),
      vault,
      clock,
      null,
    );
    const refusal = await away.usdcBalances([treasury, agent]).catch((error: CofferError) => error);
    expect(refusal).toMatchObject({ code: 'chain_unavailable' });
    expect((refusal as CofferError).message).toMatch(/^the sim node did not answer the USDC balances: /);
    // The call itself (some 28 KB of hex for 100 wallets) stays out of the message, and so of the log.
    expect((refusal as CofferError).message.length).toBeLessThan(300);
  });

  it('finds USDC a wallet received from others, from a cursor on', async () => {
    const outsider = getAddress(await vault.evmWalletOf(await vault.createWallet({ kind: 'random' }), 'nobody'));
    await chain.submitTransfer(await chain.prepareTestMint(outsider, 7_000_000n));
    const first = await chain.incomingTransfers(treasury, null);
    expect(first.transfers.length).toBeGreaterThan(0);
    const hash = await chain.submitTransfer(
      await chain.prepareTransfer({
        from: outsider,
        to: treasury,
        amount: 7_000_000n,
        memo: '',
        reference: 'deposit-1',
        feePayer: treasury,
        createRecipientAccount: false,
      }),
    );
    const next = await chain.incomingTransfers(treasury, first.readUpTo);
    expect(next.transfers).toEqual([
      { txSignature: hash, transferIndex: expect.any(Number), from: outsider, amount: 7_000_000n, blockTime: expect.any(Number) },
    ]);
    // The cursor is the last block read, here the transfer's own (the embedded chain mines one a transaction).
    expect(next.readUpTo).toBe(`block:${(await chain.findTransfer(hash))!.slot}`);
    expect((await chain.incomingTransfers(treasury, next.readUpTo)).transfers).toEqual([]);
    expect(await chain.hasActivity(outsider)).toBe(true);
    expect(await chain.hasActivity(getAddress(await vault.evmWalletOf(await vault.createWallet({ kind: 'random' }), 'nobody')))).toBe(
      false,
    );
  });
});
