/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import type { Server } from 'node:http';
import {
  createPublicClient,
  createWalletClient,
  custom,
  getAddress,
  http,
  parseAbi,
  parseEther,
  parseEventLogs,
  parseSignature,
  type Address,
  type Hash,
} from 'viem';
import { baseSepolia } from 'viem/chains';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { generateKeyPairSigner } from '@solana/kit';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import type { FacilitatorClient } from '@x402/core/server';
import { toClientEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { wrapFetchWithPayment as wrapFetchWithPaymentV1, createSigner } from 'x402-fetch';
import { close, listen } from '../helpers/http-server.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import { usdcOn } from '../helpers/cluster-usdc.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { startBatcher, type X402Authorization } from '../fixtures/multicall3.js';
import { answerOf, startFacilitator } from '../fixtures/x402-peers.js';
import { BASE_SEPOLIA_X402, startEvmFacilitator, type TestEvmFacilitator } from '../fixtures/x402-evm-peers.js';
import { deployAgent, micro, startCoffer, type TestCoffer } from '../helpers/coffer.js';
import { createPaywall, paymentOf } from '../../server/x402/paywall/paywall.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { rpcTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { evmTransferLookup, evmTransferLookupAt, type EvmTransferLookup } from '../../server/chain/evm/transfer-lookup.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { TRANSFER_AUTHORIZATION_TYPES } from '../../server/chain/evm/authorization.js';
import { carriedAuthorization } from '../../server/x402/paywall/settled-on-chain.js';

/**
 * Issue 50, point 3: Coffer's paywall takes x402 payments on Base beside Solana. Its 402 offers
 * `exact` on Base Sepolia's chain id (x402 v2 and v1), the official facilitator verifies and settles
 * the payer's EIP-3009 authorization; official `@x402/fetch` (v2) and `x402-fetch` (v1) buyers with a
 * viem key, and Coffer's own x402 buyer, reach the paid answer once; a replay is refused.
 */
describe("x402 clients pay Coffer's paywall on Base", () => {
  let cluster: TestCluster;
  let node: TestEvmNode;
  let svm: Awaited<ReturnType<typeof startFacilitator>>;
  let evm: TestEvmFacilitator;
  let store: PaywallStore;
  let api: { url: string; server: Server };
  let served = 0;
  const baseSeller = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  let solSeller: string;
  const usdc = (account: string) =>
    createPublicClient({ chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) }).readContract({
      address: node.usdc,
      abi: USDC_ABI,
      functionName: 'balanceOf',
      args: [account as Address],
    });
  /**
   * What a paid answer's PAYMENT-RESPONSE says was settled, held to the chain: a success naming the
   * payer, and a transaction whose one USDC Transfer moved `amount` from the payer to the seller.
   */
  const settledOnChain = async (answer: Response, payer: string, amount = micro('0.01')) => {
    const header = answer.headers.get('payment-response');
    expect(header).not.toBeNull();
    const settlement = decodePaymentResponseHeader(header!);
    expect(settlement).toMatchObject({ success: true, payer: getAddress(payer) });
    const receipt = await createPublicClient({ chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) }).getTransactionReceipt({
      hash: settlement.transaction as Hash,
    });
    const transfers = parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: receipt.logs });
    expect(transfers.map((log) => [getAddress(log.address), log.args])).toEqual([
      [getAddress(node.usdc), { from: getAddress(payer), to: baseSeller, value: amount }],
    ]);
    return settlement.transaction;
  };
  /** A buyer's account on Base with test USDC. */
  const buyer = async (amount = '1') => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await node.mint(account.address, micro(amount));
    return Object.assign(account, { key });
  };

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
    node = await TestEvmNode.start();
    svm = await startFacilitator(cluster);
    evm = await startEvmFacilitator(baseSepolia, node.url, (account) => node.fundEth(account, parseEther('1')));
    solSeller = (await generateKeyPairSigner()).address;
    await cluster.mintUsdc(solSeller, 0n);
    store = openPaywallStore(':memory:');
    // One facilitator for both chains, as Coinbase's and PayAI's are: each payment to its scheme.
    const onEvm = (network: string) => network.startsWith('eip155:') || network === BASE_SEPOLIA_X402.v1;
    const both: FacilitatorClient = {
      verify: (payload, requirements) => (onEvm(requirements.network) ? evm : svm).client.verify(payload, requirements),
      settle: (payload, requirements) => (onEvm(requirements.network) ? evm : svm).client.settle(payload, requirements),
      getSupported: async () => {
        const [a, b] = await Promise.all([svm.client.getSupported(), evm.client.getSupported()]);
        return { ...a, kinds: [...a.kinds, ...b.kinds], signers: { ...a.signers, ...b.signers } };
      },
    };
    facilitator = both;
    api = await paywallApi();
  }, 60_000);

  let facilitator: FacilitatorClient;
  /** The seller's API behind a paywall over the store; a second one is the same seller restarted. */
  async function paywallApi(x402Facilitator = facilitator, paywallStore = store, now?: () => number, baseLookup?: EvmTransferLookup) {
    const paywall = createPaywall({
      recipient: solSeller,
      lookup: await rpcTransferLookup(cluster.url),
      base: { recipient: baseSeller, lookup: baseLookup ?? (await evmTransferLookupAt(node.url)) },
      store: paywallStore,
      x402: { facilitator: x402Facilitator },
      ...(now === undefined ? {} : { now }),
    });
    const app = express();
    app.get('/data', paywall.require({ price: '0.01', description: 'Paid data' }), (_req, res) => {
      served += 1;
      res.json({ data: 'sold', payer: paymentOf(res)?.payer });
    });
    return listen(app);
  }

  /** A buyer's x402 v2 payment on Base for the paywall's fresh terms, as the official client makes it (its header, and what it carries). */
  async function paymentFor(account: Awaited<ReturnType<typeof buyer>>, paywallUrl = api.url, path = '/data') {
    const unpaid = await fetch(`${paywallUrl}${path}`);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    const http = new x402HTTPClient(
      x402Client.fromConfig({ schemes: [{ network: BASE_SEPOLIA_X402.v2, client: new ExactEvmScheme(toClientEvmSigner(account)) }] }),
    );
    const payload = await http.createPaymentPayload({
      ...required,
      accepts: required.accepts.filter((entry: any) => entry.network === BASE_SEPOLIA_X402.v2),
    });
    return { headers: http.encodePaymentSignatureHeader(payload), payload: payload as any };
  }

  /** Each buyer's x402 v2 payment on Base for one 402's terms (one nonce), as the official client makes it: their headers. */
  async function paymentsUnderOneNonce(paywallUrl: string, accounts: Awaited<ReturnType<typeof buyer>>[]) {
    const unpaid = await fetch(`${paywallUrl}/data`);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    const onBase = { ...required, accepts: required.accepts.filter((entry: any) => entry.network === BASE_SEPOLIA_X402.v2) };
    return Promise.all(
      accounts.map(async (account) => {
        const http = new x402HTTPClient(
          x402Client.fromConfig({ schemes: [{ network: BASE_SEPOLIA_X402.v2, client: new ExactEvmScheme(toClientEvmSigner(account)) }] }),
        );
        return http.encodePaymentSignatureHeader(await http.createPaymentPayload(onBase));
      }),
    );
  }

  /**
   * A Solana buyer's x402 v2 payment for the paywall's fresh terms, as the official client makes it,
   * paying with all it holds: after the payment, a fresh simulation of it fails.
   */
  async function solanaPaymentOfAll() {
    const buyer = await generateKeyPairSigner();
    await cluster.mintUsdc(buyer.address, micro('0.01'));
    const unpaid = await fetch(`${api.url}/data`);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    const http = new x402HTTPClient(
      x402Client.fromConfig({ schemes: [{ network: 'solana:*', client: new ExactSvmScheme(buyer, { rpcUrl: cluster.url }) }] }),
    );
    const headers = http.encodePaymentSignatureHeader(
      await http.createPaymentPayload({
        ...required,
        accepts: required.accepts.filter((entry: any) => entry.network.startsWith('solana:')),
      }),
    );
    return { buyer, headers };
  }

  /**
   * The payment presented to the seller's paywall, whose process stops while it settles (its
   * facilitator's settle never returns to it): after the facilitator settled it, or before it sent
   * anything. The buyer is answered 503, nothing is recorded.
   */
  async function stoppedWhileSettling(headers: Record<string, string>, { settled }: { settled: boolean }) {
    const dying = await paywallApi({
      ...facilitator,
      settle: async (payload, requirements) => {
        if (settled) await facilitator.settle(payload, requirements);
        throw new Error('the process stopped here');
      },
    });
    try {
      expect((await fetch(`${dying.url}/data`, { headers })).status).toBe(503);
    } finally {
      await close(dying.server);
    }
  }

  /**
   * The payment presented to the seller's paywall restarted (its store kept, `x402Facilitator` its
   * facilitator): served once, its settlement's header with it; presented again there or to the
   * paywall before, refused as used.
   */
  async function servedOnceRestarted(headers: Record<string, string>, payer: string, x402Facilitator = facilitator) {
    const restarted = await paywallApi(x402Facilitator);
    try {
      const again = await fetch(`${restarted.url}/data`, { headers });
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ data: 'sold', payer });
      // On Base its settlement is held to the chain; on Solana (the svm facilitator's), to its success and payer.
      if (payer.startsWith('0x')) await settledOnChain(again, payer);
      else expect(decodePaymentResponseHeader(again.headers.get('payment-response') ?? '')).toMatchObject({ success: true, payer });
      for (const url of [restarted.url, api.url]) {
        const replayed = await fetch(`${url}/data`, { headers });
        expect(replayed.status).toBe(402);
        expect((await replayed.json()).code).toBe('receipt_already_used');
      }
    } finally {
      await close(restarted.server);
    }
  }

  /** As servedOnceRestarted, on Solana: the seller's facilitator restarted with it (the same fee payer, nothing in memory). */
  async function servedOnceRestartedOnSolana(headers: Record<string, string>, payer: string) {
    const fresh = await startFacilitator(cluster, svm.feePayer);
    try {
      await servedOnceRestarted(headers, payer, { ...facilitator, verify: fresh.client.verify, settle: fresh.client.settle });
    } finally {
      await fresh.close();
    }
  }

  /** Signs `authorization` (an x402 payload's, as strings) with the payer's key and runs it on chain, sent by an account of its own. */
  async function runOnChain(
    payer: Awaited<ReturnType<typeof buyer>>,
    authorization: { to: string; value: string; validAfter: string; validBefore: string; nonce: Hash },
    token: { name: string; version: string },
  ) {
    const message = {
      from: payer.address,
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    };
    const signature = await payer.signTypedData({
      domain: { name: token.name, version: token.version, chainId: baseSepolia.id, verifyingContract: node.usdc },
      types: TRANSFER_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const { v, r, s } = parseSignature(signature);
    const sender = privateKeyToAccount(generatePrivateKey());
    await node.fundEth(sender.address, parseEther('1'));
    const wallet = createWalletClient({ account: sender, chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) });
    // Its gas given: estimated while the node holds a transaction back, it could run after it.
    return wallet.writeContract({
      address: node.usdc,
      abi: USDC_ABI,
      functionName: 'transferWithAuthorization',
      args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s],
      gas: 200_000n,
    });
  }

  /** The payer cancels its authorization under `nonce` (EIP-3009's cancelAuthorization), sent by a stranger. */
  async function cancelOnChain(payer: Awaited<ReturnType<typeof buyer>>, nonce: Hash, token: { name: string; version: string }) {
    const signature = await payer.signTypedData({
      domain: { name: token.name, version: token.version, chainId: baseSepolia.id, verifyingContract: node.usdc },
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce },
    });
    const { v, r, s } = parseSignature(signature);
    const sender = privateKeyToAccount(generatePrivateKey());
    await node.fundEth(sender.address, parseEther('1'));
    const wallet = createWalletClient({ account: sender, chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) });
    const hash = await wallet.writeContract({
      address: node.usdc,
      abi: parseAbi(['function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)']),
      functionName: 'cancelAuthorization',
      args: [payer.address, nonce, Number(v), r, s],
      gas: 200_000n,
    });
    await createPublicClient({ chain: baseSepolia, transport: http(node.url) }).waitForTransactionReceipt({ hash });
  }

  /** Leaves the payment's settlement pending (503): the node mines nothing within the facilitator's wait; then mines it. */
  async function settledAfterA503(headers: Record<string, string>, paywallUrl = api.url, meanwhile: () => unknown = () => {}) {
    await node.setAutomine(false);
    evm.receiptWaitMs = 300;
    try {
      const pending = await fetch(`${paywallUrl}/data`, { headers });
      expect(pending.status).toBe(503);
      expect((await pending.json()).code).toBe('verifier_unavailable');
      await meanwhile();
      await node.mine(1);
    } finally {
      evm.receiptWaitMs = null;
      await node.setAutomine(true);
    }
  }
  afterAll(async () => {
    await close(api.server);
    store.close();
    await evm.close();
    await svm.close();
    await node.stop();
    await cluster.stop();
  });

  it('offers exact on Base in v2 and v1 beside Solana: the token’s EIP-712 name and version, the nonce as memo in v2', async () => {
    const unpaid = await fetch(`${api.url}/data`);
    expect(unpaid.status).toBe(402);
    const body = (await unpaid.json()) as any;
    expect(body.accepts.map((entry: any) => entry.network)).toEqual(['solana-devnet', BASE_SEPOLIA_X402.v1]);
    expect(body.accepts[1]).toMatchObject({
      scheme: 'exact',
      maxAmountRequired: '10000',
      payTo: baseSeller,
      asset: node.usdc,
      extra: { name: 'USDC', version: '2' },
    });
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    expect(required.accepts.map((entry: any) => entry.network)).toEqual([expect.stringMatching(/^solana:/), BASE_SEPOLIA_X402.v2]);
    expect(required.accepts[1]).toMatchObject({
      amount: '10000',
      payTo: baseSeller,
      asset: node.usdc,
      extra: { name: 'USDC', version: '2', memo: body.nonce },
    });
  });

  it('offers no Base terms while its facilitator does not settle on Base, and takes no Base payment', async () => {
    const solanaOnly = createPaywall({
      recipient: solSeller,
      lookup: await rpcTransferLookup(cluster.url),
      base: { recipient: baseSeller, lookup: await evmTransferLookupAt(node.url) },
      store: openPaywallStore(':memory:'),
      x402: { facilitator: svm.client },
    });
    const app = express();
    app.get('/only', solanaOnly.require({ price: '0.01', description: 'Solana only' }), (_req, res) => res.json({ ok: true }));
    const server = await listen(app);
    try {
      const unpaid = await fetch(`${server.url}/only`);
      const body = (await unpaid.json()) as any;
      expect(body.accepts.map((entry: any) => entry.network)).toEqual(['solana-devnet']);
      const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
      expect(required.accepts.map((entry: any) => entry.network)).toEqual([expect.stringMatching(/^solana:/)]);
      // Coffer's own terms still name Base (its receipts are read on chain, no facilitator needed).
      expect(body.base).toMatchObject({ recipient: baseSeller });
    } finally {
      await close(server.server);
    }
  });

  it('a token whose name the node is slow to give, or cannot give, holds no 402 for long; its trouble is logged once', async () => {
    const real = await evmTransferLookupAt(node.url);
    const paywallNaming = async (naming: () => Promise<{ name: string; version: string }>) => {
      const log: string[] = [];
      let asked = 0;
      const paywall = createPaywall({
        recipient: solSeller,
        lookup: await rpcTransferLookup(cluster.url),
        base: { recipient: baseSeller, lookup: { ...real, tokenNaming: () => (asked++, naming()) } },
        store: openPaywallStore(':memory:'),
        x402: { facilitator },
        log: (line) => log.push(line),
      });
      const app = express();
      app.get('/data', paywall.require({ price: '0.01', description: 'Slow token' }), (_req, res) => res.json({ ok: true }));
      const server = await listen(app);
      const networks = async () => {
        const unpaid = await fetch(`${server.url}/data`);
        expect(unpaid.status).toBe(402);
        return ((await unpaid.json()) as any).accepts.map((entry: any) => entry.network);
      };
      return { server, log, networks, asked: () => asked };
    };
    // A node that takes its time (a retry after a timeout): the 402 goes out with Solana's terms
    // only, and Base's once the name is read.
    const slow = await paywallNaming(() => new Promise((resolve) => setTimeout(() => resolve(real.tokenNaming()), 4_000)));
    // One that cannot give it: said once, however many 402s go out, and not asked for each.
    const failing = await paywallNaming(async () => {
      throw new Error('the node did not answer');
    });
    try {
      expect(await slow.networks()).toEqual(['solana-devnet']);
      await expect.poll(slow.networks, { timeout: 10_000, interval: 500 }).toEqual(['solana-devnet', 'base-sepolia']);
      for (let request = 0; request < 10; request += 1) expect(await failing.networks()).toEqual(['solana-devnet']);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await failing.networks()).toEqual(['solana-devnet']);
      expect(failing.log).toEqual([expect.stringContaining("the Base token's name could not be read: the node did not answer")]);
      expect(failing.asked()).toBeLessThanOrEqual(3);
    } finally {
      await close(slow.server.server);
      await close(failing.server.server);
    }
  });

  it('the official @x402/fetch EVM buyer pays once on Base; its payment replayed is refused', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), seller: await usdc(baseSeller), served };
    const client = x402Client.fromConfig({
      schemes: [{ network: BASE_SEPOLIA_X402.v2, client: new ExactEvmScheme(toClientEvmSigner(account)) }],
    });
    let sent: string | null = null;
    const spy: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent = request.headers.get('payment-signature') ?? sent;
      return fetch(request);
    };
    const paid = await wrapFetchWithPayment(spy, client)(`${api.url}/data`);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toMatchObject({ data: 'sold', payer: account.address });
    await settledOnChain(paid, account.address);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));

    expect(sent).not.toBeNull();
    const replayed = await fetch(`${api.url}/data`, { headers: { 'payment-signature': sent! } });
    expect(replayed.status).toBe(402);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  it('a payment on Base carrying no well-formed EIP-3009 authorization is 402 invalid_payment, not "try again"; nothing moves', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), served };
    const { payload } = await paymentFor(account);
    const { authorization, signature } = payload.payload;
    const malformed = [
      { authorization: { ...authorization, value: `${authorization.value}.0` }, signature },
      { authorization: { ...authorization, validBefore: 'abc' }, signature },
      { authorization, signature: '0xnot-hex' },
      { signature, permit2Authorization: { from: account.address } },
      { transaction: Buffer.from('not a transaction').toString('base64') },
    ];
    for (const inner of malformed) {
      const answer = await fetch(`${api.url}/data`, {
        headers: { 'payment-signature': encodePaymentSignatureHeader({ ...payload, payload: inner }) },
      });
      expect(answer.status).toBe(402);
      expect(await answer.json()).toMatchObject({ code: 'invalid_payment', error: expect.stringMatching(/EIP-3009/) });
    }
    expect(served).toBe(before.served);
    expect(await usdc(account.address)).toBe(before.buyer);
    // The payment as signed is still good: served once.
    const paid = await fetch(`${api.url}/data`, { headers: { 'payment-signature': encodePaymentSignatureHeader(payload) } });
    expect(paid.status).toBe(200);
    expect(served).toBe(before.served + 1);
  });

  it('a payment whose settlement was still pending is served when presented again, once its transaction is mined', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), seller: await usdc(baseSeller), served };
    const { headers } = await paymentFor(account);
    // The node mines nothing for a while: the facilitator sends the authorization, and its receipt
    // does not come within the facilitator's wait, asked twice. The outcome is unknown: 503.
    await settledAfterA503(headers);
    // The transaction is mined: the money moved. The same payment presented again buys its answer,
    // once (the used authorization no longer passes a fresh verify; its settlement is what counts).
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    const again = await fetch(`${api.url}/data`, { headers });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ data: 'sold', payer: account.address });
    expect(served).toBe(before.served + 1);
    const thrice = await fetch(`${api.url}/data`, { headers });
    expect(thrice.status).toBe(402);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  it('a payment left pending is not taken under another nonce by whoever read its authorization in flight', async () => {
    const account = await buyer();
    const before = { seller: await usdc(baseSeller), served };
    const { headers, payload } = await paymentFor(account);
    // Its authorization and signature are in the transaction waiting to be mined (a public
    // mempool): presented under a fresh nonce of an observer's own.
    const fresh = await paymentFor(await buyer());
    const rewrapped = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader({ ...fresh.payload, payload: payload.payload }) };
    await node.setAutomine(false);
    evm.receiptWaitMs = 300;
    try {
      expect((await fetch(`${api.url}/data`, { headers })).status).toBe(503);
      const taken = await fetch(`${api.url}/data`, { headers: rewrapped });
      expect(taken.status).toBe(402);
      expect((await taken.json()).code).toBe('receipt_already_used');
      // Or as x402 v1, which names no nonce (its facilitator would send the authorization again).
      const asV1 = Buffer.from(
        JSON.stringify({ x402Version: 1, scheme: 'exact', network: BASE_SEPOLIA_X402.v1, payload: payload.payload }),
      );
      const takenAsV1 = await fetch(`${api.url}/data`, { headers: { 'X-PAYMENT': asV1.toString('base64') } });
      expect(takenAsV1.status).toBe(402);
      expect((await takenAsV1.json()).code).toBe('receipt_already_used');
      await node.mine(1);
    } finally {
      evm.receiptWaitMs = null;
      await node.setAutomine(true);
    }
    // Mined: presented again under the observer's nonce, still refused (the facilitator would
    // resume the settlement it sent for the buyer's payment, found by its signature).
    expect((await fetch(`${api.url}/data`, { headers: rewrapped })).status).toBe(402);
    // Its buyer presents it again: served, once.
    const again = await fetch(`${api.url}/data`, { headers });
    expect(again.status).toBe(200);
    expect(served).toBe(before.served + 1);
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
  });

  it('a payment left pending (503) is served once by the paywall restarted, its money having arrived meanwhile', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), seller: await usdc(baseSeller), served };
    const { headers } = await paymentFor(account);
    await settledAfterA503(headers);
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    // The seller restarted: what its paywall remembered in memory is gone, its store is not. The
    // facilitator's verify now finds the authorization used; the transaction it sent shows it paid.
    await servedOnceRestarted(headers, account.address);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  it('a payment left pending (503) whose nonce ends meanwhile is served once where it ran; nothing settles anew', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), seller: await usdc(baseSeller), served };
    let offset = 0;
    const clocked = await paywallApi(facilitator, store, () => Date.now() + offset);
    try {
      const { headers } = await paymentFor(account, clocked.url);
      // Its transaction is mined after the paywall's terms ended (a buyer that signed late, as a
      // payment held for its owner's yes does, has an authorization good for longer).
      await settledAfterA503(headers, clocked.url, () => (offset = 60 * 60_000));
      expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
      const again = await fetch(`${clocked.url}/data`, { headers });
      expect(again.status).toBe(200);
      expect(served).toBe(before.served + 1);
      const replayed = await fetch(`${clocked.url}/data`, { headers });
      expect([replayed.status, (await replayed.json()).code]).toEqual([402, 'receipt_expired']);
      expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
    } finally {
      await close(clocked.server);
    }
  });

  it('a payment whose nonce ended, never settled, is refused and its money never moves', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), served };
    let offset = 0;
    const clocked = await paywallApi(facilitator, store, () => Date.now() + offset);
    try {
      const { headers } = await paymentFor(account, clocked.url);
      offset = 60 * 60_000;
      const late = await fetch(`${clocked.url}/data`, { headers });
      expect([late.status, (await late.json()).code]).toEqual([402, 'receipt_expired']);
      expect(served).toBe(before.served);
      expect(await usdc(account.address)).toBe(before.buyer);
    } finally {
      await close(clocked.server);
    }
  });

  it('a payment settled just before its paywall stopped, by a facilitator naming no account it sends from, is served once restarted', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), seller: await usdc(baseSeller), served };
    // No accounts named: the chain cannot be searched for what it sent, only asked about what it named.
    const namingNone: FacilitatorClient = {
      ...facilitator,
      getSupported: async () => ({ ...(await facilitator.getSupported()), signers: {} }),
    };
    const { headers } = await paymentFor(account);
    // Settled, then the seller's process stops before its paywall records the payment.
    const dying = await paywallApi(namingNone, {
      ...store,
      accept: () => {
        throw new Error('the process stopped here');
      },
    });
    try {
      expect((await fetch(`${dying.url}/data`, { headers })).status).toBe(503);
    } finally {
      await close(dying.server);
    }
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    await servedOnceRestarted(headers, account.address, namingNone);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  it('a payment settled just before its paywall stopped, not yet recorded, is served once by the paywall restarted', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), seller: await usdc(baseSeller), served };
    const { headers } = await paymentFor(account);
    // The facilitator settles, and the seller's process stops before its paywall records the payment
    // (its settle never returns to it): the buyer's money is the seller's, the answer unsent.
    await stoppedWhileSettling(headers, { settled: true });
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    // Restarted, the paywall's facilitator refuses the used authorization; the chain shows where it ran.
    await servedOnceRestarted(headers, account.address);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  it('a payment whose settlement fails without saying whether it was sent is served once where the chain shows it ran', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), served };
    const { headers } = await paymentFor(account);
    // As the official EVM facilitator answers a send that threw after the node took the transaction
    // (here: sent, not mined within its wait).
    const unsure = await paywallApi({
      ...facilitator,
      settle: async (payload, requirements) => {
        await facilitator.settle(payload, requirements);
        return { success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '', network: requirements.network };
      },
    });
    await node.setAutomine(false);
    evm.receiptWaitMs = 300;
    try {
      // Not mined yet: the chain cannot say, so the outcome is unknown.
      const unknown = await fetch(`${unsure.url}/data`, { headers });
      expect(unknown.status).toBe(503);
      expect((await unknown.json()).code).toBe('verifier_unavailable');
      await node.mine(1);
      // Mined: presented again (not at once: the chain is searched once a second at most for one
      // payment), its authorization is used; the chain shows the facilitator ran it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const paid = await fetch(`${unsure.url}/data`, { headers });
      expect(paid.status).toBe(200);
      expect(await paid.json()).toMatchObject({ data: 'sold', payer: account.address });
      const replayed = await fetch(`${unsure.url}/data`, { headers });
      expect((await replayed.json()).code).toBe('receipt_already_used');
    } finally {
      evm.receiptWaitMs = null;
      await node.setAutomine(true);
      await close(unsure.server);
    }
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  it('a payment its facilitator never sent, run on chain by another account, is not served on the chain’s word', async () => {
    // What a second paywall of the seller's (a store and facilitator of its own) would see here of a
    // payment it settled first: an answer bought again with one payment.
    const account = await buyer();
    const { headers, payload } = await paymentFor(account);
    const before = { seller: await usdc(baseSeller), served };
    // The facilitator verifies the payment; the seller's process stops before anything is sent.
    await stoppedWhileSettling(headers, { settled: false });
    await runOnChain(account, payload.payload.authorization, payload.accepted.extra);
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    const restarted = await paywallApi();
    try {
      const refused = await fetch(`${restarted.url}/data`, { headers });
      expect(refused.status).toBe(402);
      expect((await refused.json()).code).toBe('payment_rejected');
      expect(served).toBe(before.served);
    } finally {
      await close(restarted.server);
    }
  });

  it('one authorization under two paywalls’ nonces (stores and facilitators of their own, one account) buys one answer', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), served };
    const { headers, payload } = await paymentFor(account);
    // A second paywall of the seller's, a store of its own, its facilitator sending from the first
    // one's account: the same authorization presented under its nonce while the first paywall's
    // settlement is on its way.
    const otherStore = openPaywallStore(':memory:');
    const twin = await startEvmFacilitator(baseSepolia, node.url, async () => {}, evm.key);
    // The second paywall's verify passes before the first's transaction is mined; it is mined before
    // its settle, which then finds the authorization used and says it sent nothing.
    const minedAfterVerify: FacilitatorClient = {
      ...twin.client,
      verify: async (p, r) => {
        const verified = await twin.client.verify(p, r);
        await node.mine(1);
        return verified;
      },
    };
    const second = await paywallApi(minedAfterVerify, otherStore);
    const twice = { ...(await paymentFor(account, second.url)).payload, payload: payload.payload };
    await node.setAutomine(false);
    evm.receiptWaitMs = 300;
    try {
      expect((await fetch(`${api.url}/data`, { headers })).status).toBe(503);
      const refused = await fetch(`${second.url}/data`, { headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(twice) } });
      expect(refused.status).toBe(402);
      expect((await refused.json()).code).toBe('payment_rejected');
    } finally {
      evm.receiptWaitMs = null;
      await node.setAutomine(true);
      await close(second.server);
      await twin.close();
      otherStore.close();
    }
    // The first paywall serves its payment, once.
    expect((await fetch(`${api.url}/data`, { headers })).status).toBe(200);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  it('on Solana too: a payment left pending (503) is served once by the paywall restarted, its money having arrived', async () => {
    const { buyer, headers } = await solanaPaymentOfAll();
    const before = { seller: await usdcOn(cluster, solSeller), served };
    // The facilitator sends the transaction, and does not see it confirmed in time: 503.
    svm.control.confirming = false;
    try {
      const pending = await fetch(`${api.url}/data`, { headers });
      expect(pending.status).toBe(503);
    } finally {
      svm.control.confirming = true;
    }
    expect(await usdcOn(cluster, solSeller)).toBe(before.seller + micro('0.01'));
    // The seller's process restarted, its facilitator with it (the same fee payer, nothing pending
    // in memory): its verify refuses the transaction that landed; the one the facilitator sent
    // shows the price paid here, with the paywall's nonce as its memo.
    await servedOnceRestartedOnSolana(headers, buyer.address);
    expect(served).toBe(before.served + 1);
    expect(await usdcOn(cluster, buyer.address)).toBe(0n);
  });

  it('on Solana too: a payment settled just before its paywall stopped, not yet recorded, is served once by the paywall restarted', async () => {
    const { buyer, headers } = await solanaPaymentOfAll();
    const before = { seller: await usdcOn(cluster, solSeller), served };
    // The facilitator settles; the seller's process stops before its paywall records the payment.
    await stoppedWhileSettling(headers, { settled: true });
    expect(await usdcOn(cluster, solSeller)).toBe(before.seller + micro('0.01'));
    // Restarted, with its facilitator (the same fee payer): its verify refuses the landed transaction;
    // the payer's account shows the transaction it signed, paying the price here under the nonce.
    await servedOnceRestartedOnSolana(headers, buyer.address);
    expect(served).toBe(before.served + 1);
    expect(await usdcOn(cluster, buyer.address)).toBe(0n);
  });

  it('a payment found good whose nonce its payer then spends paying someone else is not served on the chain’s word', async () => {
    const account = await buyer();
    const elsewhere = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const { headers, payload } = await paymentFor(account);
    const before = { seller: await usdc(baseSeller), served };
    // The payer signs a second authorization under the same nonce, to another account.
    const other = { ...payload.payload.authorization, to: elsewhere };
    // The facilitator finds the payment good and sends it; before it is mined, it is lost from the
    // node's pool, and the other one runs instead.
    await node.setAutomine(false);
    evm.receiptWaitMs = 300;
    try {
      const pending = await fetch(`${api.url}/data`, { headers });
      expect(pending.status).toBe(503);
      expect(await node.dropPending()).toHaveLength(1);
      await runOnChain(account, other, payload.accepted.extra);
      await node.mine(1);
    } finally {
      evm.receiptWaitMs = null;
      await node.setAutomine(true);
    }
    expect(await usdc(elsewhere)).toBe(micro('0.01'));
    expect(await usdc(baseSeller)).toBe(before.seller);
    // Presented again, to the paywall restarted: the chain shows the nonce used, paying someone else.
    const restarted = await paywallApi();
    try {
      const refused = await fetch(`${restarted.url}/data`, { headers });
      expect(refused.status).toBe(402);
      expect((await refused.json()).code).toBe('payment_rejected');
      expect(served).toBe(before.served);
    } finally {
      await close(restarted.server);
    }
  });

  it('a landed authorization this paywall did not settle, put under its fresh terms by anyone, buys nothing', async () => {
    // A payment of the price to the seller that this paywall never saw settled (another of its
    // paywalls, a Coffer receipt's, one the payer ran itself).
    const account = await buyer();
    const { payload } = await paymentFor(account);
    await runOnChain(account, payload.payload.authorization, payload.accepted.extra);
    expect(await usdc(account.address)).toBe(micro('0.99'));
    const before = served;
    // Anyone reads the authorization and its signature off the chain (its transaction's calldata
    // carries both) and presents them with a nonce of their own from a fresh 402.
    const fresh = await paymentFor(await buyer());
    const forged = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader({ ...fresh.payload, payload: payload.payload }) };
    const restarted = await paywallApi();
    try {
      for (const url of [api.url, restarted.url]) {
        const refused = await fetch(`${url}/data`, { headers: forged });
        expect(refused.status).toBe(402);
        expect((await refused.json()).code).toBe('payment_rejected');
      }
      expect(served).toBe(before);
    } finally {
      await close(restarted.server);
    }
  });

  it('the Base lookup says whether a transaction ran an authorization paying what it says, and waits on one not mined', async () => {
    const lookup = await evmTransferLookupAt(node.url);
    const account = await buyer();
    const elsewhere = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const { payload } = await paymentFor(account);
    const presented = carriedAuthorization(payload)!;
    const since = BigInt(Math.floor(Date.now() / 1000));
    // The payer's other authorization under the same nonce, to someone else, runs.
    const ranOther = await runOnChain(account, { ...payload.payload.authorization, to: elsewhere }, payload.accepted.extra);
    // Where the authorization ran, and who sent it, looked for from a moment before it was sent; an
    // unused one ran nowhere, and one sent before the search's start (with its slack) is not found.
    const chain = createPublicClient({ chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) });
    const sender = getAddress((await chain.getTransaction({ hash: ranOther })).from);
    expect(await lookup.whereAuthorizationRan(presented, since)).toEqual({ transaction: ranOther, sender });
    expect(await lookup.whereAuthorizationRan({ ...presented, nonce: `0x${'66'.repeat(32)}` }, since)).toBeNull();
    expect(await lookup.whereAuthorizationRan(presented, since + 3_600n)).toBeNull();
    // A node whose log index lags behind its state (a load-balanced RPC's nodes differ): the
    // authorization is used, its log nowhere yet. Where it ran is not known yet (never a refusal).
    const laggingLogs = custom({
      request: async ({ method, params }: { method: string; params?: unknown }) =>
        method === 'eth_getLogs' ? [] : chain.request({ method, params } as never),
    });
    const lagging = evmTransferLookup(laggingLogs, { name: lookup.network, chainId: lookup.chainId, usdc: getAddress(lookup.usdc) });
    await expect(lagging.whereAuthorizationRan(presented, since)).rejects.toThrow(/not show where it ran yet/);
    expect(await lagging.whereAuthorizationRan({ ...presented, nonce: `0x${'66'.repeat(32)}` }, since)).toBeNull();
    // An authorization its payer canceled (used, never run: no one was paid) ran nowhere: a refusal,
    // not "not known yet" (it was until the paywall's nonce ended).
    const canceled = carriedAuthorization((await paymentFor(account)).payload)!;
    await cancelOnChain(account, canceled.nonce, payload.accepted.extra);
    expect(await lookup.whereAuthorizationRan(canceled, since)).toBeNull();
    expect(await lookup.paidInTransaction(ranOther, { ...presented, to: elsewhere })).toBe(true);
    expect(await lookup.paidInTransaction(ranOther, presented)).toBe(false);
    expect(await lookup.paidInTransaction(ranOther, { ...presented, value: presented.value + 1n })).toBe(false);
    // A transaction the node never saw (dropped), and one still waiting to be mined. One its
    // facilitator said the payment settled in is not known here yet (the node behind), never a "no".
    expect(await lookup.paidInTransaction(`0x${'77'.repeat(32)}`, presented)).toBe(false);
    await expect(lookup.paidInTransaction(`0x${'77'.repeat(32)}`, presented, true)).rejects.toThrow(/not known to this node yet/);
    // Which authorization a settled transaction ran: the one it ran, not another; one this node has
    // no receipt of (the facilitator's node ahead of the seller's) is not known yet, never a "no".
    expect(await lookup.ranAuthorization(ranOther, account.address, presented.nonce)).toBe(true);
    expect(await lookup.ranAuthorization(ranOther, account.address, `0x${'66'.repeat(32)}`)).toBe(false);
    await expect(lookup.ranAuthorization(`0x${'77'.repeat(32)}`, account.address, presented.nonce)).rejects.toThrow(
      /not known to this node yet/,
    );
    await node.setAutomine(false);
    try {
      const second = await paymentFor(account);
      const waiting = await runOnChain(account, second.payload.payload.authorization, second.payload.accepted.extra);
      await expect(lookup.paidInTransaction(waiting, carriedAuthorization(second.payload)!)).rejects.toThrow(/not mined yet/);
      await node.mine(1);
      expect(await lookup.paidInTransaction(waiting, carriedAuthorization(second.payload)!)).toBe(true);
    } finally {
      await node.setAutomine(true);
    }
  });

  it('a v1 payment settling is claimed too: presented again meanwhile 503, under a v2 nonce refused; once mined, served once', async () => {
    const account = await buyer();
    const before = { seller: await usdc(baseSeller), served };
    const { payload } = await paymentFor(account);
    const v1 = {
      'X-PAYMENT': Buffer.from(
        JSON.stringify({ x402Version: 1, scheme: 'exact', network: BASE_SEPOLIA_X402.v1, payload: payload.payload }),
      ).toString('base64'),
    };
    const fresh = await paymentFor(await buyer());
    const asV2 = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader({ ...fresh.payload, payload: payload.payload }) };
    await node.setAutomine(false);
    evm.receiptWaitMs = 300;
    try {
      const first = fetch(`${api.url}/data`, { headers: v1 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await fetch(`${api.url}/data`, { headers: v1 })).status).toBe(503);
      const taken = await fetch(`${api.url}/data`, { headers: asV2 });
      expect(taken.status).toBe(402);
      expect((await taken.json()).code).toBe('receipt_already_used');
      expect((await first).status).toBe(503);
      await node.mine(1);
    } finally {
      evm.receiptWaitMs = null;
      await node.setAutomine(true);
    }
    expect((await fetch(`${api.url}/data`, { headers: asV2 })).status).toBe(402);
    // Mined: the v1 payment presented again is served, once (the chain shows the facilitator ran it;
    // searched once a second at most, 503 meanwhile, as payingFetch comes back).
    await expect.poll(async () => (await fetch(`${api.url}/data`, { headers: v1 })).status, { timeout: 5_000, interval: 400 }).toBe(200);
    expect((await fetch(`${api.url}/data`, { headers: v1 })).status).toBe(402);
    expect(served).toBe(before.served + 1);
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
  });

  it('one authorization as v1 and as v2 at once: one settles, the other is receipt_already_used before the facilitator is asked (helper 182)', async () => {
    const account = await buyer();
    const before = { seller: await usdc(baseSeller), served, asked: evm.settles.asked };
    const { headers, payload } = await paymentFor(account);
    const v1 = {
      'X-PAYMENT': Buffer.from(
        JSON.stringify({ x402Version: 1, scheme: 'exact', network: BASE_SEPOLIA_X402.v1, payload: payload.payload }),
      ).toString('base64'),
    };
    // Both at once: neither's settlement has begun as the other is looked at.
    const answers = await Promise.all([fetch(`${api.url}/data`, { headers: v1 }), fetch(`${api.url}/data`, { headers })]);
    const told = await Promise.all(
      answers.map(async (answer) => (answer.status === 200 ? 200 : [answer.status, (await answer.json()).code])),
    );
    expect(told.sort()).toEqual([200, [402, 'receipt_already_used']].sort());
    expect(evm.settles.asked).toBe(before.asked + 1);
    expect(served).toBe(before.served + 1);
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
  });

  it('an accepted authorization presented again under a fresh nonce or as v1 is receipt_already_used, asking no facilitator (helper 182)', async () => {
    const account = await buyer();
    const { headers, payload } = await paymentFor(account);
    expect((await fetch(`${api.url}/data`, { headers })).status).toBe(200);
    const before = { seller: await usdc(baseSeller), served, asked: evm.settles.asked };
    const fresh = await paymentFor(await buyer());
    const underFreshNonce = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader({ ...fresh.payload, payload: payload.payload }) };
    const asV1 = {
      'X-PAYMENT': Buffer.from(
        JSON.stringify({ x402Version: 1, scheme: 'exact', network: BASE_SEPOLIA_X402.v1, payload: payload.payload }),
      ).toString('base64'),
    };
    for (const again of [underFreshNonce, asV1]) {
      const answer = await fetch(`${api.url}/data`, { headers: again });
      const { code, error } = await answer.json();
      expect([answer.status, code, error]).toEqual([402, 'receipt_already_used', 'this payment was already accepted']);
    }
    expect(evm.settles.asked).toBe(before.asked);
    expect(served).toBe(before.served);
    expect(await usdc(baseSeller)).toBe(before.seller);
  });

  it('a facilitator that names no payer: its accepted authorization is known again all the same (helper 186)', async () => {
    // x402's verify and settle answers may leave the payer out.
    const silent: FacilitatorClient = {
      verify: async (payload, requirements) => ({ ...(await facilitator.verify(payload, requirements)), payer: undefined }),
      settle: async (payload, requirements) => ({ ...(await facilitator.settle(payload, requirements)), payer: undefined }),
      getSupported: () => facilitator.getSupported(),
    };
    const quiet = await paywallApi(silent);
    try {
      const account = await buyer();
      const { headers, payload } = await paymentFor(account, quiet.url);
      expect((await fetch(`${quiet.url}/data`, { headers })).status).toBe(200);
      const asked = evm.settles.asked;
      const fresh = await paymentFor(await buyer(), quiet.url);
      const again = await fetch(`${quiet.url}/data`, {
        headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader({ ...fresh.payload, payload: payload.payload }) },
      });
      const { code, error } = await again.json();
      expect([again.status, code, error]).toEqual([402, 'receipt_already_used', 'this payment was already accepted']);
      expect(evm.settles.asked).toBe(asked);
    } finally {
      await close(quiet.server);
    }
  });

  it('the same payment presented again while it settles is told to come back (503), then served once', async () => {
    const account = await buyer();
    const before = { seller: await usdc(baseSeller), served };
    const { headers } = await paymentFor(account);
    await node.setAutomine(false);
    evm.receiptWaitMs = 300;
    try {
      // The buyer gives up waiting and presents it again while the facilitator still waits for it.
      const first = fetch(`${api.url}/data`, { headers });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = await fetch(`${api.url}/data`, { headers });
      expect(again.status).toBe(503);
      // Said as what it is: not a facilitator out of reach, the same payment still settling.
      expect(await again.json()).toEqual({
        code: 'verifier_unavailable',
        error: 'this payment is being settled now, as presented before: try again for its answer',
      });
      expect((await first).status).toBe(503);
      await node.mine(1);
    } finally {
      evm.receiptWaitMs = null;
      await node.setAutomine(true);
    }
    const settled = await fetch(`${api.url}/data`, { headers });
    expect(settled.status).toBe(200);
    expect(served).toBe(before.served + 1);
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
  });

  it('a payment under a nonce another paid while it was being read is refused before its money moves', async () => {
    const [first, second] = [await buyer(), await buyer()];
    const before = { second: await usdc(second.address), seller: await usdc(baseSeller), served };
    // The nonce found unused as the second payment is read, and paid by the first before it is claimed.
    let stale = false;
    const racing = await paywallApi(facilitator, {
      ...store,
      isNonceUsed: (nonce) => {
        if (!stale) return store.isNonceUsed(nonce);
        stale = false;
        return false;
      },
    });
    try {
      const [a, b] = await paymentsUnderOneNonce(racing.url, [first, second]);
      expect((await fetch(`${racing.url}/data`, { headers: a })).status).toBe(200);
      stale = true;
      const late = await fetch(`${racing.url}/data`, { headers: b });
      expect([late.status, (await late.json()).code]).toEqual([402, 'receipt_already_used']);
      expect(served).toBe(before.served + 1);
      expect(await usdc(second.address)).toBe(before.second);
      expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    } finally {
      await close(racing.server);
    }
  });

  it('another payment under the nonce of one left pending (503), here or at a paywall sharing its store, moves no money; the first is served once', async () => {
    const [first, second] = [await buyer(), await buyer()];
    const before = { first: await usdc(first.address), second: await usdc(second.address), seller: await usdc(baseSeller), served };
    const [a, b] = await paymentsUnderOneNonce(api.url, [first, second]);
    // The same seller's second process: a paywall of its own (nothing in memory shared) over the store.
    const beside = await paywallApi();
    try {
      await settledAfterA503(a!, api.url, async () => {
        for (const url of [api.url, beside.url]) {
          const other = await fetch(`${url}/data`, { headers: b });
          expect([other.status, (await other.json()).code]).toEqual([402, 'receipt_already_used']);
        }
      });
      expect((await fetch(`${api.url}/data`, { headers: a })).status).toBe(200);
      expect(served).toBe(before.served + 1);
      expect(await usdc(first.address)).toBe(before.first - micro('0.01'));
      expect(await usdc(second.address)).toBe(before.second);
      expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    } finally {
      await close(beside.server);
    }
  });

  it('a payment under a nonce another paywall sharing its store accepted while it was verified moves no money', async () => {
    const [first, second] = [await buyer(), await buyer()];
    const before = { second: await usdc(second.address), seller: await usdc(baseSeller), served };
    const [a, b] = await paymentsUnderOneNonce(api.url, [first, second]);
    // The seller's second process, whose facilitator verifies the second payment slowly: found
    // unused as it is read, the nonce is paid by the first at the other paywall meanwhile.
    let verified!: () => void;
    const verifyWaits = new Promise<void>((resolve) => (verified = resolve));
    let verifying!: () => void;
    const inVerify = new Promise<void>((resolve) => (verifying = resolve));
    const slow = await paywallApi({
      ...facilitator,
      verify: async (payload, requirements) => {
        verifying();
        await verifyWaits;
        return facilitator.verify(payload, requirements);
      },
    });
    try {
      const late = fetch(`${slow.url}/data`, { headers: b });
      await inVerify;
      expect((await fetch(`${api.url}/data`, { headers: a })).status).toBe(200);
      verified();
      const answer = await late;
      expect([answer.status, (await answer.json()).code]).toEqual([402, 'receipt_already_used']);
      expect(served).toBe(before.served + 1);
      expect(await usdc(second.address)).toBe(before.second);
      expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
    } finally {
      verified();
      await close(slow.server);
    }
  });

  it('two payments naming one nonce at once: one is served and paid, the other refused before its money moves', async () => {
    const [first, second] = [await buyer(), await buyer()];
    const before = { first: await usdc(first.address), second: await usdc(second.address), seller: await usdc(baseSeller), served };
    const [a, b] = await paymentsUnderOneNonce(api.url, [first, second]);
    const answers = await Promise.all([a, b].map((headers) => fetch(`${api.url}/data`, { headers })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 402]);
    expect(served).toBe(before.served + 1);
    const spent = [before.first - (await usdc(first.address)), before.second - (await usdc(second.address))].sort();
    expect(spent).toEqual([0n, micro('0.01')]);
    expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
  });

  /**
   * A paywall whose facilitator verifies as the official one does and sends settlements two at a
   * time, in one transaction (Multicall3); `lookup` edits its Base chain reads.
   */
  async function batchingPaywall(edit: (lookup: EvmTransferLookup) => EvmTransferLookup = (lookup) => lookup) {
    const batcher = await startBatcher(node);
    const waiting: { authorization: X402Authorization; settled: (hash: Hash | Error) => void }[] = [];
    const batching: FacilitatorClient = {
      verify: (payload, requirements) => evm.client.verify(payload, requirements),
      getSupported: () => evm.client.getSupported(),
      settle: (payload, requirements) =>
        new Promise((resolve, reject) => {
          const authorization = payload.payload as unknown as X402Authorization;
          waiting.push({
            authorization,
            settled: (hash) =>
              hash instanceof Error
                ? reject(hash)
                : resolve({ success: true, transaction: hash, network: requirements.network, payer: authorization.authorization.from }),
          });
          if (waiting.length < 2) return;
          const both = waiting.splice(0);
          void batcher.run(both.map((each) => each.authorization)).then(
            (hash) => both.forEach((each) => each.settled(hash)),
            (error: Error) => both.forEach((each) => each.settled(error)),
          );
        }),
    };
    const batchStore = openPaywallStore(':memory:');
    const paywall = createPaywall({
      recipient: solSeller,
      lookup: await rpcTransferLookup(cluster.url),
      base: { recipient: baseSeller, lookup: edit(await evmTransferLookupAt(node.url)) },
      store: batchStore,
      x402: { facilitator: batching },
    });
    const seller = { served: 0, url: '', close: async () => {} };
    const app = express();
    app.get('/batched', paywall.require({ price: '0.01', description: 'Batched' }), (_req, res) => {
      seller.served += 1;
      res.json({ data: 'sold', payer: paymentOf(res)?.payer });
    });
    const batched = await listen(app);
    seller.url = batched.url;
    seller.close = async () => {
      await close(batched.server);
      batchStore.close();
    };
    return seller;
  }

  /** Two buyers' payments for the batching paywall's fresh terms (headers), as the official client makes them. */
  async function twoPayments(seller: { url: string }) {
    const buyers = [await buyer(), await buyer()];
    const before = { seller: await usdc(baseSeller), buyers: await Promise.all(buyers.map((each) => usdc(each.address))) };
    const headers = await Promise.all(buyers.map((account) => paymentFor(account, seller.url, '/batched').then((made) => made.headers)));
    return { buyers, before, headers };
  }

  it('two payments its facilitator settles in one transaction (Multicall3) are each served once', async () => {
    const seller = await batchingPaywall();
    try {
      const { buyers, before, headers } = await twoPayments(seller);
      const answers = await Promise.all(headers.map((each) => fetch(`${seller.url}/batched`, { headers: each })));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(seller.served).toBe(2);
      expect(await usdc(baseSeller)).toBe(before.seller + micro('0.02'));
      for (const [index, account] of buyers.entries()) expect(await usdc(account.address)).toBe(before.buyers[index]! - micro('0.01'));
    } finally {
      await seller.close();
    }
  });

  it('one of two payments settled in one transaction, its chain read failing, is told to come back (503); each is served once', async () => {
    // The first read of which authorization the transaction ran fails (the node did not answer).
    let failOnce = true;
    const seller = await batchingPaywall((lookup) => ({
      ...lookup,
      ranAuthorization: (...args) => {
        if (!failOnce) return lookup.ranAuthorization(...args);
        failOnce = false;
        return Promise.reject(new Error('the node did not answer'));
      },
    }));
    try {
      const { buyers, before, headers } = await twoPayments(seller);
      const answers = await Promise.all(headers.map((each) => fetch(`${seller.url}/batched`, { headers: each })));
      // Recorded by its transaction alone, the first would have taken the other's answer, whose money moved too.
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503]);
      const again = headers[answers.findIndex((answer) => answer.status === 503)]!;
      expect((await fetch(`${seller.url}/batched`, { headers: again })).status).toBe(200);
      expect(seller.served).toBe(2);
      for (const each of headers) expect((await fetch(`${seller.url}/batched`, { headers: each })).status).toBe(402);
      expect(await usdc(baseSeller)).toBe(before.seller + micro('0.02'));
      for (const [index, account] of buyers.entries()) expect(await usdc(account.address)).toBe(before.buyers[index]! - micro('0.01'));
    } finally {
      await seller.close();
    }
  });

  it('a payment settled while the seller’s node lags its facilitator’s is told to come back (503) until the node has it, then served once', async () => {
    // The seller's node behind the facilitator's: while it lags, it knows no transaction the
    // facilitator sent (a load-balanced RPC's nodes differ).
    let lagging = true;
    const chain = createPublicClient({ chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) });
    const behind = custom({
      request: async ({ method, params }: { method: string; params?: unknown }) =>
        lagging && (method === 'eth_getTransactionReceipt' || method === 'eth_getTransactionByHash')
          ? null
          : chain.request({ method, params } as never),
    });
    const lookup = await evmTransferLookupAt(node.url);
    const laggingLookup = evmTransferLookup(behind, { name: lookup.network, chainId: lookup.chainId, usdc: getAddress(lookup.usdc) });
    const seller = await paywallApi(facilitator, store, undefined, laggingLookup);
    try {
      const account = await buyer();
      const before = { seller: await usdc(baseSeller), buyer: await usdc(account.address) };
      const { headers } = await paymentFor(account, seller.url);
      const servedBefore = served;
      // Settled by the facilitator; which authorization its transaction ran cannot be read here yet.
      expect((await fetch(`${seller.url}/data`, { headers })).status).toBe(503);
      expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
      // Presented again while the node still lags: the facilitator refuses the used authorization,
      // and the transaction it said settled is not known here. Its money moved: not known yet, never "no".
      const again = await fetch(`${seller.url}/data`, { headers });
      expect(again.status).toBe(503);
      expect((await again.json()).code).toBe('verifier_unavailable');
      lagging = false;
      expect((await fetch(`${seller.url}/data`, { headers })).status).toBe(200);
      expect(served).toBe(servedBefore + 1);
      expect((await fetch(`${seller.url}/data`, { headers })).status).toBe(402);
      expect(await usdc(baseSeller)).toBe(before.seller + micro('0.01'));
      expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
    } finally {
      await close(seller.server);
    }
  });

  it('the official v1 x402-fetch buyer pays on base-sepolia', async () => {
    const account = await buyer();
    const before = { buyer: await usdc(account.address), served };
    const signer = await createSigner('base-sepolia', account.key);
    const paid = await wrapFetchWithPaymentV1(fetch, signer)(`${api.url}/data`);
    expect(paid.status).toBe(200);
    expect(served).toBe(before.served + 1);
    expect(await usdc(account.address)).toBe(before.buyer - micro('0.01'));
  });

  describe("Coffer's own buyer", () => {
    let t: TestCoffer;
    beforeAll(async () => {
      t = await startCoffer({ network: cluster.url, baseRpc: node.url });
      const treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base;
      await node.fundEth(treasury, parseEther('1'));
      await node.mint(treasury, micro('10'));
    }, 60_000);
    afterAll(async () => t?.stop());

    it('pays the paywall’s Base terms through /x402, and the seller’s answer settles it', async () => {
      const agent = await deployAgent(t, 'paywall-base', { dailyBudget: '5', maxPerPayment: '1' });
      expect((await t.api('POST', t.withOwner('/v1/agents/paywall-base/allocate'), { body: { amount: '1', rail: 'base' } })).status).toBe(
        200,
      );
      const before = served;
      const sellerBefore = await usdc(baseSeller);
      const unpaid = await fetch(`${api.url}/data`);
      const paid = await t.api('POST', t.withOwner('/v1/agents/paywall-base/x402'), {
        key: agent.apiKey,
        body: { ...(await answerOf(unpaid, `${api.url}/data`)), rail: 'base' },
      });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body).toMatchObject({ rail: 'base', recipient: baseSeller });
      const retried = await fetch(`${api.url}/data`, { headers: { [paid.body.header.name]: paid.body.header.value } });
      expect(retried.status).toBe(200);
      expect(served).toBe(before + 1);
      const headers: Record<string, string> = {};
      retried.headers.forEach((value, name) => (headers[name] = value));
      const settled = await t.api('POST', t.withOwner(`/v1/agents/paywall-base/x402/${paid.body.paymentId}/settlement`), {
        key: agent.apiKey,
        body: { headers },
      });
      const wallet = (await t.api('GET', t.withOwner('/v1/agents/paywall-base/balance'))).body.wallets.base;
      // Settled by the transaction the seller's answer names, which moved the 0.01 on chain.
      const transaction = await settledOnChain(retried, wallet);
      expect(settled.body).toMatchObject({ status: 'confirmed', rail: 'base', txSignature: transaction });
      expect(await usdc(wallet)).toBe(micro('0.99'));
      expect(await usdc(baseSeller)).toBe(sellerBefore + micro('0.01'));
    });
  });
});
