import { describe, expect, it } from 'vitest';
import type { FacilitatorClient } from '@x402/core/server';
import { SettleError, VerifyError, type PaymentPayload, type PaymentRequirements } from '@x402/core/types';
import { ResumableSettles, verifiedAndSettled } from '../../../../../server/x402/paywall/x402-settlement.js';

/**
 * A facilitator at a URL (the edge of the world) whose settlement stays pending while its chain has
 * not mined, then resumes it; its verify refuses an authorization already used, as the official EVM
 * facilitator's simulation does.
 */
function slowFacilitator() {
  const state = { mined: false, used: false, verifies: 0, settles: 0 };
  const facilitator: FacilitatorClient = {
    getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
    verify: async () => {
      state.verifies += 1;
      return state.used ? { isValid: false, invalidReason: 'nonce_used', payer: '0xpayer' } : { isValid: true, payer: '0xpayer' };
    },
    settle: async (_payload, requirements) => {
      state.settles += 1;
      state.used = true;
      return state.mined
        ? { success: true, transaction: '0xabc', network: requirements.network, payer: '0xpayer' }
        : { success: false, errorReason: 'settlement_pending', transaction: '0xabc', network: requirements.network, payer: '0xpayer' };
    },
  } as FacilitatorClient;
  return { facilitator, state };
}

const payload = { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { signature: '0x1' } } as unknown as PaymentPayload;

/** A facilitator that verifies any payment and fails to settle it, saying `failure`. */
const failingWith = (failure: { errorReason: string; transaction?: string }) =>
  ({
    getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
    verify: async () => ({ isValid: true, payer: '0xpayer' }),
    settle: async (_payload: PaymentPayload, requirements: PaymentRequirements) => ({
      success: false,
      transaction: '',
      network: requirements.network,
      ...failure,
    }),
  }) as unknown as FacilitatorClient;

/** A payment's settlement as the chain shows it (where it ran: null for nowhere), and what was said of it. */
const onChainAt = (transaction: string | null) => {
  const asked: string[] = [];
  return {
    asked,
    settling: () => (asked.push('settling'), true),
    named: (sent: string) => void asked.push(`named ${sent}`),
    settledIn: (sent: string) => void asked.push(`settled in ${sent}`),
    ranElsewhere: () => void asked.push('ran elsewhere'),
    ranIn: async () => (asked.push('ran in'), transaction === null ? null : { transaction, payer: '0xpayer' }),
  };
};
const route = (amount: string) =>
  ({ scheme: 'exact', network: 'base-sepolia', maxAmountRequired: amount, payTo: '0xseller' }) as unknown as PaymentRequirements;

describe('a settlement left pending', () => {
  it('is resumed when the same payment is presented again for the same terms, and verified afresh for other terms', async () => {
    const { facilitator, state } = slowFacilitator();
    const settlements = new ResumableSettles();
    const pending = { settlements, until: 10_000, now: 1_000 };
    await expect(verifiedAndSettled(facilitator, payload, route('10000'), pending)).rejects.toThrow(/has not finished settling 0xabc/);
    expect(state).toMatchObject({ verifies: 1, settles: 2 });
    state.mined = true;
    // On a dearer route: verified afresh, and the used authorization is refused.
    expect(await verifiedAndSettled(facilitator, payload, route('1000000'), pending)).toMatchObject({
      ok: false,
      code: 'payment_rejected',
    });
    // On its own route: settled, with no verify.
    expect(await verifiedAndSettled(facilitator, payload, route('10000'), pending)).toMatchObject({
      ok: true,
      settled: { transaction: '0xabc' },
      payer: '0xpayer',
    });
    expect(state).toMatchObject({ verifies: 2, settles: 3 });
    // Settled, it is forgotten: presented again, it is verified (and refused).
    expect(await verifiedAndSettled(facilitator, payload, route('10000'), pending)).toMatchObject({ ok: false });
    expect(state.verifies).toBe(3);
  });

  it('is forgotten once its terms end', async () => {
    const { facilitator, state } = slowFacilitator();
    const settlements = new ResumableSettles();
    await expect(verifiedAndSettled(facilitator, payload, route('10000'), { settlements, until: 2_000, now: 1_000 })).rejects.toThrow();
    state.mined = true;
    expect(await verifiedAndSettled(facilitator, payload, route('10000'), { settlements, until: 9_000, now: 2_001 })).toMatchObject({
      ok: false,
    });
    expect(state.verifies).toBe(2);
  });
});

describe('a payment whose settlement was left pending, refused after a restart', () => {
  /** A Base payment as the chain shows it: where it ran (null: not where it was sent), and what was asked of it. */
  const onChain = (transaction: string | null) => {
    const asked: string[] = [];
    return {
      asked,
      settling: (payer: string) => (asked.push(`settling, paid by ${payer}`), true),
      named: (sent: string) => void asked.push(`named ${sent}`),
      settledIn: (sent: string) => void asked.push(`settled in ${sent}`),
      ranElsewhere: () => void asked.push('ran elsewhere'),
      ranIn: async () => (asked.push('ran in'), transaction === null ? null : { transaction, payer: '0xpayer' as `0x${string}` }),
    };
  };

  it('is remembered with its transaction when left pending, and settled where the chain shows that transaction paid it', async () => {
    const { facilitator, state } = slowFacilitator();
    const first = onChain(null);
    const before = { settlements: new ResumableSettles(), until: 10_000, now: 1_000 };
    await expect(verifiedAndSettled(facilitator, payload, route('10000'), before, first)).rejects.toThrow(/has not finished/);
    // Each settlement remembered as it began, then with the transaction the facilitator said it sent
    // (asked twice: a facilitator that lost what it sent may send again).
    expect(first.asked).toEqual(['settling, paid by 0xpayer', 'named 0xabc', 'settling, paid by 0xpayer', 'named 0xabc']);
    state.mined = true;
    // Presented again to the same paywall, it resumes: a settlement that begins (the facilitator may
    // send again, and its answer be lost), the transactions named before kept (pending-settlements.ts).
    const resumed = onChain(null);
    expect(await verifiedAndSettled(facilitator, payload, route('10000'), before, resumed)).toMatchObject({ ok: true });
    // (no verify: the payer is the one remembered), then the transaction it settled, remembered as
    // settled before the payment is recorded.
    expect(resumed.asked).toEqual(['settling, paid by ', 'settled in 0xabc']);
    // Restarted: nothing in memory; the facilitator's verify refuses the used authorization.
    const after = { settlements: new ResumableSettles(), until: 10_000, now: 2_000 };
    const landed = onChain('0xabc');
    expect(await verifiedAndSettled(facilitator, payload, route('10000'), after, landed)).toEqual({
      ok: true,
      settled: { success: true, transaction: '0xabc', network: 'base-sepolia', payer: '0xpayer' },
      payer: '0xpayer',
    });
    const nowhere = onChain(null);
    expect(await verifiedAndSettled(facilitator, payload, route('10000'), after, nowhere)).toMatchObject({
      ok: false,
      code: 'payment_rejected',
    });
    expect([landed.asked, nowhere.asked]).toEqual([['ran in'], ['ran in']]);
    expect(state.settles).toBe(3);
  });

  it('left pending, then answered otherwise by the retry (a facilitator that lost what it sent): the first transaction stays named', async () => {
    const answers = [
      { success: false, errorReason: 'settlement_pending', transaction: '0xfirst' },
      { success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '' },
    ];
    const forgetful = {
      getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
      verify: async () => ({ isValid: true, payer: '0xpayer' }),
      settle: async (_payload: PaymentPayload, requirements: PaymentRequirements) => ({
        ...answers.shift()!,
        network: requirements.network,
      }),
    } as unknown as FacilitatorClient;
    const chain = onChain('0xfirst');
    expect(
      await verifiedAndSettled(
        forgetful,
        payload,
        route('10000'),
        { settlements: new ResumableSettles(), until: 10_000, now: 1_000 },
        chain,
      ),
    ).toMatchObject({
      ok: true,
      settled: { transaction: '0xfirst' },
    });
    expect(chain.asked).toEqual(['settling, paid by 0xpayer', 'named 0xfirst', 'settling, paid by 0xpayer', 'ran in']);
  });

  it('when its settlement then fails, is settled where the chain shows it paid (a facilitator that lost what it sent)', async () => {
    const failing = failingWith({ errorReason: 'invalid_exact_evm_nonce_already_used' });
    const pending = { settlements: new ResumableSettles(), until: 10_000, now: 1_000 };
    const landed = onChain('0xlanded');
    expect(await verifiedAndSettled(failing, payload, route('10000'), pending, landed)).toMatchObject({
      ok: true,
      settled: { transaction: '0xlanded' },
    });
    expect(landed.asked).toEqual(['settling, paid by 0xpayer', 'ran elsewhere', 'ran in']);
    expect(await verifiedAndSettled(failing, payload, route('10000'), pending)).toMatchObject({ ok: false, code: 'payment_rejected' });
  });

  it('is remembered by what its failed settlement said it sent: a transaction, the authorization run before, or nothing sure', async () => {
    const pending = { settlements: new ResumableSettles(), until: 10_000, now: 1_000 };
    const said = async (failure: { errorReason: string; transaction?: string }) => {
      const chain = onChain(null);
      const answer = await verifiedAndSettled(failingWith(failure), payload, route('10000'), pending, chain).catch((error: Error) => error);
      return { answer, said: chain.asked.slice(1, -1) };
    };
    expect(await said({ errorReason: 'invalid_exact_evm_transaction_failed', transaction: '0xreverted' })).toEqual({
      answer: expect.objectContaining({ ok: false, code: 'payment_rejected' }),
      said: ['named 0xreverted'],
    });
    expect(await said({ errorReason: 'invalid_exact_evm_nonce_already_used' })).toEqual({
      answer: expect.objectContaining({ ok: false, code: 'payment_rejected' }),
      said: ['ran elsewhere'],
    });
    // A send that threw after its broadcast, in the official EVM facilitator's words: it may have run,
    // and the chain not show it yet. The outcome is unknown (503): presented again, it is asked again.
    const unsure = await said({ errorReason: 'invalid_exact_evm_transaction_failed' });
    expect(unsure.said).toEqual([]);
    expect(unsure.answer).toBeInstanceOf(Error);
    expect((unsure.answer as Error).message).toMatch(/did not say whether it sent the payment \(invalid_exact_evm_transaction_failed\)/);
  });
});

describe('a facilitator over HTTP that answers with a status other than 2xx', () => {
  const pending = () => ({ settlements: new ResumableSettles(), until: 10_000, now: 1_000 });
  const over = (verify: () => Promise<never> | Promise<object>, settle: () => Promise<never> | Promise<object>) =>
    ({ getSupported: async () => ({ kinds: [], extensions: [], signers: {} }), verify, settle }) as unknown as FacilitatorClient;
  const valid = async () => ({ isValid: true, payer: '0xpayer' });

  it('refusing in a 4xx, is refused as in a 200; in a 5xx, or unreadable, the outcome is unknown (503)', async () => {
    const refusal = { isValid: false, invalidReason: 'invalid_exact_evm_signature', invalidMessage: 'bad', payer: '0xpayer' };
    const refused = over(
      () => Promise.reject(new VerifyError(400, refusal)),
      () => Promise.reject(new Error('not asked')),
    );
    expect(await verifiedAndSettled(refused, payload, route('10000'), pending())).toMatchObject({
      ok: false,
      code: 'payment_rejected',
      reason: expect.stringContaining('invalid_exact_evm_signature (bad)'),
    });
    for (const thrown of [new VerifyError(502, refusal), new Error('Facilitator verify failed (500): <html>')]) {
      await expect(
        verifiedAndSettled(
          over(() => Promise.reject(thrown), valid),
          payload,
          route('10000'),
          pending(),
        ),
      ).rejects.toBe(thrown);
    }
  });

  it('failing a settlement in a 4xx, fails it as in a 200; a 5xx naming its transaction leaves it pending, naming none unknown', async () => {
    const failed = {
      success: false,
      errorReason: 'invalid_exact_evm_transaction_failed',
      transaction: '0xreverted',
      network: 'eip155:84532' as const,
    };
    const chain = onChainAt(null);
    expect(
      await verifiedAndSettled(
        over(valid, () => Promise.reject(new SettleError(400, failed))),
        payload,
        route('10000'),
        pending(),
        chain,
      ),
    ).toMatchObject({
      ok: false,
      code: 'payment_rejected',
    });
    expect(chain.asked).toEqual(['settling', 'named 0xreverted', 'ran in']);
    const sent = onChainAt(null);
    await expect(
      verifiedAndSettled(
        over(valid, () => Promise.reject(new SettleError(503, failed))),
        payload,
        route('10000'),
        pending(),
        sent,
      ),
    ).rejects.toThrow(/has not finished settling 0xreverted/);
    expect(sent.asked).toEqual(['settling', 'named 0xreverted', 'settling', 'named 0xreverted']);
    const unknown = new SettleError(500, { ...failed, transaction: '' });
    await expect(
      verifiedAndSettled(
        over(valid, () => Promise.reject(unknown)),
        payload,
        route('10000'),
        pending(),
      ),
    ).rejects.toBe(unknown);
  });
});

describe("a facilitator's refusal in the buyer's answer", () => {
  it("keeps its words' first paragraph, in one line: never the node's URL (a hosted RPC's carries its key) viem adds below", async () => {
    const nodeDown = [
      'HTTP request failed.',
      '',
      'URL: https://base-mainnet.example.com/v2/SECRETKEY',
      'Request body: {"method":"eth_call"}',
      '',
      'Details: fetch failed',
      'Version: viem@2.57.20',
    ].join('\n');
    const reverted = [
      'The contract function "transferWithAuthorization" reverted with the following reason:',
      'FiatTokenV2: authorization is used or canceled',
      '',
      'Contract Call:',
      '  address:   0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      '',
      'Docs: https://viem.sh/docs/contract/readContract',
    ].join('\n');
    const refusing = (message: string): FacilitatorClient =>
      ({
        getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
        verify: async () => ({ isValid: false, invalidReason: 'invalid_exact_evm_transaction_simulation_failed', invalidMessage: message }),
        settle: async (_payload, requirements) => ({
          success: false,
          errorReason: 'failed',
          errorMessage: message,
          transaction: '',
          network: requirements.network,
        }),
      }) as FacilitatorClient;
    const pending = { settlements: new ResumableSettles(), until: 10_000, now: 1_000 };
    const words = async (message: string) => {
      const refused = await verifiedAndSettled(refusing(message), payload, route('10000'), pending);
      return refused.ok ? null : refused.reason;
    };
    expect(await words(nodeDown)).toBe(
      'the facilitator refused the payment: invalid_exact_evm_transaction_simulation_failed (HTTP request failed)',
    );
    expect(await words(reverted)).toBe(
      'the facilitator refused the payment: invalid_exact_evm_transaction_simulation_failed (The contract function "transferWithAuthorization" reverted with the following reason: FiatTokenV2: authorization is used or canceled)',
    );
  });
});
