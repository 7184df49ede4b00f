import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { x402Facilitator } from '@x402/core/facilitator';
import { ExactEvmScheme as ExactEvmFacilitatorScheme } from '@x402/evm/exact/facilitator';
import { evmFacilitatorSigner } from '../../server/x402/paywall/in-process-facilitator.js';
import { EMBEDDED_EVM_CHAIN_ID } from '../../server/chain/evm/sim/chain.js';
import { startChainWatch } from '../../server/boot/chain-watch.js';
import { deployAgent, manualClock, startCoffer, tempDataDir, type TestCoffer } from '../helpers/coffer.js';
import { expectError } from '../helpers/expect-error.js';
import { unsettledEvmOffer } from '../fixtures/x402-evm-peers.js';

/**
 * Issue 50, point 1, on the embedded EVM chain (sim, the default): an x402 payment on Base whose
 * seller never settles fails `dropped` once its authorization has ended, giving its budget back,
 * without a restart. The embedded chain mines a block only when a transaction comes, so its time
 * stood still where it was: the authorization never read as ended, and no chain watch ran on sim.
 */
describe('an x402 payment on the embedded Base chain that no seller settles', () => {
  let t: TestCoffer | null = null;
  let dataDir = '';
  afterEach(async () => {
    await t?.stop();
    t = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function unsettledPurchase() {
    const clock = manualClock();
    dataDir = tempDataDir();
    t = await startCoffer({ clock, dataDir });
    const coffer = t;
    const { apiKey } = await deployAgent(coffer, 'unsettled', { dailyBudget: '0.01', maxPerPayment: '1' });
    expect((await coffer.api('POST', coffer.withOwner('/v1/treasury/faucet'), { body: { amount: '5', rail: 'base' } })).status).toBe(200);
    const allocated = await coffer.api('POST', coffer.withOwner('/v1/agents/unsettled/allocate'), { body: { amount: '1', rail: 'base' } });
    expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
    const usdc = (await coffer.api('GET', '/v1/health')).body.base.usdc as string;
    const { requirement, offer } = unsettledEvmOffer({ chainId: EMBEDDED_EVM_CHAIN_ID, usdc, amount: 10_000n });
    const buy = () => coffer.api('POST', coffer.withOwner('/v1/agents/unsettled/x402'), { key: apiKey, body: offer });
    const paid = await buy();
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ status: 'pending', rail: 'base' });
    // The day's budget is held by the pending payment.
    expectError(await buy(), 402, 'daily_budget_exceeded');
    const report = () =>
      coffer.api('POST', coffer.withOwner(`/v1/agents/unsettled/x402/${paid.body.paymentId}/settlement`), {
        key: apiKey,
        body: { headers: {} },
      });
    const rowOf = () =>
      coffer.coffer.db.prepare('SELECT status, error_code AS errorCode FROM transfers WHERE id = ?').get(paid.body.paymentId);
    return {
      coffer,
      clock,
      buy,
      report,
      rowOf,
      requirement,
      paymentId: paid.body.paymentId as string,
      header: paid.body.header as { name: string; value: string },
    };
  }

  it('is dropped when asked after its end, with nothing else sent meanwhile, and its budget is back', async () => {
    const { clock, buy, report, rowOf } = await unsettledPurchase();
    expect((await report()).body.status).toBe('pending');
    // Its authorization ends a minute after it was signed; nothing happens on the chain meanwhile.
    clock.advance(120_000);
    expect((await report()).body.status).toBe('failed');
    expect(rowOf()).toEqual({ status: 'failed', errorCode: 'dropped' });
    const again = await buy();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });

  it('is dropped by the chain watch, which runs on sim where the Base rail is the embedded chain; the block that ended it stays', async () => {
    const { coffer, clock, rowOf, paymentId } = await unsettledPurchase();
    const watch = startChainWatch(coffer.coffer, () => undefined, 3_600_000);
    try {
      await watch.tick();
      expect(rowOf()).toEqual({ status: 'pending', errorCode: null });
      clock.advance(120_000);
      await watch.tick();
      expect(rowOf()).toEqual({ status: 'failed', errorCode: 'dropped' });
    } finally {
      await watch.stop();
    }
    // The empty block that brought the chain to the clock's time is in its journal: a restart replays it.
    const latestTime = async (c: TestCoffer) => {
      const answer = await fetch(`${c.url}/evm-rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }),
      });
      return Number(BigInt(((await answer.json()) as { result: { timestamp: string } }).result.timestamp));
    };
    const before = await latestTime(coffer);
    expect(before).toBeGreaterThanOrEqual(Math.floor(clock.now() / 1000));
    await coffer.stop();
    t = await startCoffer({ clock, dataDir });
    expect(await latestTime(t)).toBe(before);
    const row = t.coffer.db.prepare('SELECT status, error_code AS errorCode FROM transfers WHERE id = ?').get(paymentId);
    expect(row).toEqual({ status: 'failed', errorCode: 'dropped' });
  });

  it('holds an archive while pending, saying so: what is free goes back first, then the archive waits for it, not for a return', async () => {
    const { coffer, clock, report } = await unsettledPurchase();
    const archive = () => coffer.api('POST', coffer.withOwner('/v1/agents/unsettled/archive'));
    const returnOnBase = () => coffer.api('POST', coffer.withOwner('/v1/agents/unsettled/return'), { body: { rail: 'base' } });
    // 1.00 on Base, 0.01 of it promised to the pending payment: 0.99 is what there is to return.
    const holding = await archive();
    expectError(holding, 409, 'agent_has_funds');
    expect(holding.body.error).toMatch(
      /still holds 0\.99 USDC on Base \(and has 0\.01 USDC on Base promised to payments still pending\): return it to the treasury first/,
    );
    expect((await returnOnBase()).body).toMatchObject({ amount: '0.99' });
    // Nothing left to return: the archive says what it waits for, and no return.
    const waiting = await archive();
    expectError(waiting, 409, 'agent_has_funds');
    expect(waiting.body.error).toMatch(/has 0\.01 USDC on Base promised to payments still pending: archive it once they settle or fail/);
    expect(waiting.body.error).not.toMatch(/return/);
    // Its authorization ends unused: the payment fails, the 0.01 is free again, goes back, and the archive is done.
    clock.advance(120_000);
    expect((await report()).body.status).toBe('failed');
    expectError(await archive(), 409, 'agent_has_funds');
    expect((await returnOnBase()).body).toMatchObject({ amount: '0.01' });
    expect((await archive()).body).toMatchObject({ status: 'archived' });
  });

  it('is confirmed, not dropped, when the seller settled it before its end and it is asked about after', async () => {
    const { coffer, clock, report, rowOf, requirement, header } = await unsettledPurchase();
    // The official facilitator sends the authorization before its end, and nobody tells Coffer.
    const relayer = privateKeyToAccount(generatePrivateKey());
    await coffer.coffer.base!.chain.prepareFeePayer(relayer.address);
    const signer = evmFacilitatorSigner({ account: relayer, rpcUrl: `${coffer.url}/evm-rpc`, chainId: EMBEDDED_EVM_CHAIN_ID });
    const facilitator = new x402Facilitator().register(requirement.network, new ExactEvmFacilitatorScheme(signer));
    const settled = await facilitator.settle(decodePaymentSignatureHeader(header.value), requirement);
    expect(settled.success, JSON.stringify(settled)).toBe(true);
    // Past its end, the chain is read again (an empty block mined first): it ran, so it is confirmed.
    clock.advance(120_000);
    expect((await report()).body).toMatchObject({ status: 'confirmed', txSignature: settled.transaction.toLowerCase() });
    expect(rowOf()).toEqual({ status: 'confirmed', errorCode: null });
  });
});
