import { createPublicClient, getAddress, http, parseEventLogs, verifyMessage, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { EMBEDDED_EVM_CHAIN_ID } from '../../server/chain/evm/sim/chain.js';
import { baseReceiptProofMessage, baseReceiptSchema } from '../../server/wire/receipts.js';
import { deployAgent, micro, UNLISTED_SELLER } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';

/**
 * Issue 49, points 4 and 5: an agent pays an EVM recipient in USDC on Base through /pay, under the
 * same one policy as its Solana payments (a 5 USDC daily budget is 5 USDC in all), with a receipt that
 * names the rail, the chain id and the transaction's hash, proved by the agent's Base account.
 */
const SELLER = getAddress(privateKeyToAccount(generatePrivateKey()).address);
const SOLANA_SELLER = UNLISTED_SELLER;

describe('/pay on Base, one policy across both rails', () => {
  const t = useCoffer();
  let apiKey: string;
  let agentBase: Address;
  const chain = () => createPublicClient({ transport: http(`${t.url}/evm-rpc`, { retryCount: 0 }) });
  const onChain = (account: Address) =>
    chain().readContract({ address: t.coffer.base!.chain.usdc as Address, abi: USDC_ABI, functionName: 'balanceOf', args: [account] });
  const payBase = (amount: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
    payUsdc(t, 'both-rails', apiKey, { service: 'base-api', recipient: SELLER, amount, ...extra }, headers);
  const paySol = (amount: string) => payUsdc(t, 'both-rails', apiKey, { service: 'sol-api', recipient: SOLANA_SELLER, amount });

  beforeAll(async () => {
    const agent = await deployAgent(t, 'both-rails', { dailyBudget: '5.00', maxPerPayment: '2.50' });
    apiKey = agent.apiKey;
    for (const rail of ['sol', 'base']) {
      expect((await t.api('POST', t.withOwner('/v1/agents/both-rails/allocate'), { body: { amount: '6', rail } })).status).toBe(200);
    }
    agentBase = (await t.api('GET', t.withOwner('/v1/agents/both-rails/balance'))).body.wallets.base;
  });

  it('pays an EVM recipient on Base: the transaction its receipt names moved exactly that from the agent', async () => {
    const paid = await payBase('2.00', { nonce: 'call-1' }, { 'idempotency-key': 'base-pay-1' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      rail: 'base',
      amount: '2.00',
      recipient: SELLER,
      payer: agentBase,
      status: 'confirmed',
      memo: 'call-1',
    });
    const receipt = baseReceiptSchema.parse(JSON.parse(Buffer.from(paid.body.xPaymentHeader.slice(3), 'base64').toString('utf8')));
    expect(receipt).toMatchObject({
      rail: 'base',
      chainId: EMBEDDED_EVM_CHAIN_ID,
      txSignature: paid.body.txSignature,
      payer: agentBase,
      recipient: SELLER,
    });
    const { proof, ...claims } = receipt;
    expect(
      await verifyMessage({ address: agentBase, message: { raw: baseReceiptProofMessage(claims) }, signature: proof as `0x${string}` }),
    ).toBe(true);

    const landed = await chain().getTransactionReceipt({ hash: paid.body.txSignature as Hash });
    const [transfer] = parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: landed.logs });
    expect(transfer?.args).toEqual({ from: agentBase, to: SELLER, value: micro('2') });
    expect(await onChain(SELLER)).toBe(micro('2'));
    // A retry under its key answers the same payment and receipt; nothing moves again.
    const again = await payBase('2.00', { nonce: 'call-1' }, { 'idempotency-key': 'base-pay-1' });
    expect(again.body).toEqual(paid.body);
    expect(await onChain(SELLER)).toBe(micro('2'));
  });

  it('judges both rails under one daily budget: 2 on Base and 2 on Solana leave 1 USDC in all', async () => {
    expect((await paySol('2.00')).status).toBe(200);
    const over = await payBase('1.50');
    expect({ status: over.status, code: over.body.code }).toEqual({ status: 402, code: 'daily_budget_exceeded' });
    expect((await payBase('1.00')).status).toBe(200);
    const full = await paySol('0.01');
    expect({ status: full.status, code: full.body.code }).toEqual({ status: 402, code: 'daily_budget_exceeded' });
    expect(await onChain(SELLER)).toBe(micro('3'));
    const activity = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentActivity as { rail: string; amount: string }[];
    expect(activity.slice(0, 3).map((entry) => [entry.rail, entry.amount])).toEqual([
      ['base', '1.00'],
      ['sol', '2.00'],
      ['base', '2.00'],
    ]);
  });

  it('refuses on Base what it refuses on Solana: too much for one payment, a stopped agent, a short wallet, a bad address', async () => {
    await t.api('POST', t.withOwner('/v1/agents/both-rails/policy'), { body: { dailyBudget: '100.00' } });
    const tooBig = await payBase('2.51');
    expect({ status: tooBig.status, code: tooBig.body.code }).toEqual({ status: 402, code: 'max_per_payment_exceeded' });
    // The Base wallet holds 3 USDC (6 - 2 - 1), the Solana one 4: a payment on Base is judged by its own wallet.
    const short = await payBase('2.50', { nonce: 'short-1' });
    expect(short.status).toBe(200);
    const empty = await payBase('0.60');
    expect({ status: empty.status, code: empty.body.code }).toEqual({ status: 402, code: 'insufficient_funds' });
    expect(empty.body.error).toMatch(/holds 0\.50 USDC available on Base, less than 0\.60/);
    expect((await t.api('POST', t.withOwner('/v1/agents/both-rails/kill'))).status).toBe(200);
    const stopped = await payBase('0.10');
    expect({ status: stopped.status, code: stopped.body.code }).toEqual({ status: 403, code: 'agent_suspended' });
    expect((await t.api('POST', t.withOwner('/v1/agents/both-rails/resume'))).status).toBe(200);
    // A mixed case that is not the address's checksum is a typo: one letter's case flipped.
    const letter = SELLER.slice(2).search(/[a-fA-F]/) + 2;
    const swapCase = (c: string) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase());
    const flipped = SELLER.slice(0, letter) + swapCase(SELLER[letter]!) + SELLER.slice(letter + 1);
    for (const recipient of ['0x1234', `0x${'g'.repeat(40)}`, flipped]) {
      const refused = await payUsdc(t, 'both-rails', apiKey, { service: 'base-api', recipient, amount: '0.10' });
      expect({ status: refused.status, code: refused.body.code }, recipient).toEqual({ status: 400, code: 'invalid_recipient' });
    }
    expect(await onChain(agentBase)).toBe(micro('0.5'));
  });

  it('an EVM address in lower case is the same recipient, kept in its checksum spelling', async () => {
    const paid = await payBase('0.10', { recipient: SELLER.toLowerCase() });
    expect(paid.status).toBe(200);
    expect(paid.body.recipient).toBe(SELLER);
  });

  it('allowedServices takes an EVM address, in either case, and pays only it on Base', async () => {
    const other = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const agent = await deployAgent(t, 'allowlisted', {
      dailyBudget: '5.00',
      maxPerPayment: '1.00',
      allowedServices: [SELLER.toLowerCase()],
    });
    const policy = (await t.api('GET', t.withOwner('/v1/agents/allowlisted/policy'))).body.policy;
    expect(policy.allowedServices).toEqual([SELLER]);
    expect((await t.api('POST', t.withOwner('/v1/agents/allowlisted/allocate'), { body: { amount: '1', rail: 'base' } })).status).toBe(200);
    const paid = await payUsdc(t, 'allowlisted', agent.apiKey, { service: 'base-api', recipient: SELLER, amount: '0.10' });
    expect({ status: paid.status, rail: paid.body.rail }).toEqual({ status: 200, rail: 'base' });
    const refused = await payUsdc(t, 'allowlisted', agent.apiKey, { service: 'base-api', recipient: other, amount: '0.10' });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 402, code: 'service_not_allowed' });
    const updated = await t.api('POST', t.withOwner('/v1/agents/allowlisted/policy'), {
      body: { allowedServices: [other.toLowerCase(), SELLER] },
    });
    expect(updated.body.policy?.allowedServices).toEqual([other, SELLER]);
  });

  it("pays no one who cannot be paid: the USDC contract or mint itself, the agent's own wallet, on either rail; nothing moves or counts", async () => {
    const agent = await deployAgent(t, 'to-no-one', { dailyBudget: '5.00', maxPerPayment: '1.00' });
    for (const rail of ['sol', 'base']) {
      expect((await t.api('POST', t.withOwner('/v1/agents/to-no-one/allocate'), { body: { amount: '1', rail } })).status).toBe(200);
    }
    const { wallets } = (await t.api('GET', t.withOwner('/v1/agents/to-no-one/balance'))).body as {
      wallets: { sol: string; base: string };
    };
    const usdcOnBase = t.coffer.base!.chain.usdc;
    const cases: [string, RegExp][] = [
      [usdcOnBase, /is the USDC token's own contract on Base: no one could spend what is sent there/],
      [usdcOnBase.toLowerCase(), /is the USDC token's own contract on Base/],
      [t.coffer.chain.usdc, /is the USDC token's own mint on Solana: no one could spend what is sent there/],
      [wallets.base, /is this agent's own wallet on Base: paying it buys nothing/],
      [wallets.base.toLowerCase(), /is this agent's own wallet on Base/],
      [wallets.sol, /is this agent's own wallet on Solana: paying it buys nothing/],
    ];
    for (const [recipient, words] of cases) {
      const refused = await payUsdc(t, 'to-no-one', agent.apiKey, { service: 'anything', recipient, amount: '0.10' });
      expect({ status: refused.status, code: refused.body.code }, recipient).toEqual({ status: 400, code: 'invalid_recipient' });
      expect(refused.body.error, recipient).toMatch(words);
    }
    const after = (await t.api('GET', t.withOwner('/v1/agents/to-no-one/balance'))).body;
    expect(after.balances).toEqual({ sol: '1.00', base: '1.00' });
    expect(await onChain(wallets.base as Address)).toBe(micro('1'));
    const history = (await t.api('GET', t.withOwner('/v1/agents/to-no-one/spend-history'))).body;
    expect(history.payments).toEqual([]);
  });
});
