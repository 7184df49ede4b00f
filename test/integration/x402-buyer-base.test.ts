/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read loosely on purpose: the tests assert their shape */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, getAddress, http, parseEther, parseEventLogs, type Address } from 'viem';
import { baseSepolia } from 'viem/chains';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { generateKeyPairSigner } from '@solana/kit';
import { TestCluster } from '../fixtures/test-cluster.js';
import { TestEvmNode } from '../fixtures/test-evm-node.js';
import { outsideAuthorization, startBatcher } from '../fixtures/multicall3.js';
import { answerOf } from '../fixtures/x402-peers.js';
import {
  BASE_SEPOLIA_X402,
  startEvmFacilitator,
  startEvmV1Seller,
  startEvmV2Seller,
  type TestEvmFacilitator,
} from '../fixtures/x402-evm-peers.js';
import type { TestSeller } from '../fixtures/x402-peers.js';
import { deployAgent, micro } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { expectError } from '../helpers/expect-error.js';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { PaymentError } from '../../server/x402/paying-fetch/payment-error.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { x402Networks } from '../../server/chain/solana/networks.js';
import { startBazaarFacilitator } from '../fixtures/bazaar-facilitator.js';
import { startSiwxSeller } from '../fixtures/x402-siwx-seller.js';
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server';
import { parseSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { DEMO_BASE_PAY_TO } from '../../server/demo-api/demo-api.js';
import { x402AuthorizationNonce } from '../../server/chain/evm/authorization.js';
import { writeAgentConfig } from '../../server/linked-agent/agent-config.js';
import { CLI, runCoffer as cli } from '../helpers/serve-process.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Issue 50, point 1: Coffer pays x402 `exact` on Base. The official `@x402/express` (v2) and
 * `x402-express` (v1) sellers settle through the official `@x402/evm` facilitator on a node with Base
 * Sepolia's chain id; Coffer signs the EIP-3009 authorization with the agent's Base account through
 * the official client scheme, within the agent's policy, and settles the payment from the seller's
 * PAYMENT-RESPONSE or from the chain.
 */
/** An EVM address with one letter's case flipped: the same address, in a case that is no EIP-55 checksum. */
const miscased = (address: string): string => {
  const at = address.search(/[a-fA-F]/);
  const letter = address[at]!;
  return `${address.slice(0, at)}${letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()}${address.slice(at + 1)}`;
};

describe('Coffer pays x402 sellers on Base', () => {
  let cluster: TestCluster;
  let node: TestEvmNode;
  let facilitator: TestEvmFacilitator;
  let v2: TestSeller;
  let v1: TestSeller;
  const seller = getAddress(privateKeyToAccount(generatePrivateKey()).address);
  const chain = () => createPublicClient({ chain: baseSepolia, transport: http(node.url, { retryCount: 0 }) });
  const usdc = (account: string) =>
    chain().readContract({ address: node.usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [account as Address] });

  beforeAll(async () => {
    cluster = await new TestCluster({ as: 'devnet' }).start();
    node = await TestEvmNode.start();
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    await cluster?.stop();
  });
  const t = useCoffer(() => ({ network: cluster.url, baseRpc: node.url }));
  let treasury: Address;
  beforeAll(async () => {
    cluster.airdrop(t.owner);
    await cluster.mintUsdc(t.owner, micro('100'));
    treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base;
    await node.fundEth(treasury, parseEther('1'));
    await node.mint(treasury, micro('100'));
    facilitator = await startEvmFacilitator(baseSepolia, node.url, (account) => node.fundEth(account, parseEther('1')));
    v2 = await startEvmV2Seller(facilitator, { payTo: seller, price: '$0.01' });
    v1 = await startEvmV1Seller(facilitator, { payTo: seller, price: '$0.01' });
  }, 60_000);
  afterAll(async () => {
    await v2?.close();
    await v1?.close();
    await facilitator?.close();
  });

  /** An agent with `amount` on Base (and nothing on Solana unless `sol` is given). */
  async function fundedAgent(agentId: string, amount: string, policy: Record<string, unknown> = {}, sol?: string) {
    const agent = await deployAgent(t, agentId, { dailyBudget: '5', maxPerPayment: '1', ...policy });
    const allocated = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount, rail: 'base' } });
    expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
    if (sol !== undefined) {
      expect((await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount: sol } })).status).toBe(200);
    }
    const wallets = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`))).body.wallets as { sol: string; base: Address };
    return { ...agent, base: wallets.base };
  }

  const payX402 = (agentId: string, key: string, answer: unknown, idempotencyKey?: string) =>
    t.api('POST', t.withOwner(`/v1/agents/${agentId}/x402`), {
      key,
      body: answer,
      headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
    });
  const headersOf = (response: Response) => {
    const all: Record<string, string> = {};
    response.headers.forEach((value, name) => (all[name] = value));
    return all;
  };

  it.each([
    ['v2 (@x402/express, PAYMENT-REQUIRED header)', () => v2, 'PAYMENT-SIGNATURE'],
    ['v1 (x402-express, x402Version body)', () => v1, 'X-PAYMENT'],
  ])(
    'pays a %s seller: the agent signs, the facilitator sends and pays gas, the seller serves once',
    async (_label, sellerOf, headerName) => {
      const agentId = `base-${headerName.toLowerCase()}`;
      const agent = await fundedAgent(agentId, '1.00');
      const before = { agent: await usdc(agent.base), seller: await usdc(seller), served: sellerOf().served };

      const unpaid = await fetch(sellerOf().url);
      expect(unpaid.status).toBe(402);
      const paid = await payX402(agentId, agent.apiKey, await answerOf(unpaid, sellerOf().url));
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body).toMatchObject({
        status: 'pending',
        amount: '0.01',
        recipient: seller,
        rail: 'base',
        network: 'base-sepolia',
        txSignature: null,
        header: { name: headerName },
      });

      const retried = await fetch(sellerOf().url, { headers: { [paid.body.header.name]: paid.body.header.value } });
      expect(retried.status).toBe(200);
      expect(sellerOf().served).toBe(before.served + 1);
      // Money moved once, from the agent's Base account to the seller; the agent holds no ETH and paid none.
      expect(await usdc(agent.base)).toBe(before.agent - micro('0.01'));
      expect(await usdc(seller)).toBe(before.seller + micro('0.01'));
      expect(await chain().getBalance({ address: agent.base })).toBe(0n);

      const settled = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/x402/${paid.body.paymentId}/settlement`), {
        key: agent.apiKey,
        body: { headers: headersOf(retried) },
      });
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({ status: 'confirmed', rail: 'base' });
      expect(settled.body.txSignature).toMatch(/^0x[0-9a-f]{64}$/);
      const receipt = await chain().getTransactionReceipt({ hash: settled.body.txSignature });
      expect(getAddress(receipt.from)).toBe(facilitator.account);
      const history = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key: agent.apiKey });
      expect(history.body.payments[0]).toMatchObject({
        status: 'confirmed',
        amount: '0.01',
        rail: 'base',
        txSignature: settled.body.txSignature,
      });

      // The same authorization offered again is refused by the seller: it ran once.
      const replayed = await fetch(sellerOf().url, { headers: { [paid.body.header.name]: paid.body.header.value } });
      expect(replayed.status).toBe(402);
      expect(await usdc(agent.base)).toBe(before.agent - micro('0.01'));
      expect(sellerOf().served).toBe(before.served + 1);
    },
  );

  it('settles from the chain when the seller’s answer is never reported', async () => {
    const agent = await fundedAgent('base-unreported', '1.00');
    const unpaid = await fetch(v2.url);
    const paid = await payX402('base-unreported', agent.apiKey, await answerOf(unpaid, v2.url));
    expect((await fetch(v2.url, { headers: { [paid.body.header.name]: paid.body.header.value } })).status).toBe(200);
    const settled = await t.api('POST', t.withOwner(`/v1/agents/base-unreported/x402/${paid.body.paymentId}/settlement`), {
      key: agent.apiKey,
      body: { headers: {} },
    });
    expect(settled.body.status).toBe('confirmed');
    const found = await chain().getTransactionReceipt({ hash: settled.body.txSignature });
    expect(getAddress(found.from)).toBe(facilitator.account);
    // The transaction found is the one that ran this authorization: its nonce used, 0.01 from the agent to the seller.
    const { nonce } = JSON.parse(Buffer.from(paid.body.header.value, 'base64').toString()).payload.authorization;
    expect(parseEventLogs({ abi: USDC_ABI, logs: found.logs }).map((log) => [log.eventName, log.args])).toEqual([
      ['AuthorizationUsed', { authorizer: getAddress(agent.base), nonce }],
      ['Transfer', { from: getAddress(agent.base), to: seller, value: micro('0.01') }],
    ]);
    expect(await usdc(agent.base)).toBe(micro('0.99'));
    expect((await t.api('GET', t.withOwner('/v1/agents/base-unreported/balance'))).body.balances.base).toBe('0.99');
  });

  it('settles payments a facilitator ran in one transaction (Multicall3): each confirmed with it, ledger == chain', async () => {
    const agents = [await fundedAgent('base-batch-1', '1.00'), await fundedAgent('base-batch-2', '1.00')];
    const sellerBefore = await usdc(seller);
    // Each agent's authorization for the seller, as Coffer hands it out; then sent by a batcher, not the seller.
    const paid = [];
    for (const [index, agent] of agents.entries()) {
      paid.push((await payX402(`base-batch-${index + 1}`, agent.apiKey, await answerOf(await fetch(v2.url), v2.url))).body);
    }
    const batcher = await startBatcher(node);
    const batch = await batcher.run(paid.map((payment) => JSON.parse(Buffer.from(payment.header.value, 'base64').toString()).payload));

    // Each settles from the chain (no seller's answer to report): both confirmed, with the one transaction.
    for (const [index, payment] of paid.entries()) {
      const settled = await t.api('POST', t.withOwner(`/v1/agents/base-batch-${index + 1}/x402/${payment.paymentId}/settlement`), {
        key: agents[index]!.apiKey,
        body: { headers: {} },
      });
      expect([settled.body.status, settled.body.txSignature]).toEqual(['confirmed', batch]);
    }
    expect(await usdc(seller)).toBe(sellerBefore + micro('0.02'));
    for (const [index, agent] of agents.entries()) {
      expect(await usdc(agent.base)).toBe(micro('0.99'));
      // Coffer's own record (the balance above is read from the chain): one confirmed 0.01 payment each.
      const history = await t.api('GET', t.withOwner(`/v1/agents/base-batch-${index + 1}/spend-history`), { key: agent.apiKey });
      expect(history.body.payments.map(({ status, amount, txSignature }: Record<string, string>) => [status, amount, txSignature])).toEqual(
        [['confirmed', '0.01', batch]],
      );
    }
  });

  it('a batch that pays the treasury beside an x402 payment: each transfer to it a deposit of its own, the payment settled', async () => {
    const deposits = async () =>
      (
        (await t.api('GET', t.withOwner('/v1/treasury/deposits'))).body.deposits as {
          rail: string;
          txSignature: string;
          amount: string;
          from: string;
        }[]
      )
        .filter((deposit) => deposit.rail === 'base')
        .map(({ txSignature, amount, from }) => ({ txSignature, amount, from }));
    // What the chain watch found so far (the treasury's funding) is read first: only the batches' deposits are new.
    await t.coffer.engine.pollDeposits(t.owner, ['base']);
    const before = await deposits();
    const outsiders = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
    for (const outsider of outsiders) await node.mint(outsider.address, micro('3'));
    const batcher = await startBatcher(node);
    const agentsAuthorization = async (agentId: string) => {
      const agent = await fundedAgent(agentId, '1.00');
      const paid = (await payX402(agentId, agent.apiKey, await answerOf(await fetch(v2.url), v2.url))).body;
      return { agent, paid, payload: JSON.parse(Buffer.from(paid.header.value, 'base64').toString()).payload };
    };
    const settle = (agentId: string, apiKey: string, paymentId: string) =>
      t.api('POST', t.withOwner(`/v1/agents/${agentId}/x402/${paymentId}/settlement`), { key: apiKey, body: { headers: {} } });

    // The payment settled first, then the deposits read: two senders, one of them twice, in one transaction.
    const first = await agentsAuthorization('base-batch-deposit-1');
    const one = await batcher.run([
      first.payload,
      await outsideAuthorization(node, outsiders[0]!, treasury, micro('1.5')),
      await outsideAuthorization(node, outsiders[1]!, treasury, micro('0.25')),
      await outsideAuthorization(node, outsiders[0]!, treasury, micro('0.5')),
    ]);
    expect([(await settle('base-batch-deposit-1', first.agent.apiKey, first.paid.paymentId)).body.status]).toEqual(['confirmed']);
    await t.coffer.engine.pollDeposits(t.owner, ['base']);
    // Read again: nothing twice.
    await t.coffer.engine.pollDeposits(t.owner, ['base']);
    // The deposits read first, then the payment settled.
    const second = await agentsAuthorization('base-batch-deposit-2');
    const two = await batcher.run([await outsideAuthorization(node, outsiders[1]!, treasury, micro('0.75')), second.payload]);
    await t.coffer.engine.pollDeposits(t.owner, ['base']);
    const settled = await settle('base-batch-deposit-2', second.agent.apiKey, second.paid.paymentId);
    expect([settled.body.status, settled.body.txSignature]).toEqual(['confirmed', two]);

    const added = (await deposits()).filter((deposit) => !before.some((earlier) => JSON.stringify(earlier) === JSON.stringify(deposit)));
    expect(added.sort((a, b) => a.amount.localeCompare(b.amount))).toEqual([
      { txSignature: one, amount: '0.25', from: outsiders[1]!.address },
      { txSignature: one, amount: '0.50', from: outsiders[0]!.address },
      { txSignature: two, amount: '0.75', from: outsiders[1]!.address },
      { txSignature: one, amount: '1.50', from: outsiders[0]!.address },
    ]);
  });

  it('refuses a tampered authorization at the seller: a raised amount moves nothing', async () => {
    const agent = await fundedAgent('base-tamper', '1.00');
    const unpaid = await fetch(v2.url);
    const paid = await payX402('base-tamper', agent.apiKey, await answerOf(unpaid, v2.url));
    const payload = JSON.parse(Buffer.from(paid.body.header.value, 'base64').toString('utf8'));
    payload.payload.authorization.value = '20000';
    const tampered = Buffer.from(JSON.stringify(payload)).toString('base64');
    const before = await usdc(agent.base);
    expect((await fetch(v2.url, { headers: { [paid.body.header.name]: tampered } })).status).toBe(402);
    expect(await usdc(agent.base)).toBe(before);
  });

  it('a seller that takes the paid call and never answers is given up after answerWaitMs: paid_call_failed, the authorization sent once', async () => {
    const agent = await fundedAgent('base-silence', '1.00');
    let paidCalls = 0;
    // The official seller's 402 as it is; the call carrying the payment is taken and never answered.
    const silentAfterPaying = createServer((req, res) => {
      if (req.headers['payment-signature'] !== undefined) {
        paidCalls++;
        return;
      }
      void fetch(v2.url).then(async (answer) => {
        res.writeHead(answer.status, headersOf(answer));
        res.end(await answer.text());
      });
    });
    await new Promise<void>((resolve) => silentAfterPaying.listen(0, '127.0.0.1', resolve));
    const { port } = silentAfterPaying.address() as AddressInfo;
    const before = { agent: await usdc(agent.base), served: v2.served };
    try {
      const url = `http://127.0.0.1:${port}/paid`;
      const error = await payingFetch(url, {}, { agent: agentOf('base-silence', agent.apiKey), answerWaitMs: 500 }).catch((e) => e);
      expect(error).toBeInstanceOf(PaymentError);
      expect({ code: error.code, message: error.message }).toEqual({
        code: 'paid_call_failed',
        message: `paid, but ${url} gave no answer within 0.5 s`,
      });
      expect(error.details.payment).toMatchObject({ protocol: 'x402', rail: 'base', amount: '0.01', status: 'pending' });
      expect(paidCalls).toBe(1);
      // Never settled: nothing moved, the seller served nothing.
      expect({ agent: await usdc(agent.base), served: v2.served }).toEqual(before);
    } finally {
      silentAfterPaying.closeAllConnections();
      await new Promise((resolve) => silentAfterPaying.close(resolve));
    }
  });

  describe('an offer payable on both rails', () => {
    /** The owner's preferred rail (settings), set for a test and set back to none after it. */
    const setPreferred = (preferredRail: string | null) => t.api('POST', t.withOwner('/v1/settings'), { body: { preferredRail } });
    const both = async (payTo: { sol: string; base: string }, amount = '10000') => {
      const solana = x402Networks('devnet')!;
      const feePayer = (await generateKeyPairSigner()).address;
      const required = {
        x402Version: 2,
        resource: { url: 'http://seller.example/both', description: 'data', mimeType: 'application/json' },
        accepts: [
          {
            scheme: 'exact',
            network: solana.v2,
            amount,
            asset: cluster.mint.address,
            payTo: payTo.sol,
            maxTimeoutSeconds: 60,
            extra: { feePayer },
          },
          {
            scheme: 'exact',
            network: BASE_SEPOLIA_X402.v2,
            amount,
            asset: node.usdc,
            payTo: payTo.base,
            maxTimeoutSeconds: 60,
            extra: { name: 'USDC', version: '2' },
          },
        ],
      };
      // v2 offers come in the PAYMENT-REQUIRED header.
      const header = () => Buffer.from(JSON.stringify(required)).toString('base64');
      return {
        required,
        answer: () => ({ url: 'http://seller.example/both', status: 402, headers: { 'payment-required': header() }, body: {} }),
      };
    };

    it('pays on the rail whose wallet holds the amount, or on the rail asked for', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller });
      const onBase = await fundedAgent('both-base-funds', '1.00');
      const paidOnBase = await payX402('both-base-funds', onBase.apiKey, offer.answer());
      expect(paidOnBase.status, JSON.stringify(paidOnBase.body)).toBe(200);
      expect(paidOnBase.body).toMatchObject({ rail: 'base', recipient: seller });

      const onBoth = await fundedAgent('both-rails-funds', '1.00', {}, '1.00');
      const first = await payX402('both-rails-funds', onBoth.apiKey, offer.answer());
      expect(first.body).toMatchObject({ rail: 'sol', recipient: solSeller });
      const asked = await payX402('both-rails-funds', onBoth.apiKey, { ...offer.answer(), rail: 'base' });
      expect(asked.body).toMatchObject({ rail: 'base', recipient: seller });
    });

    it('signs in with the account on the rail asked for where the agent paid the seller on both; else where it paid', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller });
      const solana = x402Networks('devnet')!;
      // The seller lets in a wallet that paid it on either chain (SIWx, as @x402/extensions writes it).
      const info = {
        domain: 'seller.example',
        uri: 'http://seller.example/both',
        version: '1',
        nonce: 'a1b2c3d4e5f6a7b8',
        issuedAt: new Date().toISOString(),
      };
      const required = {
        ...offer.required,
        extensions: {
          'sign-in-with-x': {
            info,
            supportedChains: [
              { chainId: solana.v2, type: 'ed25519' },
              { chainId: BASE_SEPOLIA_X402.v2, type: 'eip191' },
            ],
          },
        },
      };
      const challenge = (rail?: 'sol' | 'base') => ({
        url: 'http://seller.example/both',
        status: 402,
        headers: { 'payment-required': Buffer.from(JSON.stringify(required)).toString('base64') },
        body: {},
        ...(rail === undefined ? {} : { rail }),
      });
      const agent = await fundedAgent('siwx-both', '1.00', {}, '1.00');
      const solWallet = (await t.api('GET', t.withOwner('/v1/agents/siwx-both/balance'))).body.wallets.sol as string;
      const signIn = (rail?: 'sol' | 'base') =>
        t.api('POST', t.withOwner('/v1/agents/siwx-both/x402/sign-in'), { key: agent.apiKey, body: challenge(rail) });

      // Paid on Solana only: its Solana account proves it, whichever rail is asked.
      expect((await payX402('siwx-both', agent.apiKey, offer.answer())).body).toMatchObject({ rail: 'sol' });
      expect((await signIn('base')).body).toMatchObject({ address: solWallet, chainId: solana.v2 });
      // Paid on both: the rail asked for, else the first this Coffer proves (Solana).
      expect((await payX402('siwx-both', agent.apiKey, { ...offer.answer(), rail: 'base' })).body).toMatchObject({ rail: 'base' });
      const onBase = await signIn('base');
      expect(onBase.status, JSON.stringify(onBase.body)).toBe(200);
      expect(onBase.body).toMatchObject({ address: agent.base, chainId: BASE_SEPOLIA_X402.v2 });
      expect(parseSIWxHeader(onBase.body.header.value)).toMatchObject({ address: agent.base, type: 'eip191' });
      expect((await signIn('sol')).body).toMatchObject({ address: solWallet, chainId: solana.v2 });
      expect((await signIn()).body).toMatchObject({ address: solWallet, chainId: solana.v2 });
    });

    it('refused for want of funds on both, says what each rail holds', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller }, '600000');
      const agent = await fundedAgent('both-short', '0.50', {}, '0.25');
      const refused = await payX402('both-short', agent.apiKey, offer.answer());
      expectError(refused, 402, 'insufficient_funds');
      expect(refused.body.error).toBe(
        "the agent's wallet holds 0.25 USDC available on Solana, less than 0.60; on Base, where the offer is payable too, 0.50 USDC available",
      );
    });

    it('refused for want of funds on the rail asked for, says the offer is payable on the other', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller }, '600000');
      // Enough on Solana, not on Base: asked for Base, refused there, and told where else it is payable.
      const agent = await fundedAgent('asked-short', '0.50', {}, '1.00');
      const refused = await payX402('asked-short', agent.apiKey, { ...offer.answer(), rail: 'base' });
      expectError(refused, 402, 'insufficient_funds');
      expect(refused.body.error).toBe(
        "the agent's wallet holds 0.50 USDC available on Base, less than 0.60; the offer is payable on Solana too, with no rail asked",
      );
      // And without the rail, it is paid there.
      const paid = await payX402('asked-short', agent.apiKey, offer.answer());
      expect(paid.body).toMatchObject({ rail: 'sol', recipient: solSeller, amount: '0.60' });
    });

    it('approved on one rail and short there when picked up, says the yes is for that rail, not that no rail was asked', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller }, '600000');
      const agent = await fundedAgent('approved-short', '0.70', { askAbove: '0' }, '1.00');
      const held = await payX402('approved-short', agent.apiKey, { ...offer.answer(), rail: 'base' });
      expect(held.status, JSON.stringify(held.body)).toBe(202);
      await t.api('POST', t.withOwner(`/v1/approvals/${held.body.approvalId}/approve`));
      const returned = await t.api('POST', t.withOwner('/v1/agents/approved-short/return'), { body: { amount: '0.20', rail: 'base' } });
      expect(returned.status, JSON.stringify(returned.body)).toBe(200);
      // Picked up without a rail: the yes holds it to Base, where the wallet is now short.
      const refused = await payX402('approved-short', agent.apiKey, { ...offer.answer(), approvalId: held.body.approvalId });
      expectError(refused, 402, 'insufficient_funds');
      expect(refused.body.error).toBe(
        "the agent's wallet holds 0.50 USDC available on Base, less than 0.60; the owner's yes is for Base: on Solana, where the offer is payable too, it is a purchase asked anew, without the approvalId",
      );
      // Picked up naming the rail of the yes: the same words (dropping the rail would not move it).
      const named = await payX402('approved-short', agent.apiKey, { ...offer.answer(), approvalId: held.body.approvalId, rail: 'base' });
      expectError(named, 402, 'insufficient_funds');
      expect(named.body.error).toBe(refused.body.error);
    });

    it("paid at once beyond one rail's funds: each purchase the two wallets hold between them is paid, on the other rail where one runs short", async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      // 0.40 each: each wallet holds two of them, not three. Chosen by funds read before any of them
      // is reserved, several pick the same rail; the reservation there refuses the third.
      const offer = await both({ sol: solSeller, base: seller }, '400000');
      const agent = await fundedAgent('both-at-once', '1.00', {}, '1.00');
      const answers = await Promise.all(Array.from({ length: 4 }, () => payX402('both-at-once', agent.apiKey, offer.answer())));
      for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answers.map((answer) => answer.body.rail).sort()).toEqual(['base', 'base', 'sol', 'sol']);
      // No refusal was written for the owner, and none counted toward the breaker.
      const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
      expect(dashboard.recentRefusals.filter((refusal: any) => refusal.agent === 'both-at-once')).toEqual([]);
      const listed = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents;
      expect(listed.find((row: any) => row.agentId === 'both-at-once')).toMatchObject({ status: 'active' });
      // A fifth finds neither wallet holding 0.40 free, and says what each holds.
      const fifth = await payX402('both-at-once', agent.apiKey, offer.answer());
      expectError(fifth, 402, 'insufficient_funds');
      expect(fifth.body.error).toMatch(/on Base, where the offer is payable too, 0\.20 USDC available$/);
    });

    it("refused on the other rail for what holds there alone, the first rail's want of funds is said and kept", async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller }, '400000');
      // Only the Solana recipient is allowed: the Base one is refused by the policy, on Base alone.
      const agent = await fundedAgent('sol-seller-only', '1.00', { allowedServices: [solSeller] }, '1.00');
      const answers = await Promise.all(Array.from({ length: 3 }, () => payX402('sol-seller-only', agent.apiKey, offer.answer())));
      expect(answers.filter((answer) => answer.status === 200).map((answer) => answer.body.rail)).toEqual(['sol', 'sol']);
      // The third ran short on Solana; Base's refusal (its recipient not allowed) is not the agent's to act on.
      const [refused] = answers.filter((answer) => answer.status !== 200);
      expectError(refused!, 402, 'insufficient_funds');
      expect(refused!.body.error).toMatch(/available on Solana, less than 0\.40/);
      const kept = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals.filter(
        (refusal: any) => refusal.agent === 'sol-seller-only',
      );
      expect(kept.map((refusal: any) => [refusal.code, refusal.rail])).toEqual([['insufficient_funds', 'sol']]);
    });

    it("pays on the owner's preferred rail where it holds the funds, else where the funds are", async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller }, '600000');
      try {
        expect((await setPreferred('base')).body).toMatchObject({ preferredRail: 'base' });
        const agent = await fundedAgent('prefers-base', '1.00', {}, '1.00');
        // Funded on both: Base, as the owner prefers (Solana would be first otherwise).
        expect((await payX402('prefers-base', agent.apiKey, offer.answer())).body).toMatchObject({ rail: 'base', recipient: seller });
        // Base now holds 0.40 free beside the pending 0.60: the funds choose Solana.
        expect((await payX402('prefers-base', agent.apiKey, offer.answer())).body).toMatchObject({ rail: 'sol', recipient: solSeller });

        expect((await setPreferred('sol')).body).toMatchObject({ preferredRail: 'sol' });
        const other = await fundedAgent('prefers-sol', '1.00', {}, '1.00');
        expect((await payX402('prefers-sol', other.apiKey, offer.answer())).body).toMatchObject({ rail: 'sol' });
        // The agent's own `rail` is the agent's: asked, it outweighs the owner's preference.
        expect((await payX402('prefers-sol', other.apiKey, { ...offer.answer(), rail: 'base' })).body).toMatchObject({ rail: 'base' });
      } finally {
        await setPreferred(null);
      }
    });

    it('a retry under its key answers the purchase made, though the funds now choose the other rail, whose memo differs', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller });
      const [onSol, onBase] = offer.required.accepts;
      Object.assign(onSol!.extra, { memo: 'challenge-on-solana' });
      Object.assign(onBase!.extra, { memo: 'challenge-on-base' });
      try {
        // Funded on Base alone: paid there.
        const agent = await fundedAgent('memo-per-rail', '1.00');
        const paid = await payX402('memo-per-rail', agent.apiKey, offer.answer(), 'k');
        expect(paid.body).toMatchObject({ rail: 'base', recipient: seller });
        // Funded on Solana since, which the owner now prefers: the same request is the same purchase.
        expect((await t.api('POST', t.withOwner('/v1/agents/memo-per-rail/allocate'), { body: { amount: '1.00' } })).status).toBe(200);
        expect((await setPreferred('sol')).body).toMatchObject({ preferredRail: 'sol' });
        const again = await payX402('memo-per-rail', agent.apiKey, offer.answer(), 'k');
        expect([again.status, again.body.paymentId]).toEqual([200, paid.body.paymentId]);
      } finally {
        await setPreferred(null);
      }
    });

    it("an offer whose other entry names another token is refused in the signing's words, not its own-wallet entry's", async () => {
      const agent = await fundedAgent('own-and-unsignable', '1.00');
      const offer = await both({ sol: (await generateKeyPairSigner()).address, base: seller });
      const [, onBase] = offer.required.accepts;
      offer.required.accepts = [
        { ...onBase!, payTo: agent.base, amount: '1' },
        { ...onBase!, extra: { name: 'USD Coin', version: '2' } },
      ] as typeof offer.required.accepts;
      const refused = await payX402('own-and-unsignable', agent.apiKey, offer.answer());
      expectError(refused, 422, 'unsupported_offer');
      expect(refused.body.error).toMatch(/^the x402 offer names the token "USD Coin" version 2/);
    });

    it('a challenge paid on one rail is paid: asked again on the other rail, it is nonce_already_paid', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller });
      for (const entry of offer.required.accepts) Object.assign(entry.extra, { memo: 'challenge-on-both' });
      // Funded on Base alone: paid there.
      const agent = await fundedAgent('memo-both-rails', '1.00');
      const paid = await payX402('memo-both-rails', agent.apiKey, offer.answer());
      expect(paid.body).toMatchObject({ rail: 'base', recipient: seller });
      expect((await t.api('POST', t.withOwner('/v1/agents/memo-both-rails/allocate'), { body: { amount: '1.00' } })).status).toBe(200);
      const onSolana = await payX402('memo-both-rails', agent.apiKey, { ...offer.answer(), rail: 'sol' });
      expectError(onSolana, 409, 'nonce_already_paid');
      expect(onSolana.body.error).toContain(paid.body.paymentId);
    });

    it("pays on the other rail where the preferred rail's entry is one the agent's policy refuses", async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller });
      try {
        expect((await setPreferred('base')).body).toMatchObject({ preferredRail: 'base' });
        // Allowed to pay the Solana seller only: the owner's Base, funded, would be refused.
        const agent = await fundedAgent('allowed-on-sol', '1.00', { allowedServices: [solSeller] }, '1.00');
        const paid = await payX402('allowed-on-sol', agent.apiKey, offer.answer());
        expect(paid.status, JSON.stringify(paid.body)).toBe(200);
        expect(paid.body).toMatchObject({ rail: 'sol', recipient: solSeller });
      } finally {
        await setPreferred(null);
      }
    });

    it('pays on Solana while the Base node does not answer, whatever the owner prefers: an unread wallet is not chosen', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller });
      const agent = await fundedAgent('base-node-away', '1.00', {}, '1.00');
      try {
        expect((await setPreferred('base')).body).toMatchObject({ preferredRail: 'base' });
        node.offline = true;
        const paid = await payX402('base-node-away', agent.apiKey, offer.answer());
        expect(paid.status, JSON.stringify(paid.body)).toBe(200);
        expect(paid.body).toMatchObject({ rail: 'sol', recipient: solSeller });
        // Asked for Base, it is Base's node that decides: not known now, nothing paid.
        const onBase = await payX402('base-node-away', agent.apiKey, { ...offer.answer(), rail: 'base' });
        expect([onBase.status, onBase.body.code]).toEqual([502, 'chain_unavailable']);
      } finally {
        node.offline = false;
        await setPreferred(null);
      }
    });

    it('passes over a Permit2 entry on Base: the Solana one is paid whatever the owner prefers, or a Base one by EIP-3009 after it', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const permit2 = { extra: { name: 'USDC', version: '2', assetTransferMethod: 'permit2' } };
      try {
        expect((await setPreferred('base')).body).toMatchObject({ preferredRail: 'base' });
        const agent = await fundedAgent('permit2-offered', '1.00', {}, '1.00');
        const offer = await both({ sol: solSeller, base: seller });
        Object.assign(offer.required.accepts[1]!, permit2);
        const paid = await payX402('permit2-offered', agent.apiKey, offer.answer());
        expect(paid.status, JSON.stringify(paid.body)).toBe(200);
        expect(paid.body).toMatchObject({ rail: 'sol', recipient: solSeller });
        // Asked for on Base, it is refused in words, nothing signed.
        const refused = await payX402('permit2-offered', agent.apiKey, { ...offer.answer(), rail: 'base' });
        expectError(refused, 422, 'unsupported_offer');
        // Why, in words: the entry on Base is offered by Permit2.
        expect(refused.body.error).toMatch(
          /on eip155:84532 in \S+ by permit2 \(Coffer signs EIP-3009 where an offer says "eip3009" or names no method\)/,
        );
        // Another spelling is not guessed at, and said without seeming to contradict itself (helper 184: "by
        // EIP3009 (Coffer pays by EIP-3009 …)").
        const spelledOtherwise = await both({ sol: solSeller, base: seller });
        Object.assign(spelledOtherwise.required.accepts[1]!, { extra: { ...permit2.extra, assetTransferMethod: 'EIP3009' } });
        const otherwise = await payX402('permit2-offered', agent.apiKey, { ...spelledOtherwise.answer(), rail: 'base' });
        expect(otherwise.body.error).toMatch(/ by EIP3009 \(Coffer signs EIP-3009 where an offer says "eip3009" or names no method\)/);
        // Offered on Base both ways, Permit2 first: paid by EIP-3009.
        const twice = await both({ sol: solSeller, base: seller });
        twice.required.accepts = [
          { ...twice.required.accepts[1]!, ...permit2 } as (typeof twice.required.accepts)[number],
          twice.required.accepts[1]!,
        ];
        const onBase = await payX402('permit2-offered', agent.apiKey, twice.answer());
        expect(onBase.status, JSON.stringify(onBase.body)).toBe(200);
        expect(onBase.body).toMatchObject({ rail: 'base', recipient: seller });
        const history = await t.api('GET', t.withOwner('/v1/agents/permit2-offered/spend-history'), { key: agent.apiKey });
        expect(history.body.payments.map((payment: any) => payment.rail).sort()).toEqual(['base', 'sol']);
      } finally {
        await setPreferred(null);
      }
    });

    it('passes over a Base entry the token would not honour (another EIP-712 name or version) before anything is held', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      try {
        await setPreferred('base');
        // Held above 0.005: a purchase the owner would be asked about, then refused at the buy.
        const agent = await fundedAgent('misnamed-token', '1.00', { askAbove: '0.005' }, '1.00');
        for (const unsignable of [{ extra: { name: 'USD Coin', version: '2' } }, { extra: { name: 'USDC', version: '1' } }]) {
          const offer = await both({ sol: solSeller, base: seller });
          Object.assign(offer.required.accepts[1]!, unsignable);
          // Payable on Solana: chosen there though the owner prefers Base (held there, on Solana).
          const held = await payX402('misnamed-token', agent.apiKey, offer.answer());
          expect(held.status, JSON.stringify(held.body)).toBe(202);
          expect(held.body.request).toMatchObject({ rail: 'sol', recipient: solSeller });
          // Asked for on Base: refused in words, nothing held or signed.
          const refused = await payX402('misnamed-token', agent.apiKey, { ...offer.answer(), rail: 'base' });
          expectError(refused, 422, 'unsupported_offer');
          expect(refused.body.error).toMatch(
            /^the x402 offer names the token "USDC?( Coin)?" version [12]; this chain's USDC is "USDC" version 2$/,
          );
        }
        const history = await t.api('GET', t.withOwner('/v1/agents/misnamed-token/spend-history'), { key: agent.apiKey });
        expect(history.body.payments.map((payment: any) => [payment.rail, payment.status])).toEqual([
          ['sol', 'held'],
          ['sol', 'held'],
        ]);
      } finally {
        await setPreferred(null);
      }
    });

    it('hands a stopped agent no unsent authorization again: its retry is refused, the settlement report shows no header', async () => {
      const agent = await fundedAgent('base-stopped-retry', '1.00');
      const offer = await answerOf(await fetch(v2.url), v2.url);
      const first = await payX402('base-stopped-retry', agent.apiKey, offer, 'stopped-1');
      expect(first.body).toMatchObject({ status: 'pending', header: { name: 'PAYMENT-SIGNATURE' } });
      // Counted against the budget, said apart as not settled yet (helpers 185, 190: "spent" alone).
      const policy = await t.api('GET', t.withOwner('/v1/agents/base-stopped-retry/policy'));
      expect(policy.body).toMatchObject({ spent24h: first.body.amount, pending24h: first.body.amount, held24h: '0.00' });
      const killed = await t.api('POST', t.withOwner('/v1/agents/base-stopped-retry/kill'));
      expect(killed.status).toBe(200);
      // The stop says what it cannot take back: the authorization handed out, a seller may settle until its validBefore.
      const signed = JSON.parse(Buffer.from(first.body.header.value, 'base64').toString()).payload.authorization;
      expect(killed.body.stillLanding).toEqual({
        payments: 1,
        amount: first.body.amount,
        // Whose (helper 190: a stop of all named none, and counted one stopped before).
        agents: ['base-stopped-retry'],
        until: new Date(Number(signed.validBefore) * 1000).toISOString(),
      });
      // The authorization the first answer carried is not handed out again while the agent is stopped.
      const again = await payX402('base-stopped-retry', agent.apiKey, offer, 'stopped-1');
      expectError(again, 403, 'agent_suspended');
      expect(again.body.error).toContain(first.body.paymentId);
      const reported = await t.api('POST', t.withOwner(`/v1/agents/base-stopped-retry/x402/${first.body.paymentId}/settlement`), {
        key: agent.apiKey,
        body: { headers: {} },
      });
      expect(reported.body).toMatchObject({ paymentId: first.body.paymentId, status: 'pending', header: null });
      // Resumed, the agent's retry answers its payment as before.
      expect((await t.api('POST', t.withOwner('/v1/agents/base-stopped-retry/resume'))).status).toBe(200);
      const resumed = await payX402('base-stopped-retry', agent.apiKey, offer, 'stopped-1');
      expect(resumed.body).toMatchObject({ paymentId: first.body.paymentId, header: first.body.header });
    });

    it('answers a retry under its Idempotency-Key with the same payment, its asset spelled in any case', async () => {
      const agent = await fundedAgent('asset-case-retry', '1.00');
      const offer = await both({ sol: (await generateKeyPairSigner()).address, base: seller });
      offer.required.accepts = offer.required.accepts.slice(1);
      const first = await payX402('asset-case-retry', agent.apiKey, offer.answer(), 'case-1');
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      offer.required.accepts[0]!.asset = node.usdc.toLowerCase() as typeof node.usdc;
      const again = await payX402('asset-case-retry', agent.apiKey, offer.answer(), 'case-1');
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ paymentId: first.body.paymentId, header: first.body.header });
    });

    it('answers a retry under its Idempotency-Key with the same payment, whichever rail holds the funds now', async () => {
      const solSeller = (await generateKeyPairSigner()).address;
      await cluster.mintUsdc(solSeller, 0n);
      const offer = await both({ sol: solSeller, base: seller }, '600000');
      const agent = await fundedAgent('both-retry', '5.00', { maxPerPayment: '1' }, '1.00');
      const first = await payX402('both-retry', agent.apiKey, offer.answer(), 'retry-1');
      expect(first.body).toMatchObject({ rail: 'sol' });
      // Solana's wallet now has 0.40 free beside the pending 0.60: a fresh choice would be Base.
      const again = await payX402('both-retry', agent.apiKey, offer.answer(), 'retry-1');
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body).toMatchObject({ paymentId: first.body.paymentId, rail: 'sol', header: first.body.header });
    });

    it('refuses an amount not written as a decimal in one spelling (a leading zero), signing nothing', async () => {
      const agent = await fundedAgent('zero-led-offer', '1.00');
      const offer = await both({ sol: (await generateKeyPairSigner()).address, base: seller }, '010000');
      offer.required.accepts = offer.required.accepts.slice(1);
      // It was judged as 0.01 and refused by the signed payload's read-back: 500 internal.
      const refused = await payX402('zero-led-offer', agent.apiKey, offer.answer());
      expectError(refused, 422, 'unsupported_offer');
      expect(refused.body.error).toMatch(/the seller offers exact on eip155:84532 in \S+ \(its amount unreadable\)$/);
      expect((await t.api('GET', t.withOwner('/v1/agents/zero-led-offer/spend-history'), { key: agent.apiKey })).body.payments).toEqual([]);
    });

    it('refuses in words an entry no payment can go to, and a memo that is no text, signing nothing', async () => {
      const agent = await fundedAgent('odd-recipients', '1.00');
      const cases: [string, (entry: Record<string, unknown>) => void, number, string, RegExp][] = [
        ['the zero address', (entry) => (entry.payTo = `0x${'0'.repeat(40)}`), 422, 'unsupported_offer', /in \S+ \(to the zero address\)$/],
        ["the token's own contract", (entry) => (entry.payTo = node.usdc), 422, 'unsupported_offer', /\(to the token's own contract\)$/],
        ['an amount of 0', (entry) => (entry.amount = '0'), 422, 'unsupported_offer', /in \S+ \(an amount of 0\)$/],
        ['a payTo that is no address', (entry) => (entry.payTo = 'hello'), 422, 'unsupported_offer', /\(its payTo not an EVM address\)$/],
        [
          // An address, mistyped or not: said as the asset's is, so the seller knows what to mend.
          'a payTo in a letter case that is no checksum',
          (entry) => (entry.payTo = miscased(seller)),
          422,
          'unsupported_offer',
          /\(its payTo in a letter case that is no checksum, as a mistyped address's would be\)$/,
        ],
        [
          "USDC's address in a letter case that is no checksum",
          (entry) => (entry.asset = miscased(node.usdc)),
          422,
          'unsupported_offer',
          new RegExp(`\\(this network's USDC in a letter case that is no checksum; ${node.usdc}\\)$`),
        ],
        [
          'another token',
          (entry) => (entry.asset = `0x${'cd'.repeat(20)}`),
          422,
          'unsupported_offer',
          new RegExp(`in 0x(cd){20} \\(not this network's USDC, ${node.usdc}\\)$`),
        ],
        // On a network this Coffer does not pay, the network is why: nothing is said of its payTo.
        [
          'the zero address on another network',
          (entry) => Object.assign(entry, { network: 'eip155:1', payTo: `0x${'0'.repeat(40)}` }),
          422,
          'unsupported_offer',
          /the seller offers exact on eip155:1 in \S+(?!.*zero address)/,
        ],
        [
          "the agent's own account",
          (entry) => (entry.payTo = agent.base),
          422,
          'unsupported_offer',
          /^the x402 offer pays this agent's own wallet on Base/,
        ],
        [
          'a memo that is a number',
          (entry) => (entry.extra = { name: 'USDC', version: '2', memo: 12345 }),
          422,
          'unsupported_offer',
          /\(its extra\.memo not text\)$/,
        ],
      ];
      for (const [what, change, status, code, words] of cases) {
        const offer = await both({ sol: (await generateKeyPairSigner()).address, base: seller });
        offer.required.accepts = offer.required.accepts.slice(1);
        change(offer.required.accepts[0] as unknown as Record<string, unknown>);
        const refused = await payX402('odd-recipients', agent.apiKey, offer.answer());
        expect([refused.status, refused.body.code], what).toEqual([status, code]);
        expect(refused.body.error, what).toMatch(words);
      }
      expect((await t.api('GET', t.withOwner('/v1/agents/odd-recipients/spend-history'), { key: agent.apiKey })).body.payments).toEqual([]);
    });

    it('says a PAYMENT-REQUIRED header it cannot read is there, not that the answer has none', async () => {
      const agent = await fundedAgent('unreadable-header', '1.00');
      for (const header of ['not base64 at all!', Buffer.from('{"x402Version": 2,').toString('base64')]) {
        const refused = await payX402('unreadable-header', agent.apiKey, {
          url: 'http://seller.example/x',
          status: 402,
          headers: { 'payment-required': header },
        });
        expectError(refused, 400, 'unreadable_402');
        expect(refused.body.error).toBe(
          'the x402 offer does not follow the protocol: its PAYMENT-REQUIRED header is not base64-encoded JSON',
        );
      }
      // Sent twice (joined by a comma, as fetch joins a header's copies): the same terms are those
      // terms, paid; different ones are said to differ, nothing paid.
      const offer = await both({ sol: (await generateKeyPairSigner()).address, base: seller });
      offer.required.accepts = offer.required.accepts.slice(1);
      const once = offer.answer().headers['payment-required'];
      const twice = await payX402('unreadable-header', agent.apiKey, {
        ...offer.answer(),
        // A trailing comma (an empty copy) is no other terms.
        headers: { 'payment-required': `${once}, ${once}, ` },
      });
      expect([twice.status, twice.body.rail], JSON.stringify(twice.body)).toEqual([200, 'base']);
      offer.required.accepts[0]!.amount = '20000';
      const other = offer.answer().headers['payment-required'];
      const differing = await payX402('unreadable-header', agent.apiKey, {
        ...offer.answer(),
        headers: { 'PAYMENT-REQUIRED': once, 'payment-required': other },
      });
      expectError(differing, 400, 'unreadable_402');
      expect(differing.body.error).toBe(
        'the x402 offer does not follow the protocol: its PAYMENT-REQUIRED header is sent 2 times with different terms',
      );
      // v2's terms in the body alone: the seller's mistake named, not only "no v1 body".
      const inBody = await payX402('unreadable-header', agent.apiKey, {
        url: 'http://seller.example/x',
        status: 402,
        headers: {},
        body: offer.required,
      });
      expectError(inBody, 400, 'unreadable_402');
      expect(inBody.body.error).toMatch(/its body holds x402 v2 terms, which v2 sends in the PAYMENT-REQUIRED header/);
    });

    it('refuses in words a rail the offer cannot be paid on, signing nothing', async () => {
      const agent = await fundedAgent('base-only-offer', '1.00');
      const offer = await both({ sol: (await generateKeyPairSigner()).address, base: seller });
      offer.required.accepts = offer.required.accepts.slice(1);
      const refused = await payX402('base-only-offer', agent.apiKey, { ...offer.answer(), rail: 'sol' });
      expectError(refused, 422, 'unsupported_offer');
      expect(refused.body.error).toMatch(
        /^on Solana, the rail asked: Coffer pays x402 "exact" in USDC on solana:\S+; the seller offers exact on eip155:84532\S* in \S+; it is payable on Base, with no rail asked$/,
      );
      expect((await t.api('GET', t.withOwner('/v1/agents/base-only-offer/spend-history'), { key: agent.apiKey })).body.payments).toEqual(
        [],
      );
    });
  });

  it('payingFetch buys from the v2 seller on Base and reports the settlement', async () => {
    const agent = await fundedAgent('base-paying-fetch', '1.00');
    const { response, payment, settlement } = await payingFetch(
      v2.url,
      {},
      { agent: { cofferUrl: t.url, owner: t.owner, agentId: 'base-paying-fetch', apiKey: agent.apiKey } },
    );
    expect(response.status).toBe(200);
    expect(payment).toMatchObject({ protocol: 'x402', amount: '0.01' });
    expect(await settlement).toMatchObject({ status: 'confirmed', txSignature: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  });

  it('payingFetch: the x402 refusal that stopped the agent says so in its details, as a Coffer 402 refusal does', async () => {
    const agent = await fundedAgent('base-trips', '1.00', { maxPerPayment: '0.001', breaker: { refusals: { count: 1, minutes: 5 } } });
    const servedBefore = v2.served;
    const refused = await payingFetch(v2.url, {}, { agent: agentOf('base-trips', agent.apiKey) }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PaymentError);
    expect(refused).toMatchObject({
      code: 'payment_refused',
      details: {
        cofferCode: 'max_per_payment_exceeded',
        agentStopped: { reason: 'its breaker tripped: 1 refused payment within 5 minutes' },
      },
    });
    expect(v2.served).toBe(servedBefore);
  });

  const agentOf = (agentId: string, apiKey: string) => ({ cofferUrl: t.url, owner: t.owner, agentId, apiKey });
  const pendingApprovals = async (agentId: string) => {
    for (let i = 0; i < 100; i += 1) {
      const waiting = ((await t.api('GET', t.withOwner('/v1/approvals?status=pending'))).body.approvals as any[]).filter(
        (approval) => approval.agentId === agentId,
      );
      if (waiting.length > 0) return waiting;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return [];
  };

  it.each([
    ['v2', () => v2],
    ['v1', () => v1],
  ])('a %s purchase held for the owner: denied, nothing is signed; approved, it is bought once on Base', async (label, sellerOf) => {
    const agentId = `base-held-${label}`;
    const agent = await fundedAgent(agentId, '1.00', { askAbove: '0' });
    const before = { agent: await usdc(agent.base), served: sellerOf().served };
    // Denied: payingFetch fails saying so; no authorization was made (the agent's account's nonce space untouched).
    const denied = payingFetch(sellerOf().url, {}, { agent: agentOf(agentId, agent.apiKey) });
    const first = await pendingApprovals(agentId);
    expect(first).toHaveLength(1);
    expect(first[0].request).toMatchObject({ amount: '0.01', recipient: seller, reason: { code: 'ask_above' } });
    await t.api('POST', t.withOwner(`/v1/approvals/${first[0].approvalId}/deny`));
    await expect(denied).rejects.toMatchObject({ code: 'payment_refused', details: { cofferCode: 'payment_denied' } });
    const heldRow = t.coffer.db
      .prepare(
        'SELECT (SELECT wire FROM transfer_wires w WHERE w.id = transfers.id) AS txWire, payer_signature AS nonce FROM transfers WHERE id = ?',
      )
      .get(first[0].paymentId);
    expect(heldRow).toEqual({ txWire: null, nonce: null });

    const buying = payingFetch(sellerOf().url, {}, { agent: agentOf(agentId, agent.apiKey) });
    const second = await pendingApprovals(agentId);
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${second[0].approvalId}/approve`))).body.status).toBe('approved');
    const { response, settlement } = await buying;
    expect(response.status).toBe(200);
    expect(await settlement).toMatchObject({ rail: 'base', network: 'base-sepolia', status: 'confirmed', paymentId: second[0].paymentId });
    expect(sellerOf().served).toBe(before.served + 1);
    // Signed with the nonce of the payment held (its id kept when approved): approved again, in a
    // Coffer restored from a file written before, it could not run twice (helper 196).
    const paidRow = t.coffer.db.prepare('SELECT payer_signature AS nonce FROM transfers WHERE id = ?').get(second[0].paymentId);
    expect(paidRow).toEqual({ nonce: x402AuthorizationNonce(seller, second[0].paymentId) });
    expect(await usdc(agent.base)).toBe(before.agent - micro('0.01'));
  });

  it('two pick-ups of one approved purchase at once: one payment; the call the seller refused says it was made, not given back', async () => {
    const agentId = 'base-held-twice';
    const agent = await fundedAgent(agentId, '1.00', { askAbove: '0' });
    const before = { agent: await usdc(agent.base) };
    const held = await payX402(agentId, agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect(held.status).toBe(202);
    const { approvalId } = held.body;
    await t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/approve`));
    const pickUp = () =>
      payingFetch(v2.url, {}, { agent: agentOf(agentId, agent.apiKey), approvalId }).then(
        async (paid) => ({ status: paid.response.status, settled: await paid.settlement }),
        (error: unknown) => error,
      );
    const answers = await Promise.all([pickUp(), pickUp()]);
    // The seller answers one (its handler may run for both: the official middleware settles after it,
    // and refuses the second's settlement); the payment is one, whichever call carried it.
    expect(answers.filter((answer) => (answer as { status?: number }).status === 200)).toHaveLength(1);
    expect(await usdc(agent.base)).toBe(before.agent - micro('0.01'));
    // The other call is refused as one whose payment was made (the first call's purchase): not said to
    // be given back, nor to be paid again.
    const refused = answers.filter((answer): answer is PaymentError => answer instanceof PaymentError);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: 'paid_call_failed', details: { payment: { status: 'confirmed' } } });
    expect(refused[0]!.message).not.toMatch(/gives its budget back/);
    expect(refused[0]!.message).toMatch(/but the payment landed \(0x[0-9a-f]{64}\)/);
    // Coffer's own record agrees with the chain: one confirmed payment, one charge to the budget.
    const history = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`), { key: agent.apiKey });
    expect(history.body.payments).toHaveLength(1);
    expect(history.body.payments[0]).toMatchObject({ status: 'confirmed', amount: '0.01', rail: 'base' });
    const listed = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents as { agentId: string; spent24h: string }[];
    expect(listed.find((each) => each.agentId === agentId)?.spent24h).toBe('0.01');
  });

  it('holds a Base purchase to allowedServices, by the seller’s address in any spelling', async () => {
    const agent = await fundedAgent('base-allowed', '1.00', { allowedServices: ['demo-weather'] });
    const refused = await payX402('base-allowed', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expectError(refused, 402, 'service_not_allowed');
    // The owner sees it refused on Base.
    const refusals = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals as {
      agent: string;
      code: string;
      rail: string;
    }[];
    expect(refusals.filter((refusal) => refusal.agent === 'base-allowed')).toMatchObject([{ code: 'service_not_allowed', rail: 'base' }]);
    await t.api('POST', t.withOwner('/v1/agents/base-allowed/policy'), { body: { allowedServices: [seller.toLowerCase()] } });
    const allowed = await payX402('base-allowed', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body).toMatchObject({ rail: 'base', recipient: seller });
  });

  it('caps a Base purchase at the registry’s price for its payTo', async () => {
    const agent = await fundedAgent('base-price-cap', '1.00');
    const dear = await startEvmV2Seller(facilitator, { payTo: DEMO_BASE_PAY_TO, price: '$0.05' });
    try {
      const refused = await payX402('base-price-cap', agent.apiKey, await answerOf(await fetch(dear.url), dear.url));
      expectError(refused, 402, 'price_above_registry');
      expect(dear.served).toBe(0);
    } finally {
      await dear.close();
    }
  });

  it('lists a Bazaar offer on Base as payable, and pays it there', async () => {
    const bazaar = await startBazaarFacilitator(cluster);
    const unpaid = await fetch(v2.url);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    bazaar.answer = (real) => ({
      ...real,
      items: [
        {
          resource: v2.url,
          type: 'http',
          x402Version: 2,
          accepts: required.accepts,
          serviceName: 'Base Data',
          lastUpdated: new Date().toISOString(),
        },
      ],
    });
    try {
      const set = await t.api('POST', t.withOwner('/v1/bazaar'), { body: { facilitator: bazaar.url } });
      expect(set.body).toMatchObject({ state: 'fresh', listed: 1, note: null });
      const found = await t.api('GET', `/v1/services/search?q=${encodeURIComponent('Base Data')}`, { key: null });
      const listing = (found.body.results as any[]).find((service) => service.source === 'x402-bazaar');
      expect(listing).toMatchObject({
        pricePerCall: '0.01',
        payTo: seller,
        network: 'base-sepolia',
        base: { payTo: seller, network: 'base-sepolia' },
      });
      const agent = await fundedAgent('base-bazaar', '1.00');
      const { response, settlement } = await payingFetch(v2.url, {}, { agent: agentOf('base-bazaar', agent.apiKey) });
      expect(response.status).toBe(200);
      expect(await settlement).toMatchObject({ rail: 'base', status: 'confirmed' });
    } finally {
      await t.api('POST', t.withOwner('/v1/bazaar'), { body: { facilitator: null } });
      await bazaar.close();
    }
  });

  it('leaves out a Bazaar offer on Base naming a token the chain’s USDC is not (its EIP-712 name or version): a purchase would refuse it', async () => {
    const bazaar = await startBazaarFacilitator(cluster);
    const unpaid = await fetch(v2.url);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    const naming = (name: string, version: string, path: string) => ({
      resource: `${v2.url}${path}`,
      type: 'http',
      x402Version: 2,
      accepts: required.accepts.map((offer: any) => ({ ...offer, extra: { ...offer.extra, name, version } })),
      serviceName: `Token ${name} ${version}`,
      lastUpdated: new Date().toISOString(),
    });
    // The node's USDC signs as "USDC" version 2 (Base mainnet's as "USD Coin").
    bazaar.answer = (real) => ({
      ...real,
      items: [naming('USDC', '2', '?as=usdc'), naming('USD Coin', '2', '?as=usd-coin'), naming('USDC', '1', '?as=v1')],
    });
    try {
      const set = await t.api('POST', t.withOwner('/v1/bazaar'), { body: { facilitator: bazaar.url } });
      expect(set.body).toMatchObject({ state: 'fresh', listed: 1, leftOut: { invalid: 2 } });
      const found = await t.api('GET', `/v1/services/search?q=${encodeURIComponent('Token')}`, { key: null });
      const listed = (found.body.results as any[]).filter((service) => service.source === 'x402-bazaar').map((service) => service.name);
      expect(listed).toEqual(['Token USDC 2']);
    } finally {
      await t.api('POST', t.withOwner('/v1/bazaar'), { body: { facilitator: null } });
      await bazaar.close();
    }
  });

  it('signs in on Base (SIWx, eip155) with the agent’s Base account once it paid there: payingFetch is let in, nothing paid', async () => {
    const siwx = await startSiwxSeller(facilitator, {
      payTo: seller,
      price: '$0.01',
      network: BASE_SEPOLIA_X402.v2,
      scheme: new ExactEvmServerScheme(),
    });
    try {
      const agent = await fundedAgent('base-siwx', '1.00');
      const never = await t.api('POST', t.withOwner('/v1/agents/base-siwx/x402/sign-in'), {
        key: agent.apiKey,
        body: await answerOf(await fetch(siwx.url), siwx.url),
      });
      expectError(never, 403, 'not_paid_before');
      const bought = await payingFetch(siwx.url, {}, { agent: agentOf('base-siwx', agent.apiKey) });
      expect(bought.response.status).toBe(200);
      expect(await bought.settlement).toMatchObject({ rail: 'base', status: 'confirmed' });
      const before = await usdc(agent.base);

      const signed = await t.api('POST', t.withOwner('/v1/agents/base-siwx/x402/sign-in'), {
        key: agent.apiKey,
        body: await answerOf(await fetch(siwx.url), siwx.url),
      });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      expect(signed.body).toMatchObject({ address: agent.base, chainId: BASE_SEPOLIA_X402.v2 });
      expect(parseSIWxHeader(signed.body.header.value)).toMatchObject({
        address: agent.base,
        chainId: BASE_SEPOLIA_X402.v2,
        type: 'eip191',
        domain: new URL(siwx.url).host,
      });
      const admitted = await fetch(siwx.url, { headers: { 'sign-in-with-x': signed.body.header.value } });
      expect(admitted.status).toBe(200);
      // A challenge the SIWE message cannot carry (a line break, letters outside ASCII in its
      // statement) is refused in words with its code, not answered 500.
      for (const statement of ['sign in\nChain ID: 1', 'héllo ✓', '100% "sure"']) {
        const asked = await answerOf(await fetch(siwx.url), siwx.url);
        const required = JSON.parse(Buffer.from(asked.headers['payment-required']!, 'base64').toString()) as {
          extensions: Record<string, { info: Record<string, unknown> }>;
        };
        required.extensions['sign-in-with-x']!.info.statement = statement;
        const odd = await t.api('POST', t.withOwner('/v1/agents/base-siwx/x402/sign-in'), {
          key: agent.apiKey,
          body: { ...asked, headers: { ...asked.headers, 'payment-required': Buffer.from(JSON.stringify(required)).toString('base64') } },
        });
        expectError(odd, 422, 'sign_in_not_offered');
        // In Coffer's words, not the SIWE parser's ("parser.js: initializeInputChars(): …").
        expect(odd.body.error).toBe(
          statement.includes('\n')
            ? "the seller's sign-in challenge cannot be signed: its statement holds a line break or another control character"
            : "the seller's sign-in challenge cannot be signed: its statement holds characters Sign-In With Ethereum does not carry (it takes letters, digits, spaces and -._~:/?#[]@!$&'()*+,;=)",
        );
      }
      // A nonce SIWE cannot carry is said so, not as the package's "line 9: invalid nonce".
      const asked = await answerOf(await fetch(siwx.url), siwx.url);
      const required = JSON.parse(Buffer.from(asked.headers['payment-required']!, 'base64').toString()) as {
        extensions: Record<string, { info: Record<string, unknown> }>;
      };
      // Spaced, or left out (read as "undefined" it passed the check, to the package's words).
      for (const nonce of ['not a nonce', undefined]) {
        required.extensions['sign-in-with-x']!.info.nonce = nonce;
        const spaced = await t.api('POST', t.withOwner('/v1/agents/base-siwx/x402/sign-in'), {
          key: agent.apiKey,
          body: { ...asked, headers: { ...asked.headers, 'payment-required': Buffer.from(JSON.stringify(required)).toString('base64') } },
        });
        expectError(spaced, 422, 'sign_in_not_offered');
        expect(spaced.body.error, String(nonce)).toBe(
          "the seller's sign-in challenge cannot be signed: its nonce is not 8 or more letters and digits, as Sign-In With Ethereum writes one",
        );
      }
      // payingFetch asks for it first, and is let in without paying.
      const again = await payingFetch(siwx.url, {}, { agent: agentOf('base-siwx', agent.apiKey) });
      expect(again.signedIn).toEqual({ address: agent.base });
      expect(again.payment).toBeNull();
      expect(await usdc(agent.base)).toBe(before);
    } finally {
      await siwx.close();
    }
  });

  it('coffer fetch pays on Base and says so; --rail sol is refused in words, nothing paid', async () => {
    const agent = await fundedAgent('base-cli', '1.00');
    const dir = mkdtempSync(join(tmpdir(), 'coffer-cli-'));
    const config = join(dir, 'agent.json');
    writeAgentConfig(config, {
      agentId: 'base-cli',
      walletAddress: agent.walletAddress,
      apiKey: agent.apiKey,
      linkedAt: new Date().toISOString(),
      owner: t.owner,
      url: t.url,
    });
    try {
      const ok = await cli(['fetch', v2.url, '--config', config]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ data: 'the paid answer' });
      expect(ok.stderr).toMatch(/^Paid 0\.01 USDC on Base \(x402, pay_\w+, confirmed, transaction 0x[0-9a-f]{64}\)/);
      const before = await usdc(agent.base);
      const refused = await cli(['fetch', v2.url, '--rail', 'sol', '--config', config]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        /Coffer pays x402 "exact" in USDC on solana:\S+; the seller offers exact on eip155:84532.*\(unsupported_offer\)/,
      );
      expect(await usdc(agent.base)).toBe(before);
      const bad = await cli(['fetch', v2.url, '--rail', 'eth', '--config', config]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--rail is sol or base, not "eth"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('MCP fetch_paid pays on Base and names the rail', async () => {
    const agent = await fundedAgent('base-mcp', '1.00');
    const client = new Client({ name: 'test-host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp'],
        env: {
          ...(process.env as Record<string, string>),
          COFFER_URL: t.url,
          COFFER_OWNER: t.owner,
          COFFER_AGENT_ID: 'base-mcp',
          COFFER_API_KEY: agent.apiKey,
          COFFER_CONFIG: '/nonexistent/agent.json',
        },
        stderr: 'pipe',
      }),
    );
    try {
      const result = (await client.callTool({ name: 'fetch_paid', arguments: { url: v1.url, rail: 'base' } })) as {
        isError?: boolean;
        structuredContent?: any;
        content: { text: string }[];
      };
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        status: 200,
        payment: {
          protocol: 'x402',
          rail: 'base',
          // Said with its network, and whether its USDC is test money (Base Sepolia's: faucet money).
          network: 'base-sepolia',
          testMoney: true,
          amount: '0.01',
          status: 'confirmed',
          txSignature: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        },
      });
    } finally {
      await client.close();
    }
  });

  // Last: it moves the chain's time past every authorization signed so far.
  it('fails a payment the seller never settled as dropped once its authorization ended, giving its budget back', async () => {
    const agent = await fundedAgent('base-unsettled', '1.00', { dailyBudget: '0.01' });
    facilitator.refuseSettling = true;
    try {
      const unpaid = await fetch(v2.url);
      const paid = await payX402('base-unsettled', agent.apiKey, await answerOf(unpaid, v2.url));
      expect(paid.status).toBe(200);
      expect((await fetch(v2.url, { headers: { [paid.body.header.name]: paid.body.header.value } })).status).toBe(402);
      // The day's budget is held by the pending payment.
      const second = await payX402('base-unsettled', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
      expectError(second, 402, 'daily_budget_exceeded');
      const report = () =>
        t.api('POST', t.withOwner(`/v1/agents/base-unsettled/x402/${paid.body.paymentId}/settlement`), {
          key: agent.apiKey,
          body: { headers: {} },
        });
      expect((await report()).body.status).toBe('pending');
      // The chain's time passes the authorization's end (an hour at most), unused.
      await node.mine(2, 3_700);
      const ended = await report();
      expect(ended.body.status).toBe('failed');
      const row = t.coffer.db.prepare('SELECT status, error_code AS errorCode FROM transfers WHERE id = ?').get(paid.body.paymentId);
      expect(row).toEqual({ status: 'failed', errorCode: 'dropped' });
    } finally {
      facilitator.refuseSettling = false;
    }
    // Its budget is back: Coffer pays the same purchase again (the seller's node is now an hour
    // ahead of the clock the package signs by, so the seller would refuse it as expired).
    const again = await payX402('base-unsettled', agent.apiKey, await answerOf(await fetch(v2.url), v2.url));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ status: 'pending', rail: 'base' });
  });
});
