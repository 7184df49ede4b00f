/* eslint-disable @typescript-eslint/no-explicit-any -- RPC answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  address,
  appendTransactionMessageInstructions,
  airdropFactory,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  lamports,
  partiallySignTransactionMessageWithSigners,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  signature,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Instruction,
  type TransactionSigner,
} from '@solana/kit';
import {
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { simLedgerOf, startCoffer, fundedAgent, UNLISTED_API, micro, type TestCoffer } from '../helpers/coffer.js';
import { pay } from '../helpers/pay.js';
import { usdcTokenAccount } from '../../server/chain/solana/usdc-transfer.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import type { WalletKeyVault } from '../../server/keys/key-vault.js';
import { request } from 'node:http';
import { connect } from 'node:net';
import { WebSocket } from 'ws';

/**
 * The embedded chain's Solana JSON-RPC at POST /rpc, read and written with @solana/kit's own client,
 * as any Solana program on this machine would.
 */
describe('POST /rpc: the sim chain speaks Solana JSON-RPC', () => {
  let t: TestCoffer;
  let rpc: ReturnType<typeof createSolanaRpc>;
  let treasury: TransactionSigner;
  let mint: ReturnType<typeof address>;
  const raw = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
    }));

  beforeAll(async () => {
    t = await startCoffer({ keepDataDir: true });
    rpc = createSolanaRpc(`${t.url}/rpc`);
    treasury = await (t.coffer.engine.ctx.vault as WalletKeyVault).signer(t.owner);
    mint = address(t.coffer.chain.usdc);
  });
  afterAll(async () => {
    await t.stop();
  });

  /** Stops this Coffer and starts it again on the same data dir; the clients follow it. */
  async function restart() {
    const dataDir = t.dataDir;
    await t.stop();
    t = await startCoffer({ dataDir, keepDataDir: true });
    rpc = createSolanaRpc(`${t.url}/rpc`);
    treasury = await (t.coffer.engine.ctx.vault as WalletKeyVault).signer(t.owner);
  }

  async function signed(feePayer: TransactionSigner, instructions: Instruction[]) {
    const { value: latest } = await rpc.getLatestBlockhash().send();
    return pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => signTransactionMessageWithSigners(m),
    );
  }

  it('answers the cluster questions: genesis, slot, height, epoch, blockhash, rent, health, version', async () => {
    const genesis = await rpc.getGenesisHash().send();
    expect(genesis).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const slot = await rpc.getSlot().send();
    const height = await rpc.getBlockHeight().send();
    const epoch = await rpc.getEpochInfo().send();
    const slotAfter = await rpc.getSlot().send();
    // Its slots follow the clock (a block every 400 ms): one may pass between two reads, so the epoch's
    // answer lies between the reads around it (it failed once under load when compared for equality).
    expect(epoch.slotsInEpoch).toBe(432_000n);
    expect(epoch.absoluteSlot >= slot && epoch.absoluteSlot <= slotAfter, `${slot} <= ${epoch.absoluteSlot} <= ${slotAfter}`).toBe(true);
    expect(
      epoch.blockHeight >= height && epoch.blockHeight <= height + (slotAfter - slot),
      `height ${height}, then ${epoch.blockHeight}`,
    ).toBe(true);
    // The slot's index within its epoch, as a cluster answers it (kit's clients compute with it).
    expect(epoch.slotIndex).toBeLessThan(epoch.slotsInEpoch);
    expect(epoch.epoch * epoch.slotsInEpoch + epoch.slotIndex).toBe(epoch.absoluteSlot);
    const { value: latest } = await rpc.getLatestBlockhash().send();
    expect(latest.lastValidBlockHeight).toBeGreaterThan(height);
    expect((await rpc.isBlockhashValid(latest.blockhash).send()).value).toBe(true);
    expect(await rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2_039_280n);
    expect(await rpc.getHealth().send()).toBe('ok');
    expect((await rpc.getVersion().send())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
    // The genesis hash is the data dir's: it stays across a restart.
    expect(simLedgerOf(t.coffer).genesisHash).toBe(genesis);
  });

  it('reads accounts as base64, base58 and jsonParsed, balances and token balances', async () => {
    const agent = await fundedAgent(t, 'rpc-reader', '2.50');
    const token = await usdcTokenAccount(mint, address(agent.walletAddress));
    const { value: b64 } = await rpc.getAccountInfo(token, { encoding: 'base64' }).send();
    expect(b64?.data[1]).toBe('base64');
    expect(b64?.space).toBe(165n);
    const { value: b58 } = await rpc.getAccountInfo(token, { encoding: 'base58' }).send();
    expect(Buffer.from(b64!.data[0], 'base64').length).toBe(165);
    expect(b58?.data[1]).toBe('base58');
    const { value: parsed } = await rpc.getAccountInfo(token, { encoding: 'jsonParsed' }).send();
    expect((parsed?.data as any).parsed).toMatchObject({
      type: 'account',
      info: {
        mint,
        owner: agent.walletAddress,
        state: 'initialized',
        tokenAmount: { amount: '2500000', decimals: 6, uiAmountString: '2.5' },
      },
    });
    const { value: mintInfo } = await rpc.getAccountInfo(mint, { encoding: 'jsonParsed' }).send();
    expect((mintInfo?.data as any).parsed).toMatchObject({
      type: 'mint',
      info: { decimals: 6, isInitialized: true, freezeAuthority: null },
    });
    expect((await rpc.getTokenAccountBalance(token).send()).value).toMatchObject({ amount: '2500000', decimals: 6, uiAmountString: '2.5' });
    expect((await rpc.getBalance(address(t.owner)).send()).value).toBeGreaterThan(0n);
    const nobody = (await generateKeyPairSigner()).address;
    expect((await rpc.getAccountInfo(nobody, { encoding: 'base64' }).send()).value).toBeNull();
    const { value: many } = await rpc.getMultipleAccounts([token, nobody], { encoding: 'base64' }).send();
    expect(many.map((account) => account === null)).toEqual([false, true]);
    const notToken = await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTokenAccountBalance', params: [t.owner] }));
    expect(notToken.body.error).toMatchObject({ code: -32602 });
  });

  it("finds Coffer's own payments: statuses, the transaction with its token balances, signatures by address", async () => {
    const agent = await fundedAgent(t, 'rpc-payer', '1.00');
    const paid = await pay(t, 'rpc-payer', agent.apiKey, { ...UNLISTED_API, amount: '0.25', nonce: 'rpc-nonce-1' });
    expect(paid.status).toBe(200);
    const sig = signature(paid.body.txSignature);
    const { value: statuses } = await rpc.getSignatureStatuses([sig, signature('1'.repeat(64))]).send();
    expect(statuses[0]).toMatchObject({ err: null, confirmationStatus: 'finalized' });
    expect(statuses[1]).toBeNull();

    const found = await rpc.getTransaction(sig, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
    expect(found?.meta?.err).toBeNull();
    const fromToken = await usdcTokenAccount(mint, address(agent.walletAddress));
    const keys = found!.meta!.preTokenBalances!.map((b) => b.accountIndex);
    expect(keys.length).toBeGreaterThan(0);
    const before = found!.meta!.preTokenBalances!.find((b) => b.owner === agent.walletAddress);
    const after = found!.meta!.postTokenBalances!.find((b) => b.owner === agent.walletAddress);
    expect(BigInt(before!.uiTokenAmount.amount) - BigInt(after!.uiTokenAmount.amount)).toBe(micro('0.25'));
    expect(found!.meta!.logMessages!.join('\n')).toMatch(/rpc-nonce-1/);

    const asJson = await rpc.getTransaction(sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(asJson?.transaction.signatures[0]).toBe(paid.body.txSignature);
    expect(asJson?.transaction.message.accountKeys).toContain(fromToken);

    const listed = await rpc.getSignaturesForAddress(fromToken, { limit: 10 }).send();
    expect(listed[0]).toMatchObject({ signature: paid.body.txSignature, err: null, confirmationStatus: 'finalized' });
    // Newest first, with before/until paging.
    expect(listed.map((entry) => entry.signature)).toContain(paid.body.txSignature);
    const older = await rpc.getSignaturesForAddress(fromToken, { before: sig, limit: 10 }).send();
    expect(older.map((entry) => entry.signature)).not.toContain(paid.body.txSignature);
    expect(older.length).toBe(listed.length - 1);
    // Without maxSupportedTransactionVersion a v0 transaction is refused, as by a node.
    const legacyOnly = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getTransaction', params: [paid.body.txSignature, { encoding: 'base64' }] }),
    );
    expect(legacyOnly.body.error.code).toBe(-32015);
  });

  it('simulates and sends transactions signed elsewhere; preflight refuses what would fail, and nothing moves', async () => {
    const outsider = (await generateKeyPairSigner()).address;
    const from = await usdcTokenAccount(mint, address(t.owner));
    const to = await usdcTokenAccount(mint, outsider);
    const balanceBefore = (await rpc.getTokenAccountBalance(from).send()).value.amount;
    const move = (amount: bigint) => [
      getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata: to, owner: outsider, mint }),
      getTransferCheckedInstruction({ source: from, mint, destination: to, authority: treasury, amount, decimals: 6 }),
    ];

    const tooMuch = await signed(treasury, move(10n ** 15n));
    const simulation = await rpc
      .simulateTransaction(getBase64EncodedWireTransaction(tooMuch), { encoding: 'base64', sigVerify: true })
      .send();
    expect(simulation.value.err).toEqual({ InstructionError: [1n, { Custom: 1n }] });
    expect(simulation.value.logs?.join('\n')).toMatch(/insufficient funds/i);
    const refused = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(tooMuch), { encoding: 'base64' })
      .send()
      .catch((e) => e);
    expect(isSolanaError(refused, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    expect((await rpc.getSignatureStatuses([getSignatureFromTransaction(tooMuch)]).send()).value[0]).toBeNull();
    expect((await rpc.getTokenAccountBalance(from).send()).value.amount).toBe(balanceBefore);

    const ok = await signed(treasury, move(123_456n));
    const sent = await rpc.sendTransaction(getBase64EncodedWireTransaction(ok), { encoding: 'base64' }).send();
    expect(sent).toBe(getSignatureFromTransaction(ok));
    expect((await rpc.getTokenAccountBalance(to).send()).value.amount).toBe('123456');
    expect((await rpc.getSignatureStatuses([sent]).send()).value[0]?.err).toBeNull();
    // The same bytes again do not land twice.
    await rpc.sendTransaction(getBase64EncodedWireTransaction(ok), { encoding: 'base64', skipPreflight: true }).send();
    expect((await rpc.getTokenAccountBalance(to).send()).value.amount).toBe('123456');
  });

  it("speaks RPC subscriptions at ws://…/rpc: kit's sendAndConfirmTransactionFactory confirms a transfer, an account watcher sees it; a foreign Host is refused", async () => {
    const rpcSubscriptions = createSolanaRpcSubscriptions(`${t.url.replace('http://', 'ws://')}/rpc`);
    const outsider = (await generateKeyPairSigner()).address;
    const from = await usdcTokenAccount(mint, address(t.owner));
    const to = await usdcTokenAccount(mint, outsider);
    // An account watcher on the owner's USDC account, opened before the transfer.
    const watching = new AbortController();
    const notifications = await rpcSubscriptions
      .accountNotifications(from, { encoding: 'jsonParsed' })
      .subscribe({ abortSignal: watching.signal });
    const seen = (async () => {
      for await (const notification of notifications) return notification;
      return null;
    })();
    const transfer = await signed(treasury, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata: to, owner: outsider, mint }),
      getTransferCheckedInstruction({ source: from, mint, destination: to, authority: treasury, amount: 4_321n, decimals: 6 }),
    ]);
    await sendAndConfirmTransactionFactory({ rpc: createSolanaRpc(`${t.url}/rpc`), rpcSubscriptions })(transfer as never, {
      commitment: 'confirmed',
    });
    expect((await rpc.getTokenAccountBalance(to).send()).value.amount).toBe('4321');
    const changed = (await seen) as any;
    watching.abort();
    expect(changed?.value?.data?.parsed?.info?.owner).toBe(t.owner);
    // Slots are notified as transactions land.
    const slots = new AbortController();
    const slotStream = await rpcSubscriptions.slotNotifications().subscribe({ abortSignal: slots.signal });
    const nextSlot = (async () => {
      for await (const slot of slotStream) return slot;
      return null;
    })();
    await rpc
      .sendTransaction(
        getBase64EncodedWireTransaction(
          await signed(treasury, [
            getTransferCheckedInstruction({ source: from, mint, destination: to, authority: treasury, amount: 1n, decimals: 6 }),
          ]),
        ),
        { encoding: 'base64' },
      )
      .send();
    expect((await nextSlot)?.slot).toBe(await rpc.getSlot().send());
    slots.abort();
    // The WebSocket stands behind the loopback guard, as POST /rpc does.
    const refused = await new Promise<number>((resolve) => {
      const upgrade = request(`${t.url}/rpc`, {
        headers: {
          host: 'evil.example',
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      upgrade.on('response', (response) => resolve(response.statusCode ?? 0));
      upgrade.on('upgrade', () => resolve(101));
      upgrade.end();
    });
    expect(refused).toBe(403);
  });

  it('an upgrade it refuses is answered in JSON, and its client resetting after leaves the server up (helper 187: it exited)', async () => {
    const port = Number(new URL(t.url).port);
    for (const [path, host, status, code] of [
      ['/v1/health', `127.0.0.1:${port}`, 404, 'not_found'],
      ['/rpc', 'evil.example', 403, 'bad_host'],
    ] as const) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`),
        );
        socket.once('data', (chunk) => {
          socket.resetAndDestroy();
          resolve(chunk.toString('utf8'));
        });
        socket.on('error', reject);
      });
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(JSON.parse(body)).toMatchObject({ code });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fetch(`${t.url}/v1/health`)).status).toBe(200);
    }
  });

  it('a request pipelined before an upgrade it refuses is answered first (helper 194: a key replaced, its answer lost)', async () => {
    const port = Number(new URL(t.url).port);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n` +
            `GET /v1/x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`,
        ),
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const health = answer.indexOf('HTTP/1.1 200 ');
    const refused = answer.indexOf('HTTP/1.1 404 ');
    expect(health).toBe(0);
    expect(refused).toBeGreaterThan(health);
    expect(answer.slice(refused)).toContain('only /rpc is one');
  });

  it("finds token accounts as a cluster's indexes do: by owner (and mint), by program with filters; a mint's supply; priority fees", async () => {
    const agent = await fundedAgent(t, 'rpc-owner', '0.75');
    const wallet = address(agent.walletAddress);
    const token = await usdcTokenAccount(mint, wallet);
    const byOwner = await rpc.getTokenAccountsByOwner(wallet, { mint }, { encoding: 'jsonParsed' }).send();
    expect(byOwner.value.map((entry) => entry.pubkey)).toEqual([token]);
    expect((byOwner.value[0]!.account.data as any).parsed.info).toMatchObject({
      owner: agent.walletAddress,
      mint,
      tokenAmount: { amount: '750000', decimals: 6 },
    });
    const byProgram = await rpc
      .getTokenAccountsByOwner(wallet, { programId: address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') })
      .send();
    expect(byProgram.value.map((entry) => entry.pubkey)).toEqual([token]);
    const stranger = address((await generateKeyPairSigner()).address);
    expect((await rpc.getTokenAccountsByOwner(stranger, { mint }).send()).value).toEqual([]);

    const filtered = await rpc
      .getProgramAccounts(address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'), {
        encoding: 'base64',
        filters: [{ dataSize: 165n }, { memcmp: { offset: 32n, bytes: agent.walletAddress as never, encoding: 'base58' } }],
      })
      .send();
    expect(filtered.map((entry) => entry.pubkey)).toEqual([token]);
    const mints = await rpc
      .getProgramAccounts(address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'), { encoding: 'base64', filters: [{ dataSize: 82n }] })
      .send();
    expect(mints.map((entry) => entry.pubkey)).toContain(mint);

    const supply = await rpc.getTokenSupply(mint).send();
    expect(supply.value.decimals).toBe(6);
    expect(BigInt(supply.value.amount)).toBeGreaterThanOrEqual(750_000n);
    // The newest slot as it answers, read between two slot reads: a slot may pass meanwhile (CI: 1007 then 1008).
    const feesFrom = await rpc.getSlot().send();
    const fees = await rpc.getRecentPrioritizationFees().send();
    const feesTo = await rpc.getSlot().send();
    expect(fees).toHaveLength(1);
    expect(fees[0]!.prioritizationFee).toBe(0n);
    expect([feesFrom <= fees[0]!.slot, fees[0]!.slot <= feesTo]).toEqual([true, true]);

    const bad = await raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getProgramAccounts',
        params: [mint, { filters: [{ memcmp: { offset: 0, bytes: '0OIl' } }] }],
      }),
    );
    expect(bad.body.error.code).toBe(-32602);
    const notToken = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'getTokenAccountsByOwner', params: [agent.walletAddress, { programId: mint }] }),
    );
    expect(notToken.body.error).toMatchObject({ code: -32602, message: 'Invalid param: unrecognized Token program id' });
    const notMint = await raw(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'getTokenSupply', params: [agent.walletAddress] }));
    expect(notMint.body.error).toMatchObject({ code: -32602, message: 'Invalid param: not a Token mint' });
  });

  it("gives test SOL on request as a cluster's faucet does: kit's airdropFactory waits for a real transaction", async () => {
    const rpcSubscriptions = createSolanaRpcSubscriptions(`${t.url.replace('http://', 'ws://')}/rpc`);
    const wallet = address((await generateKeyPairSigner()).address);
    const signature = await airdropFactory({ rpc: createSolanaRpc(`${t.url}/rpc`), rpcSubscriptions })({
      recipientAddress: wallet,
      lamports: lamports(2_000_000_000n),
      commitment: 'confirmed',
    });
    expect((await rpc.getBalance(wallet).send()).value).toBe(2_000_000_000n);
    // The same request again at once (the same block): a second transaction, not the first again.
    const again = await airdropFactory({ rpc: createSolanaRpc(`${t.url}/rpc`), rpcSubscriptions })({
      recipientAddress: wallet,
      lamports: lamports(2_000_000_000n),
      commitment: 'confirmed',
    });
    expect(again).not.toBe(signature);
    expect((await rpc.getBalance(wallet).send()).value).toBe(4_000_000_000n);
    const landed = await rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(landed?.meta?.err).toBeNull();
    expect((await rpc.getSignaturesForAddress(wallet).send()).map((entry) => entry.signature)).toEqual([again, signature]);
    const greedy = await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: [wallet, 2_000_000_000_000] }));
    expect(greedy.body.error.code).toBe(-32602);
    expect((await rpc.getBalance(wallet).send()).value).toBe(4_000_000_000n);
  });

  it('reads a transaction as jsonParsed, as explorers and wallets ask: its accounts and its known instructions parsed', async () => {
    const agent = await fundedAgent(t, 'rpc-parsed', '1.00');
    const paid = await pay(t, 'rpc-parsed', agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
    expect(paid.status).toBe(200);
    const read = (await rpc
      .getTransaction(signature(paid.body.txSignature), { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 })
      .send()) as any;
    const { accountKeys, instructions } = read.transaction.message;
    expect(accountKeys[0]).toEqual({ pubkey: t.owner, signer: true, source: 'transaction', writable: true });
    expect(accountKeys).toContainEqual({ pubkey: agent.walletAddress, signer: true, source: 'transaction', writable: false });
    expect(instructions).toContainEqual({
      program: 'spl-token',
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      parsed: {
        type: 'transferChecked',
        info: {
          source: await usdcTokenAccount(mint, address(agent.walletAddress)),
          mint,
          destination: await usdcTokenAccount(mint, address(UNLISTED_API.recipient)),
          authority: agent.walletAddress,
          tokenAmount: { amount: '100000', decimals: 6n, uiAmount: 0.1, uiAmountString: '0.1' },
        },
      },
      stackHeight: null,
    });
    expect(instructions).toContainEqual(expect.objectContaining({ program: 'spl-memo', parsed: paid.body.memo }));
    expect(read.meta.err).toBeNull();
  });

  it('simulates a transaction whose fee payer has not signed yet only without sigVerify, and never sends it', async () => {
    const outsider = (await generateKeyPairSigner()).address;
    const from = await usdcTokenAccount(mint, address(t.owner));
    const to = await usdcTokenAccount(mint, outsider);
    const feePayer = await generateKeyPairSigner();
    const { value: latest } = await rpc.getLatestBlockhash().send();
    const partial = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(feePayer.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstructions(
          [getTransferCheckedInstruction({ source: from, mint, destination: to, authority: treasury, amount: 1n, decimals: 6 })],
          m,
        ),
      (m) => partiallySignTransactionMessageWithSigners(m),
    );
    const wire = getBase64EncodedWireTransaction(partial);
    // The fee payer holds no SOL here: the simulation runs and says so, as a node's would.
    const simulated = await rpc.simulateTransaction(wire, { encoding: 'base64', sigVerify: false }).send();
    expect(simulated.value.err).not.toBeNull();
    const unsigned = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] }),
    );
    expect(unsigned.body.error.code).toBe(-32003);
    const verified = await raw(
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'simulateTransaction', params: [wire, { encoding: 'base64', sigVerify: true }] }),
    );
    expect(verified.body.error.code).toBe(-32003);
  });

  it('prices messages, slices account data, and refuses a transaction it already landed, as a node does', async () => {
    const outsider = (await generateKeyPairSigner()).address;
    const from = await usdcTokenAccount(mint, address(t.owner));
    const to = await usdcTokenAccount(mint, outsider);
    const ok = await signed(treasury, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata: to, owner: outsider, mint }),
      getTransferCheckedInstruction({ source: from, mint, destination: to, authority: treasury, amount: 7n, decimals: 6 }),
    ]);
    const message = Buffer.from(ok.messageBytes).toString('base64');
    expect((await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getFeeForMessage', params: [message] }))).body.result.value).toBe(
      5000,
    );
    await rpc.sendTransaction(getBase64EncodedWireTransaction(ok), { encoding: 'base64' }).send();
    const again = await raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'sendTransaction',
        params: [getBase64EncodedWireTransaction(ok), { encoding: 'base64' }],
      }),
    );
    expect(again.body.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
    const { value: sliced } = await rpc.getAccountInfo(to, { encoding: 'base64', dataSlice: { offset: 64, length: 8 } }).send();
    expect(Buffer.from(sliced!.data[0], 'base64')).toEqual(Buffer.from([7, 0, 0, 0, 0, 0, 0, 0]));
    const parsedTx = await raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'getTransaction',
        params: [getSignatureFromTransaction(ok), { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }],
      }),
    );
    // jsonParsed is answered (it used to be refused): the transfer it holds, parsed.
    expect(parsedTx.body.result.transaction.message.instructions.map((entry: any) => entry.parsed?.type)).toContain('transferChecked');
    const big = await raw(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'getSlot', params: ['x'.repeat(300_000)] }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe(-32600);
  });

  it('answers bad requests with JSON-RPC errors, batches, and stays behind the loopback guard', async () => {
    expect((await raw('{not json')).body.error.code).toBe(-32700);
    expect((await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getNothing' }))).body.error).toMatchObject({ code: -32601 });
    expect((await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: ['not-an-address'] }))).body.error.code).toBe(
      -32602,
    );
    expect(
      (await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['@@@', { encoding: 'base64' }] }))).body.error
        .code,
    ).toBe(-32602);
    expect((await raw(JSON.stringify({ id: 1, method: 'getSlot' }))).body.error.code).toBe(-32600);
    expect((await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'constructor' }))).body.error.code).toBe(-32601);
    const batch = await raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'getSlot' },
        { jsonrpc: '2.0', id: 'b', method: 'getBlockHeight' },
      ]),
    );
    expect(batch.body.map((entry: any) => entry.id)).toEqual(['a', 'b']);
    expect(typeof batch.body[0].result).toBe('number');
    // fetch cannot set Host: a DNS-rebinding page's request is played with node:http.
    const rebound = await new Promise<number>((resolve, reject) => {
      const sent = request(`${t.url}/rpc`, { method: 'POST', headers: { host: `evil.example:${t.server.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      sent.on('error', reject);
      sent.end('{"jsonrpc":"2.0","id":1,"method":"getSlot"}');
    });
    expect(rebound).toBe(403);
    const crossSite = await fetch(`${t.url}/rpc`, { method: 'POST', headers: { origin: 'https://evil.example' }, body: '{}' });
    expect(crossSite.status).toBe(403);
  });

  it('an account closed by a transaction stays closed after a restart', async () => {
    const outsider = await generateKeyPairSigner();
    const ata = await usdcTokenAccount(mint, outsider.address);
    await rpc
      .sendTransaction(
        getBase64EncodedWireTransaction(
          await signed(treasury, [getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata, owner: outsider.address, mint })]),
        ),
        { encoding: 'base64' },
      )
      .send();
    expect((await rpc.getAccountInfo(ata, { encoding: 'base64' }).send()).value).not.toBeNull();
    const close = getCloseAccountInstruction({ account: ata, destination: treasury.address, owner: outsider });
    await rpc.sendTransaction(getBase64EncodedWireTransaction(await signed(treasury, [close])), { encoding: 'base64' }).send();
    expect((await rpc.getAccountInfo(ata, { encoding: 'base64' }).send()).value).toBeNull();
    await restart();
    expect((await rpc.getAccountInfo(ata, { encoding: 'base64' }).send()).value).toBeNull();
  });

  it('keeps its history across a restart', async () => {
    const agent = await fundedAgent(t, 'rpc-restart', '1.00');
    const paid = await pay(t, 'rpc-restart', agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
    const genesis = await rpc.getGenesisHash().send();
    await restart();
    expect(await rpc.getGenesisHash().send()).toBe(genesis);
    const found = await rpc
      .getTransaction(signature(paid.body.txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0 })
      .send();
    expect(found?.meta?.err).toBeNull();
    const token = await usdcTokenAccount(mint, address(agent.walletAddress));
    expect((await rpc.getSignaturesForAddress(token).send())[0]?.signature).toBe(paid.body.txSignature);
  });

  it('never goes back a slot, across a restart too: slots follow the clock, as on a cluster', async () => {
    const agent = await fundedAgent(t, 'rpc-slots', '1.00');
    const slotOf = async (txSignature: string) =>
      (await rpc.getTransaction(signature(txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send())!.slot;
    const first = await pay(t, 'rpc-slots', agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
    const second = await pay(t, 'rpc-slots', agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
    const landed = await slotOf(second.body.txSignature);
    expect(landed).toBeGreaterThanOrEqual(await slotOf(first.body.txSignature));
    // getSlot names the last block made; a transaction just landed is in the one being made.
    const made = await rpc.getSlot().send();
    expect(made).toBeGreaterThanOrEqual(landed - 1n);
    await restart();
    expect(await rpc.getSlot().send()).toBeGreaterThanOrEqual(made);
    const third = await pay(t, 'rpc-slots', agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
    expect(await slotOf(third.body.txSignature)).toBeGreaterThanOrEqual(landed);
    const epoch = await rpc.getEpochInfo().send();
    expect(epoch.absoluteSlot).toBeGreaterThanOrEqual(made);
  });

  it("makes a block every slot, as a cluster does: getBlock gives a payment's block, chained by blockhash and height; a slot not over yet, or before the chain, is a node's error", async () => {
    const slotPast = async (past: bigint) => {
      while ((await rpc.getSlot().send()) <= past) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    // The chain keeps its blocks from its first slot on: a few slots later, a block has ancestors.
    const first = await rpc.getFirstAvailableBlock().send();
    await slotPast(first + 3n);
    const agent = await fundedAgent(t, 'rpc-blocks', '1.00');
    const paid = await pay(t, 'rpc-blocks', agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
    const txSignature = paid.body.txSignature as string;
    const found = (await rpc.getTransaction(signature(txSignature), { encoding: 'json', maxSupportedTransactionVersion: 0 }).send())!;
    const { slot } = found;
    // A node gives a block once its slot is over (a slot is 400 ms).
    await slotPast(slot);

    const block = await rpc.getBlock(slot, { maxSupportedTransactionVersion: 0 }).send();
    const inBlock = block!.transactions.find((entry) => entry.transaction.signatures[0] === txSignature)!;
    expect(inBlock.transaction).toEqual(found.transaction);
    expect(inBlock.meta).toEqual(found.meta);
    expect(inBlock.version).toBe(0);
    expect(block!.blockTime).toBe(found.blockTime);
    expect(block!.parentSlot).toBe(slot - 1n);
    expect(block!.rewards).toEqual([]);
    expect(block!.blockHeight).toBeLessThan(await rpc.getBlockHeight().send());
    // Each block names its parent's blockhash, one height below.
    const parent = (await rpc.getBlock(slot - 1n, { transactionDetails: 'none', rewards: false }).send())!;
    expect(parent).toEqual({
      blockHeight: block!.blockHeight! - 1n,
      blockTime: expect.any(BigInt),
      blockhash: block!.previousBlockhash,
      parentSlot: slot - 2n,
      previousBlockhash: expect.any(String),
    });
    // The payment was signed with the blockhash of its own block or one just before.
    const recent = await Promise.all(
      [0n, 1n, 2n].map(async (back) => (await rpc.getBlock(slot - back, { transactionDetails: 'none' }).send())!.blockhash),
    );
    expect(recent).toContain(found.transaction.message.recentBlockhash);

    // A recent block's blockhash read from getBlock is as good as the latest for its 150 blocks.
    const outsider = await generateKeyPairSigner();
    const ata = await usdcTokenAccount(mint, outsider.address);
    const withParentHash = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(treasury, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash: parent.blockhash, lastValidBlockHeight: parent.blockHeight! + 150n }, m),
      (m) =>
        appendTransactionMessageInstructions(
          [getCreateAssociatedTokenIdempotentInstruction({ payer: treasury, ata, owner: outsider.address, mint })],
          m,
        ),
      (m) => signTransactionMessageWithSigners(m),
    );
    await rpc.sendTransaction(getBase64EncodedWireTransaction(withParentHash), { encoding: 'base64' }).send();
    expect((await rpc.getAccountInfo(ata, { encoding: 'base64' }).send()).value).not.toBeNull();

    // The other details and encodings, as kit asks them.
    expect((await rpc.getBlock(slot, { transactionDetails: 'signatures' }).send())!.signatures).toContain(txSignature);
    const accounts = await rpc.getBlock(slot, { transactionDetails: 'accounts', maxSupportedTransactionVersion: 0 }).send();
    const keys = accounts!.transactions.find((entry) => entry.transaction.signatures[0] === txSignature)!;
    expect(keys.transaction.accountKeys).toEqual(
      expect.arrayContaining([{ pubkey: agent.walletAddress, signer: true, source: 'transaction', writable: false }]),
    );
    expect(keys.meta).toEqual(
      expect.objectContaining({ err: null, fee: found.meta!.fee, postTokenBalances: found.meta!.postTokenBalances }),
    );
    const base64 = await rpc.getBlock(slot, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
    const wire = (await rpc.getTransaction(signature(txSignature), { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send())!;
    expect(base64!.transactions.map((entry) => entry.transaction)).toContainEqual(wire.transaction);
    expect(await rpc.getBlockTime(slot).send()).toBe(found.blockTime);
    expect(await rpc.getBlocks(slot - 2n, slot).send()).toEqual([slot - 2n, slot - 1n, slot]);
    // With no end: every block made from the start on (kit sends the end as null, then its config).
    expect((await rpc.getBlocks(slot - 2n).send()).slice(0, 3)).toEqual([slot - 2n, slot - 1n, slot]);
    // getSlot names a block made, there to read (as a node's answer at `confirmed`).
    expect((await rpc.getBlock(await rpc.getSlot().send(), { transactionDetails: 'none' }).send())!.blockHeight).toBe(
      await rpc.getBlockHeight().send(),
    );
    await slotPast(slot + 1n);
    expect(await rpc.getBlocksWithLimit(slot, 2).send()).toEqual([slot, slot + 1n]);
    expect(await rpc.getFirstAvailableBlock().send()).toBe(first);

    // What a node refuses: a v0 transaction to a client that did not say it reads them, a slot not
    // over yet, one before the chain kept blocks, and `processed` (a block is given once confirmed).
    const codeOf = (request: { send(): Promise<unknown> }) =>
      request.send().then(
        () => null,
        (error: unknown) => (isSolanaError(error) ? ((error.context as { __code?: number }).__code ?? error.message) : String(error)),
      );
    expect(await codeOf(rpc.getBlock(slot))).toBe(-32015);
    expect(await codeOf(rpc.getBlock((await rpc.getSlot().send()) + 10n))).toBe(-32004);
    expect(await codeOf(rpc.getBlockTime((await rpc.getSlot().send()) + 10n))).toBe(-32004);
    expect(await codeOf(rpc.getBlock(first - 1n))).toBe(-32009);
    expect(
      await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBlock', params: [Number(slot), { commitment: 'processed' }] })),
    ).toMatchObject({
      body: { error: { code: -32602 } },
    });
  });

  it('lists a transaction under every account it names, read-only ones too, not under the programs it calls', async () => {
    const agent = await fundedAgent(t, 'rpc-listed', '1.00');
    // The allocation names the agent's wallet read-only (the owner of the USDC account it opens).
    const wallet = address(agent.walletAddress);
    const allocations = (await rpc.getSignaturesForAddress(wallet, { limit: 10 }).send()).map((entry) => entry.signature);
    expect(allocations).toHaveLength(1);
    expect(
      (await rpc.getTransaction(allocations[0]!, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send())?.meta?.postTokenBalances,
    ).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ owner: agent.walletAddress, uiTokenAmount: expect.objectContaining({ uiAmountString: '1' }) }),
      ]),
    );
    const paid = await pay(t, 'rpc-listed', agent.apiKey, { ...UNLISTED_API, amount: '0.10' });
    expect(paid.status).toBe(200);
    const latest = async (key: string) => (await rpc.getSignaturesForAddress(address(key), { limit: 1 }).send())[0]?.signature ?? null;
    for (const key of [agent.walletAddress, t.owner, await usdcTokenAccount(mint, wallet), mint]) {
      expect(await latest(key)).toBe(paid.body.txSignature);
    }
    for (const key of ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr']) {
      expect(await latest(key)).not.toBe(paid.body.txSignature);
    }
  });
});

describe('POST /rpc exists only on the sim chain', () => {
  it('is not served on an RPC network', async () => {
    const cluster = await new TestCluster().start();
    const t = await startCoffer({ network: cluster.url, usdcMint: cluster.mint.address });
    try {
      const response = await fetch(`${t.url}/rpc`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }) });
      expect(response.status).toBe(404);
    } finally {
      await t.stop();
      await cluster.stop();
    }
  });
});

describe('RPC subscriptions and the end of coffer serve', () => {
  it('an open subscription does not hold the server up: stop() ends it and resolves', async () => {
    const t = await startCoffer();
    const socket = new WebSocket(`${t.url.replace('http://', 'ws://')}/rpc`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' }));
    const answered = await new Promise<any>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));
    expect(answered).toEqual({ jsonrpc: '2.0', id: 1, result: 0 });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const stopped = await Promise.race([
      t.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000)),
    ]);
    expect(stopped).toBe('stopped');
    await closed;
  });
});
