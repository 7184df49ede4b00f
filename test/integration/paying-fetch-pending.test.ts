import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { TestCluster } from '../fixtures/test-cluster.js';
import { close, listen } from '../helpers/http-server.js';
import { fundedAgent, micro, reconcileUntilConfirmed, startCoffer, type TestCoffer } from '../helpers/coffer.js';
import { createDemoApi } from '../../server/demo-api/demo-api.js';
import { openPaywallStore, type PaywallStore } from '../../server/x402/paywall/paywall-store.js';
import { cofferTransferLookup } from '../../server/x402/paywall/transfer-lookups.js';
import { PaymentError } from '../../server/x402/paying-fetch/payment-error.js';
import { payingFetch } from '../../server/x402/paying-fetch/paying-fetch.js';
import { spawn } from 'node:child_process';
import { writeAgentConfig } from '../../server/linked-agent/agent-config.js';
import { CLI } from '../helpers/serve-process.js';
import { shellCommand } from '../../server/boot/cli-invocation.js';

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
      { agent: { cofferUrl: t.url, owner: t.owner, agentId: 'pending-bot', apiKey: agent.apiKey }, retries: 0, chainWaitMs: 0 },
    ).catch((error: unknown) => error);
    cluster.throttle = null;
    expect(failure).toBeInstanceOf(PaymentError);
    expect(failure).toMatchObject({ code: 'payment_pending', details: { cofferCode: 'chain_unavailable' } });
    const words = (failure as Error).message;
    expect(words).not.toMatch(/was sent/);
    expect(words).toMatch(
      /^Coffer could not confirm the payment: it may be recorded and on its way .* or not made at all; check .* before paying again: /,
    );
    // The node's refusal in its own words (a code kit does not know made kit's message a TypeError's).
    expect(words).toMatch(/: the Solana RPC answered error 429: Too many requests for a specific RPC call$/);
    // Sent again at the next rounds of reconciliation until the cluster has it; then confirmed, once.
    expect(await reconcileUntilConfirmed(t)).toBe(1);
    expect(await t.coffer.engine.reconcile()).toEqual({ confirmed: 0, failed: 0, stillPending: 0 });
    const paid = t.coffer.db.prepare("SELECT amount FROM payments WHERE agent_id = 'pending-bot' AND status = 'confirmed'").all();
    expect(paid).toEqual([{ amount: Number(micro('0.01')) }]);
  });

  it('a payment that lands while the call waits for the chain buys the answer with its receipt, paid once', async () => {
    const agent = await fundedAgent(t, 'waiting-bot', '1.00');
    cluster.throttle = { method: 'sendTransaction', allow: 0 };
    let landed: Promise<number> | null = null;
    // The node takes transactions again once Coffer answered that the payment waits for the chain;
    // reconciliation (the chain watch's, in a running Coffer) sends it again then.
    const watching: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      if (landed === null && new URL(String(input)).pathname.endsWith('/pay') && answer.status === 502) {
        cluster.throttle = null;
        landed = reconcileUntilConfirmed(t);
      }
      return answer;
    };
    let waits = 0;
    const { response, payment } = await payingFetch(
      `${api.url}/weather?city=Braga`,
      {},
      {
        agent: { cofferUrl: t.url, owner: t.owner, agentId: 'waiting-bot', apiKey: agent.apiKey },
        fetch: watching,
        chainWaitMs: 30_000,
        onChainWait: () => (waits += 1),
      },
    );
    expect(landed).not.toBeNull();
    expect(await landed).toBe(1);
    expect(waits).toBe(1);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ city: 'Braga' });
    expect(payment).toMatchObject({ protocol: 'coffer', rail: 'sol', amount: '0.01', status: 'confirmed' });
    const rows = t.coffer.db.prepare("SELECT id, status FROM payments WHERE agent_id = 'waiting-bot'").all();
    expect(rows).toEqual([{ id: payment!.paymentId, status: 'confirmed' }]);
  });

  it("a held payment the owner's yes made, not yet confirmed, is followed under its key: bought with the confirmed receipt, paid once", async () => {
    const agent = await fundedAgent(t, 'held-waiting-bot', '1.00', { askAbove: '0' });
    let approved: Promise<{ status: number }> | null = null;
    let landed: Promise<number> | null = null;
    let followed = 0;
    // After the owner's yes, /pay is asked again under the payment's key: the node takes transactions
    // again once that answered that the payment waits for the chain, and reconciliation sends it.
    const watching: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      if (approved !== null && new URL(String(input)).pathname.endsWith('/pay')) {
        followed += 1;
        if (landed === null && answer.status === 502) {
          cluster.throttle = null;
          landed = reconcileUntilConfirmed(t);
        }
      }
      return answer;
    };
    const { response, payment } = await payingFetch(
      `${api.url}/weather?city=Evora`,
      {},
      {
        agent: { cofferUrl: t.url, owner: t.owner, agentId: 'held-waiting-bot', apiKey: agent.apiKey },
        fetch: watching,
        chainWaitMs: 30_000,
        // The owner says yes while the node refuses transactions: the payment it makes waits for the chain.
        onHeld: (approval) => {
          cluster.throttle = { method: 'sendTransaction', allow: 0 };
          approved = t.api('POST', t.withOwner(`/v1/approvals/${approval.approvalId}/approve`));
        },
      },
    );
    cluster.throttle = null;
    expect((await approved!).status).toBe(200);
    expect(landed).not.toBeNull();
    expect(await landed).toBe(1);
    expect(followed).toBeGreaterThanOrEqual(2);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ city: 'Evora' });
    expect(payment).toMatchObject({ protocol: 'coffer', rail: 'sol', amount: '0.01', status: 'confirmed' });
    const rows = t.coffer.db.prepare("SELECT id, status FROM payments WHERE agent_id = 'held-waiting-bot'").all();
    expect(rows).toEqual([{ id: payment!.paymentId, status: 'confirmed' }]);
  });

  it('coffer fetch says it waits for the chain, and prints the body bought once the payment lands', async () => {
    const agent = await fundedAgent(t, 'cli-waiting', '1.00');
    const config = join(t.dataDir, 'cli-waiting.json');
    writeAgentConfig(config, {
      agentId: 'cli-waiting',
      walletAddress: agent.walletAddress,
      apiKey: agent.apiKey,
      linkedAt: new Date().toISOString(),
      owner: t.owner,
      url: t.url,
    });
    cluster.throttle = { method: 'sendTransaction', allow: 0 };
    const fetching = spawn(process.execPath, [CLI, 'fetch', `${api.url}/weather?city=Arica`, '--config', config], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let landed: Promise<number> | null = null;
    fetching.stdout.on('data', (chunk) => (out += chunk));
    fetching.stderr.on('data', (chunk) => {
      err += chunk;
      // Once it says it waits, the node takes transactions again, and reconciliation sends it.
      if (landed === null && err.includes('Coffer has not confirmed the payment yet')) {
        cluster.throttle = null;
        landed = reconcileUntilConfirmed(t);
      }
    });
    const code = await new Promise<number | null>((resolve) => fetching.once('exit', resolve));
    cluster.throttle = null;
    // The command to check with names this agent's config, as the failed call did.
    expect(err).toContain(
      `Coffer has not confirmed the payment yet (the chain has not answered): waiting up to 60 s. This call pays it once at most; stopped or run again, check ${shellCommand(['activity', '--config', config])} first.\n`,
    );
    expect(await landed).toBe(1);
    expect(code, err).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ city: 'Arica' });
    expect(err).toMatch(/^Paid 0\.01 USDC on Solana \(Coffer receipt, pay_\w+, confirmed, transaction \w+\)\.$/m);
  }, 120_000);
});
