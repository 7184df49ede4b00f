import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoffer, fundedAgent, type TestCoffer } from '../helpers/coffer.js';

describe('smoke', () => {
  let t: TestCoffer;
  beforeAll(async () => {
    t = await startCoffer();
  });
  afterAll(async () => t.stop());

  it('deploys, funds and pays', async () => {
    const agent = await fundedAgent(t, 'smoke', '5');
    const paid = await t.api('POST', t.withOwner('/v1/agents/smoke/pay'), {
      key: agent.apiKey,
      body: { service: 'demo-weather', amount: '0.01', currency: 'USDC', description: 'x' },
    });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('confirmed');
  });
});
