import { describe, expect, it } from 'vitest';
import { fundedAgent, UNLISTED_API } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { acrossRestart } from '../helpers/restart.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import type { TestCoffer } from '../helpers/coffer.js';
import { tryParseUsdc } from '../../server/wire/money.js';

/**
 * Payments held for the owner's yes (issue 26), over HTTP on a real server, a SQLite file and the
 * embedded chain: 202 with the approval, a long poll that answers on the decision, the key's replay,
 * bad thresholds refused, and a race of holds, approvals, denials and a kill that never pays twice,
 * after a deny or a kill, or past a budget, with the ledger equal to the chain.
 */
const micro = (text: string) => tryParseUsdc(text) ?? -1n;

async function asking(t: TestCoffer, agentId: string, funds: string, policy: Record<string, unknown>) {
  const agent = await fundedAgent(t, agentId, funds);
  const set = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/policy`), { body: policy });
  if (set.status !== 200) throw new Error(`policy: ${set.status} ${JSON.stringify(set.body)}`);
  return agent;
}

/** The ledger's view of the wallet (allocated less confirmed payments) against the chain's. */
async function ledgerAndChain(t: TestCoffer, agentId: string, allocated: string) {
  const history = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history?limit=500`));
  const paid = (history.body.payments as { amount: string; status: string }[])
    .filter((p) => p.status === 'confirmed')
    .reduce((sum, p) => sum + micro(p.amount), 0n);
  const balance = await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`));
  return {
    ledger: micro(allocated) - paid,
    chain: micro(balance.body.balance as string),
    history: history.body.payments as { id: string; status: string }[],
  };
}

describe('held payments over HTTP', () => {
  const t = useCoffer();

  it('above askAbove: 202 with the approval; a long poll answers once the owner approves; the key replays the payment', async () => {
    const agent = await asking(t, 'asker', '10', { askAbove: '1' });
    const body = { ...UNLISTED_API, amount: '2.50' };
    const heldAnswer = await payUsdc(t, 'asker', agent.apiKey, body, { 'idempotency-key': 'held-1' });
    expect(heldAnswer.status).toBe(202);
    expect(heldAnswer.body).toMatchObject({
      approvalId: expect.stringMatching(/^apr_/),
      kind: 'payment',
      status: 'pending',
      paymentId: expect.stringMatching(/^pay_/),
      request: { amount: '2.50', recipient: UNLISTED_API.recipient, reason: { code: 'ask_above' } },
      expiresAt: expect.any(String),
    });
    const { approvalId, paymentId } = heldAnswer.body as { approvalId: string; paymentId: string };
    // The same request again under its key: the same approval, still waiting.
    const again = await payUsdc(t, 'asker', agent.apiKey, body, { 'idempotency-key': 'held-1' });
    expect(again).toMatchObject({ status: 202, body: { approvalId } });
    // The agent waits; the owner approves meanwhile.
    const waited = t.api('GET', t.withOwner(`/v1/approvals/${approvalId}?wait=30`), { key: agent.apiKey });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const approved = await t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/approve`));
    expect(approved.body).toMatchObject({
      status: 'approved',
      result: { paymentId, status: 'confirmed', xPaymentHeader: expect.any(String) },
    });
    expect((await waited).body).toMatchObject({ status: 'approved', result: { paymentId, status: 'confirmed' } });
    const replay = await payUsdc(t, 'asker', agent.apiKey, body, { 'idempotency-key': 'held-1' });
    expect(replay).toMatchObject({ status: 200, body: { paymentId, status: 'confirmed' } });
    const { ledger, chain } = await ledgerAndChain(t, 'asker', '10');
    expect(chain).toBe(micro('7.50'));
    expect(ledger).toBe(chain);
  });

  it('denied: the replay is 403 payment_denied and nothing moved; a short wait on a pending request answers it still pending', async () => {
    const agent = await asking(t, 'denied', '5', { askAbove: '1' });
    const heldAnswer = await payUsdc(t, 'denied', agent.apiKey, { ...UNLISTED_API, amount: '2' }, { 'idempotency-key': 'd-1' });
    const { approvalId } = heldAnswer.body as { approvalId: string };
    const waited = await t.api('GET', t.withOwner(`/v1/approvals/${approvalId}?wait=1`), { key: agent.apiKey });
    expect(waited.body).toMatchObject({ status: 'pending' });
    expect((await t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/deny`))).body).toMatchObject({ status: 'denied' });
    expectError(
      await payUsdc(t, 'denied', agent.apiKey, { ...UNLISTED_API, amount: '2' }, { 'idempotency-key': 'd-1' }),
      403,
      'payment_denied',
    );
    expect((await ledgerAndChain(t, 'denied', '5')).chain).toBe(micro('5'));
    // Its history and the dashboard say why it failed: the owner said no.
    const { paymentId } = heldAnswer.body as { paymentId: string };
    const history = (await t.api('GET', t.withOwner('/v1/agents/denied/spend-history'))).body.payments as { id: string }[];
    expect(history.find((payment) => payment.id === paymentId)).toMatchObject({ status: 'failed', errorCode: 'payment_denied' });
    const activity = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentActivity as { id: string }[];
    expect(activity.find((payment) => payment.id === paymentId)).toMatchObject({ status: 'failed', errorCode: 'payment_denied' });
  });

  it('bad input is a clear 400 and changes nothing', async () => {
    await asking(t, 'strict', '1', { askAbove: '0.50' });
    const path = t.withOwner('/v1/agents/strict/policy');
    expectError(await t.api('POST', path, { body: { askAbove: '-1' } }), 400, 'invalid_policy', /Ask above must be an amount/);
    expectError(await t.api('POST', path, { body: { askAbove: '11' } }), 400, 'invalid_policy', /above the max per payment/);
    expectError(await t.api('POST', path, { body: { askAbove: 1 } }), 400, 'invalid_policy');
    expectError(await t.api('POST', path, { body: { askNewRecipient: 'yes' } }), 400, 'invalid_policy');
    expect((await t.api('GET', path)).body.policy).toMatchObject({ askAbove: '0.50' });
    expect((await t.api('GET', path)).body.policy).not.toHaveProperty('askNewRecipient');
    expectError(await t.api('GET', t.withOwner('/v1/approvals/apr_x?wait=61')), 400, 'invalid_request', /wait/);
    expectError(await t.api('GET', t.withOwner('/v1/approvals/apr_x?wait=soon')), 400, 'invalid_request', /wait/);
  });

  it('a race of holds, double approvals, denials and a kill: none paid twice, after a deny or a kill, or past the budget; ledger == chain', async () => {
    const agent = await asking(t, 'racer', '20', { askAbove: '0.50', dailyBudget: '6' });
    const amounts = ['0.60', '0.70', '0.80', '0.90', '1.00', '1.10', '1.20', '1.30'];
    const held = await Promise.all(amounts.map((amount) => payUsdc(t, 'racer', agent.apiKey, { ...UNLISTED_API, amount })));
    // 0.60 + … + 1.20 = 6.30 > 6: the holds count against the daily budget, so the last to come are refused.
    const waiting = held
      .filter((r) => r.status === 202)
      .map((r) => r.body as { approvalId: string; paymentId: string; request: { amount: string } });
    const refused = held.filter((r) => r.status !== 202);
    expect(refused.length).toBeGreaterThan(0);
    expect(waiting.length).toBeGreaterThanOrEqual(5);
    expect(refused.every((r) => r.body.code === 'daily_budget_exceeded')).toBe(true);
    // Every sum counted is held, not paid, and the refusal says so.
    expect(
      refused.every((r) =>
        /USDC spent in the last 24 h on any rail \([\d.]+ of it held for the owner's yes, not paid\)$/.test(String(r.body.error)),
      ),
    ).toBe(true);
    expect(waiting.reduce((sum, a) => sum + micro(a.request.amount), 0n)).toBeLessThanOrEqual(micro('6'));
    const [denyFirst, ...rest] = waiting;
    const decisions = await Promise.all([
      t.api('POST', t.withOwner(`/v1/approvals/${denyFirst!.approvalId}/deny`)),
      t.api('POST', t.withOwner(`/v1/approvals/${denyFirst!.approvalId}/approve`)),
      ...rest.flatMap((a) => [
        t.api('POST', t.withOwner(`/v1/approvals/${a.approvalId}/approve`)),
        t.api('POST', t.withOwner(`/v1/approvals/${a.approvalId}/approve`)),
      ]),
      t.api('POST', t.withOwner('/v1/agents/racer/kill')),
      ...rest.map((a) => t.api('POST', t.withOwner(`/v1/approvals/${a.approvalId}/deny`))),
    ]);
    expect(decisions.every((d) => d.status === 200 || d.body.code === 'approval_decided')).toBe(true);
    const approvals = await Promise.all(waiting.map((a) => t.api('GET', t.withOwner(`/v1/approvals/${a.approvalId}`))));
    const { ledger, chain, history } = await ledgerAndChain(t, 'racer', '20');
    const confirmed = history.filter((p) => p.status === 'confirmed');
    // Paid exactly the approved ones, once each; the denied, withdrawn and refused ones moved nothing.
    const approved = approvals.filter((a) => a.body.status === 'approved');
    expect(confirmed).toHaveLength(approved.length);
    const rows = history as { id: string; status: string }[];
    for (const [i, a] of approvals.entries()) {
      const row = rows.find((p) => p.id === waiting[i]!.paymentId);
      expect(row?.status).toBe(a.body.status === 'approved' ? 'confirmed' : 'failed');
    }
    expect(approvals.find((a) => a.body.approvalId === denyFirst!.approvalId)?.body.status).toMatch(/denied|approved/);
    expect(micro('20') - chain).toBeLessThanOrEqual(micro('6'));
    expect(ledger).toBe(chain);
  });

  it('a held payment outlives a restart: approved after it, it is paid once', async () => {
    await acrossRestart(
      async (first) => {
        const agent = await asking(first, 'sleeper', '3', { askAbove: '1' });
        const heldAnswer = await payUsdc(first, 'sleeper', agent.apiKey, { ...UNLISTED_API, amount: '2' });
        expect(heldAnswer.status).toBe(202);
        return heldAnswer.body as { approvalId: string; paymentId: string };
      },
      async (second, { approvalId, paymentId }) => {
        expect((await second.api('GET', second.withOwner('/v1/approvals?status=pending'))).body.approvals).toHaveLength(1);
        const approved = await second.api('POST', second.withOwner(`/v1/approvals/${approvalId}/approve`));
        expect(approved.body).toMatchObject({ status: 'approved', result: { paymentId, status: 'confirmed' } });
        expect((await ledgerAndChain(second, 'sleeper', '3')).chain).toBe(micro('1'));
      },
    );
  });
});
