import { createPublicClient, http, parseEventLogs, type Address, type Hash } from 'viem';
import { describe, expect, it } from 'vitest';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { EMBEDDED_EVM_CHAIN_ID } from '../../server/chain/evm/sim/chain.js';
import { deployAgent, micro, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';

/**
 * Issue 49, point 4 (allocation and return on Base): the sim network's treasury holds test USDC on
 * the embedded EVM chain too; the owner moves it to an agent's Base account and back through the one
 * transfer lifecycle, each move an EIP-3009 authorization the treasury sends, found on chain by the
 * transaction its answer names.
 */
const chainOf = (t: TestCoffer) => createPublicClient({ transport: http(`${t.url}/evm-rpc`, { retryCount: 0 }) });
const usdcOf = async (t: TestCoffer) => (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
/** What an account holds on the embedded EVM chain, read from the chain over its JSON-RPC. */
const balanceOn = (t: TestCoffer, account: string) =>
  chainOf(t).readContract({
    address: t.coffer.base!.chain.usdc as Address,
    abi: USDC_ABI,
    functionName: 'balanceOf',
    args: [account as Address],
  });

describe('moves on Base between the treasury and an agent', () => {
  const t = useCoffer();

  it('a new sim treasury holds 1,000 test USDC on Base, in its phrase account, on a chain id of its own', async () => {
    const dashboard = await usdcOf(t);
    expect(dashboard.treasury.balances).toEqual({ sol: '1000.00', base: '1000.00' });
    expect(await balanceOn(t, dashboard.treasury.wallets.base)).toBe(micro('1000'));
    expect(await chainOf(t).getChainId()).toBe(EMBEDDED_EVM_CHAIN_ID);
  });

  it('allocates to the agent on Base: its answer names the rail and the transaction that moved it, once', async () => {
    const agent = await deployAgent(t, 'base-buyer');
    const dashboard = await usdcOf(t);
    const [treasury, wallet] = [dashboard.treasury.wallets.base as Address, dashboard.agents[0].wallets.base as Address];
    const allocate = (key: string) =>
      t.api('POST', t.withOwner(`/v1/agents/${agent.agentId}/allocate`), {
        body: { amount: '5.25', rail: 'base' },
        headers: { 'idempotency-key': key },
      });
    const first = await allocate('base-1');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ agentId: 'base-buyer', amount: '5.25', currency: 'USDC', rail: 'base', balance: '5.25' });
    expect(first.body.txSignature).toMatch(/^0x[0-9a-f]{64}$/);
    // The same key again answers the same move; nothing moves twice.
    const again = await allocate('base-1');
    expect(again.body).toEqual(first.body);

    const receipt = await chainOf(t).getTransactionReceipt({ hash: first.body.txSignature as Hash });
    expect(receipt.status).toBe('success');
    const [transfer] = parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: receipt.logs });
    expect(transfer?.args).toEqual({ from: treasury, to: wallet, value: micro('5.25') });
    expect(await balanceOn(t, wallet)).toBe(micro('5.25'));
    // The treasury's Base account sent it and paid the gas: the agent's account holds no ETH, sent nothing.
    expect(receipt.from.toLowerCase()).toBe(treasury.toLowerCase());
    expect(await chainOf(t).getBalance({ address: wallet })).toBe(0n);

    const balance = (await t.api('GET', t.withOwner(`/v1/agents/${agent.agentId}/balance`))).body;
    expect(balance).toMatchObject({
      walletAddress: agent.walletAddress,
      balance: '0.00',
      wallets: { sol: agent.walletAddress, base: wallet },
    });
    expect(balance.balances).toEqual({ sol: '0.00', base: '5.25' });
    const after = await usdcOf(t);
    expect(after.treasury.balances).toEqual({ sol: '1000.00', base: '994.75' });
    // The dashboard's row and the list's carry it too, `balance` still the Solana one.
    const row = { agentId: 'base-buyer', balance: '0.00', balances: { sol: '0.00', base: '5.25' } };
    expect(after.agents).toContainEqual(expect.objectContaining(row));
    expect((await t.api('GET', t.withOwner('/v1/agents'))).body.agents).toContainEqual(expect.objectContaining(row));
  });

  it('a return refused for want of funds says what it can return, and where the money is', async () => {
    const onSolana = await t.api('POST', t.withOwner('/v1/agents/base-buyer/return'), { body: {} });
    expect({ status: onSolana.status, code: onSolana.body.code }).toEqual({ status: 402, code: 'insufficient_funds' });
    expect(onSolana.body.error).toBe(
      'agent "base-buyer" holds nothing to return on Solana (0.00 USDC available); it holds 5.25 USDC on Base: return it from there (rail base)',
    );
    const tooMuch = await t.api('POST', t.withOwner('/v1/agents/base-buyer/return'), { body: { amount: '6', rail: 'base' } });
    expect(tooMuch.body.error).toBe(
      'agent "base-buyer" holds 5.25 USDC available on Base, less than 6.00: return 5.25, or leave the amount out to return all of it',
    );
  });

  it('returns from the agent on Base, the whole balance when no amount is given', async () => {
    const returned = await t.api('POST', t.withOwner('/v1/agents/base-buyer/return'), { body: { rail: 'base' } });
    expect(returned.status).toBe(200);
    expect(returned.body).toMatchObject({ amount: '5.25', rail: 'base', balance: '0.00' });
    expect(returned.body.txSignature).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await usdcOf(t)).treasury.balances).toEqual({ sol: '1000.00', base: '1000.00' });
    const empty = await t.api('POST', t.withOwner('/v1/agents/base-buyer/return'), { body: { rail: 'base' } });
    expect({ status: empty.status, code: empty.body.code }).toEqual({ status: 402, code: 'insufficient_funds' });
    expect(empty.body.error).toBe('agent "base-buyer" holds nothing to return on Base (0.00 USDC available)');
  });

  it('refuses more than the treasury holds on Base, and an unknown rail, moving and writing nothing', async () => {
    const rows = () => t.coffer.db.prepare("SELECT COUNT(*) FROM transfers WHERE rail = 'base'").pluck().get();
    const before = rows();
    const tooMuch = await t.api('POST', t.withOwner('/v1/agents/base-buyer/allocate'), { body: { amount: '1000.01', rail: 'base' } });
    expect({ status: tooMuch.status, code: tooMuch.body.code }).toEqual({ status: 402, code: 'insufficient_treasury_funds' });
    expect(tooMuch.body.error).toBe(
      "the treasury holds 1000.00 USDC available on Base, less than 1000.01; on sim, the faucet mints test USDC into it (the dashboard's Add test USDC on Base, or coffer faucet AMOUNT --rail base)",
    );
    const unknown = await t.api('POST', t.withOwner('/v1/agents/base-buyer/allocate'), { body: { amount: '1', rail: 'eth' } });
    expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 400, code: 'invalid_request' });
    expect(rows()).toBe(before);
    expect((await usdcOf(t)).treasury.balances.base).toBe('1000.00');
  });

  it('its JSON-RPC answers bad bodies, unknown methods and batches as a node does', async () => {
    const post = (body: string) => fetch(`${t.url}/evm-rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await (await post('{not json')).json()).error.code).toBe(-32700);
    const tooLarge = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(300_000)] }));
    expect([tooLarge.status, (await tooLarge.json()).error]).toEqual([
      413,
      { code: -32600, message: 'Invalid request: the body is over 256 kB' },
    ]);
    const batch = await (
      await post(
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
          { jsonrpc: '2.0', id: 2, method: 'hardhat_setBalance', params: [] },
        ]),
      )
    ).json();
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0xc0ffe' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: expect.stringMatching(/hardhat_setBalance is not available/) } },
    ]);
  });

  it('the faucet mints test USDC into the treasury on Base', async () => {
    const minted = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '10', rail: 'base' } });
    expect(minted.status).toBe(200);
    expect(minted.body.treasury).toMatchObject({ rail: 'base', balance: '1010.00' });
    expect(minted.body.deposit).toMatchObject({ rail: 'base', amount: '10.00', source: 'faucet' });
    expect(minted.body.deposit.txSignature).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('the faucet mints however much was drawn before: its reserve is no limit the owner meets', async () => {
    // Each call's most, twice: more than the reserve the faucet's wallet starts with (a billion).
    for (const balance of ['1000001010.00', '2000001010.00']) {
      const minted = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '1000000000', rail: 'base' } });
      expect({ status: minted.status, treasury: minted.body.treasury }).toMatchObject({ status: 200, treasury: { rail: 'base', balance } });
    }
    const after = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '0.01', rail: 'base' } });
    expect({ status: after.status, treasury: after.body.treasury }).toMatchObject({ status: 200, treasury: { balance: '2000001010.01' } });
  });
});

describe('a Base move across a restart', () => {
  it('ledger and chain agree on both rails after the data dir opens again', async () => {
    const dataDir = tempDataDir();
    const first = await startCoffer({ dataDir, keepDataDir: true });
    await deployAgent(first, 'steady');
    for (const [amount, rail] of [
      ['3', 'base'],
      ['2', 'sol'],
      ['1.5', 'base'],
    ] as const) {
      expect((await first.api('POST', first.withOwner('/v1/agents/steady/allocate'), { body: { amount, rail } })).status).toBe(200);
    }
    expect((await first.api('POST', first.withOwner('/v1/agents/steady/return'), { body: { amount: '0.5', rail: 'base' } })).status).toBe(
      200,
    );
    await first.stop();
    const second = await startCoffer({ dataDir });
    try {
      const balance = (await second.api('GET', second.withOwner('/v1/agents/steady/balance'))).body;
      expect(balance.balances).toEqual({ sol: '2.00', base: '4.00' });
      const confirmed = (rail: string, kind: string) =>
        BigInt(
          second.coffer.db
            .prepare(
              "SELECT COALESCE(SUM(amount), 0) FROM transfers WHERE rail = ? AND kind = ? AND status = 'confirmed' AND agent_id = 'steady'",
            )
            .pluck()
            .get(rail, kind) as number,
        );
      expect(confirmed('base', 'allocation') - confirmed('base', 'return')).toBe(await balanceOn(second, balance.wallets.base));
      expect(confirmed('sol', 'allocation') - confirmed('sol', 'return')).toBe(micro('2'));
    } finally {
      await second.stop();
    }
  });
});
