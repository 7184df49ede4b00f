// The one /v1 client (server/client) against a real Coffer: typed answers, the 202 of a request that waits, one error type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoffer, fundedAgent, signIn, type TestCoffer, UNLISTED_API } from '../helpers/coffer.js';
import { createCofferClient, keyClient, type CofferClient } from '../../server/client/coffer-client.js';
import { createTransport } from '../../server/client/transport.js';
import { CofferApiError } from '../../server/client/client-error.js';

describe('the /v1 client', () => {
  let t: TestCoffer;
  let owner: CofferClient;
  let agent: CofferClient;

  beforeAll(async () => {
    t = await startCoffer();
    owner = keyClient(t.url, { owner: t.owner, key: t.ownerKey });
    const made = await fundedAgent(t, 'client-agent', '1.00', { dailyBudget: '5.00', maxPerPayment: '1.00', cooldownSeconds: 0 });
    agent = keyClient(t.url, { owner: t.owner, key: made.apiKey });
  });
  afterAll(() => t.stop());

  it('reads what the engine answers, for the owner and for an agent', async () => {
    expect((await owner.agents()).agents.map((row) => row.agentId)).toContain('client-agent');
    expect(await agent.balance('client-agent')).toMatchObject({ agentId: 'client-agent', balance: '1.00', currency: 'USDC' });
    expect((await agent.spendHistory('client-agent', 5)).payments).toEqual([]);
    expect((await owner.searchServices('weather', 100)).results.map((s) => s.id)).toContain('demo-weather');
    expect((await owner.health()).network).toBe(t.coffer.engine.network);
  });

  it('tells a result (200) from a request that waits for the owner (202 with the approval)', async () => {
    const tightened = await agent.updatePolicy('client-agent', { dailyBudget: '4.00' });
    expect(tightened.status).toBe(200);
    if (tightened.status === 200) expect(tightened.body.policy.dailyBudget).toBe('4.00');
    const loosened = await agent.updatePolicy('client-agent', { dailyBudget: '40.00' });
    expect(loosened).toMatchObject({ status: 202, body: { status: 'pending', kind: 'policy', approvalId: expect.any(String) } });
  });

  it('sends an Idempotency-Key: the same key answers the same payment', async () => {
    const body = { ...UNLISTED_API, amount: '0.05', currency: 'USDC' };
    const first = await agent.pay('client-agent', body, 'client-test-1');
    const again = await agent.pay('client-agent', body, 'client-test-1');
    expect(first.status).toBe(200);
    expect(again.body).toMatchObject({ paymentId: first.status === 200 ? first.body.paymentId : 'none' });
    expect((await agent.spendHistory('client-agent')).payments).toHaveLength(1);
  });

  it("fails with one error type: the server's status, code and message, or coffer_unreachable when nothing answers", async () => {
    const refused = await agent.kill('someone-else').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CofferApiError);
    expect(refused).toMatchObject({ status: 403, code: 'wrong_agent' });
    const gone = await keyClient('http://127.0.0.1:9', { owner: t.owner })
      .health()
      .catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(CofferApiError);
    expect(gone).toMatchObject({ status: 0, code: 'coffer_unreachable', message: expect.stringMatching(/coffer serve/) });
  });

  it("signs in by a dashboard session's header as well (the dashboard's transport)", async () => {
    const token = await signIn(t);
    const page = createCofferClient(
      createTransport({
        base: t.url,
        owner: t.owner,
        auth: () => ({ authorization: `Bearer ${token}` }),
        unreachable: () => new CofferApiError(0, 'offline', 'offline'),
      }),
    );
    expect((await page.session()).owner).toBe(t.owner);
    expect((await page.dashboard()).agents.map((row) => row.agentId)).toContain('client-agent');
    expect(page.eventsUrl()).toBe(`${t.url}/v1/events?owner=${t.owner}`);
  });
});
