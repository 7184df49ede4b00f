import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { TestCluster } from '../fixtures/test-cluster.js';
import { close, listen } from '../helpers/http-server.js';
import { fundedAgent, micro, reconcileUntilConfirmed, startCoffer, type TestCoffer } from '../helpers/coffer.js';
import { createDemoApi } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall-store.js';
import { cofferTransferLookup } from '../../server/x402/transfer-lookups.js';
import { PaymentError, payingFetch } from '../../server/x402/paying-fetch.js';

/**
 * payingFetch paying Coffer's own 402 where the chain does not take the payment at once: it is signed
 * and recorded, so it may still land, and the agent is told not to pay again, in words that do not
 * say more than Coffer knows. Against an RPC cluster, whose node refuses or goes away as a remote one does.
 */
describe('payingFetch when the chain has not confirmed the payment', () => {
  let cluster: TestCluster;
  let t: TestCoffer;
  let store: PaywallStore;
  let api: { url: string; server: Server };
  beforeAll(async () => {
    cluster = await new TestCluster().start();
    t = await startCoffer({ network: cluster.url, usdcMint: cluster.mint.address });
    cluster.airdrop(t.owner);
    await cluster.depositFromOutside(t.owner, micro('5'));
    store = openPaywallStore(join(t.dataDir, 'demo-paywall.db'));
    api = await listen(createDemoApi({ lookup: await cofferTransferLookup(t.url), store }));
  });
  afterAll(async () => {
    await close(api.server);
    store.close();
    await t.stop();
    await cluster.stop();
  });

  it('a payment the node refused to take is pending, not said to be sent; it lands later by reconciliation, once', async () => {
    const agent = await fundedAgent(t, 'pending-bot', '1.00');
    cluster.throttle = { method: 'sendTransaction', allow: 0 };
    const failure = await payingFetch(
      `${api.url}/weather?city=Porto`,
      {},
      { agent: { cofferUrl: t.url, owner: t.owner, agentId: 'pending-bot', apiKey: agent.apiKey }, retries: 0 },
    ).catch((error: unknown) => error);
    cluster.throttle = null;
    expect(failure).toBeInstanceOf(PaymentError);
    expect(failure).toMatchObject({ code: 'payment_pending', details: { cofferCode: 'chain_unavailable' } });
    const words = (failure as Error).message;
    expect(words).not.toMatch(/was sent/);
    expect(words).toMatch(
      /^Coffer could not confirm the payment: it may be recorded and on its way .* or not made at all; check .* before paying again: /,
    );
    // Sent again at the next rounds of reconciliation until the cluster has it; then confirmed, once.
    expect(await reconcileUntilConfirmed(t)).toBe(1);
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 0 });
    const paid = t.coffer.db.prepare("SELECT amount FROM payments WHERE agent_id = 'pending-bot' AND status = 'confirmed'").all();
    expect(paid).toEqual([{ amount: Number(micro('0.01')) }]);
  });
});
