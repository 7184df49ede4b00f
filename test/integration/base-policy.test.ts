import { createPublicClient, getAddress, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { USDC_ABI } from '../../server/chain/evm/usdc-abi.js';
import { BUDGET_WINDOWS, type BudgetWindow } from '../../server/wire/policy/windows.js';
import { WINDOW_WORDS } from '../../server/wire/policy/budget.js';
import { RAILS, type Rail } from '../../server/wire/rails.js';
import { deployAgent, manualClock, micro, UNLISTED_API, type ApiResponse } from '../helpers/coffer.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { payUsdc } from '../helpers/pay.js';
import { expectError } from '../helpers/expect-error.js';
import { chainReader } from '../helpers/chain-reader.js';

/**
 * One policy over both rails (issue 49; API.md, "The Base rail"): every rule of an agent's policy
 * judges its Solana and its Base payments together, with the same refusal codes. Each test mixes the
 * rails so that what a rule counts (an amount, a number of payments, a time since the last) spans
 * both, with numbers such that either rail's payments alone would pass: a rule that judged one rail
 * only fails here. The daily budget, max per payment, the balance and the kill switch are
 * base-payments.test.ts's.
 */
const SOL_SELLER = UNLISTED_API.recipient;
const evmAccount = () => getAddress(privateKeyToAccount(generatePrivateKey()).address);
const BASE_SELLER = evmAccount();

const MINUTE = 60_000;
/**
 * The tests' clock: the 15th of a month at noon UTC (the owner's zone is set to UTC), so the
 * calendar windows (day, week from Monday, month) hold every payment the file makes, the clock moving
 * a few hours in all. Later than the wall clock: the embedded EVM chain's blocks never go back in time.
 */
const now = new Date();
const clock = manualClock(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 15, 12));

type Paid = ApiResponse & { rail: Rail };

/**
 * Every answer to a payment the file asks of the two sellers above, refusals with the payments: what
 * the sellers' wallets must hold on chain at the end (the file's last test), so that a refusal which
 * moved money anyway cannot pass on its answer and its ledger row alone.
 */
const toTheSellers: { rail: Rail; recipient: string | undefined; answer: ApiResponse }[] = [];
/** Keeps an answer for that test: paid, the recipient it names (a registry service's own), else the one asked. */
const kept = (rail: Rail, asked: unknown, answer: ApiResponse): void => {
  toTheSellers.push({ rail, recipient: (answer.body?.recipient as string | undefined) ?? (asked as string | undefined), answer });
};

const SELLERS: Record<Rail, string> = { sol: SOL_SELLER, base: BASE_SELLER };
let sellersBalance: ReturnType<typeof chainReader>;
const sellersAtStart = {} as Record<Rail, bigint>;

describe('one policy over both rails: each rule judges Solana and Base payments together', () => {
  const t = useCoffer({ clock });
  const policyPath = (agentId: string) => t.withOwner(`/v1/agents/${agentId}/policy`);
  const whatIfPath = (agentId: string) => t.withOwner(`/v1/agents/${agentId}/policy/what-if`);

  beforeAll(async () => {
    const zone = await t.api('POST', t.withOwner('/v1/settings'), { body: { timeZone: 'UTC' } });
    expect(zone.status, JSON.stringify(zone.body)).toBe(200);
    // The treasury's Base account is topped up by the sim faucet; every agent is funded on both rails from it.
    const minted = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '200', rail: 'base' } });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const health = await t.api('GET', '/v1/health', { key: null });
    sellersBalance = chainReader(t.url, health.body.usdcMint as string);
    for (const rail of RAILS) sellersAtStart[rail] = await sellersBalance(rail, SELLERS[rail]);
  });

  /**
   * An agent with `policy` (set by the owner after the deploy), funded with `funds` USDC on each rail,
   * and its payments: on Solana to an unlisted seller, on Base to an EVM address (BASE_SELLER unless
   * told). Each answer says the rail it was asked on; a 200 must say that rail too.
   */
  async function twoRailAgent(agentId: string, policy: Record<string, unknown> = {}, funds = '10') {
    const { apiKey } = await deployAgent(t, agentId, { dailyBudget: '100', maxPerPayment: '10' });
    if (Object.keys(policy).length > 0) {
      const set = await t.api('POST', policyPath(agentId), { body: policy });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
    }
    for (const rail of RAILS) {
      const allocated = await t.api('POST', t.withOwner(`/v1/agents/${agentId}/allocate`), { body: { amount: funds, rail } });
      expect(allocated.status, JSON.stringify(allocated.body)).toBe(200);
    }
    // Payments come after the deploy in time, as they would: the breaker reads "since the agent last changed state".
    clock.advance(1_000);
    const paid = async (rail: Rail, body: Record<string, unknown>, headers?: Record<string, string>): Promise<Paid> => {
      const answer = await payUsdc(t, agentId, apiKey, body, headers);
      kept(rail, body.recipient, answer);
      if (answer.status === 200) expect(answer.body.rail).toBe(rail);
      return { ...answer, rail };
    };
    return {
      apiKey,
      sol: (amount: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
        paid('sol', { service: 'sol-api', recipient: SOL_SELLER, amount, ...extra }, headers),
      base: (amount: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
        paid('base', { service: 'base-api', recipient: BASE_SELLER, amount, ...extra }, headers),
    };
  }

  /** The dashboard's recent activity (every agent's, newest first) by payment id: the ledger's rows as listed. */
  async function activityById(): Promise<Map<string, { rail: string; status: string; amount: string; agent: string }>> {
    const dashboard = await t.api('GET', t.withOwner('/v1/dashboard'));
    expect(dashboard.status).toBe(200);
    const rows = dashboard.body.recentActivity as { id: string; rail: string; status: string; amount: string; agent: string }[];
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** Every paid answer's ledger row is listed with the rail it was paid on. */
  async function expectListedOnTheirRails(paid: Paid[]): Promise<void> {
    const listed = await activityById();
    const made = paid.filter((answer) => answer.status === 200);
    expect(made.length).toBeGreaterThan(0);
    expect(made.map((answer) => listed.get(answer.body.paymentId as string)?.rail)).toEqual(made.map((answer) => answer.rail));
    expect(new Set(made.map((answer) => answer.rail))).toEqual(new Set(RAILS));
  }

  const statusOf = async (agentId: string) => {
    const agents = await t.api('GET', t.withOwner('/v1/agents'));
    return (agents.body.agents as { agentId: string; status: string; statusReason?: string }[]).find((row) => row.agentId === agentId);
  };

  it('cooldown: a Base payment within the cooldown of a Solana one is refused cooldown_active, and the other way round', async () => {
    const agent = await twoRailAgent('spaced', { cooldownSeconds: 60 });
    const paid: Paid[] = [await agent.sol('0.10')];
    expect(paid[0]!.status).toBe(200);
    clock.advance(20_000);
    // The agent's first payment on Base: a cooldown judged per rail would let it through.
    const early = await agent.base('0.10');
    expectError(early, 402, 'cooldown_active', /next payment allowed in 40 s/);
    expect(early.headers.get('retry-after')).toBe('40');
    clock.advance(40_000);
    paid.push(await agent.base('0.10'));
    expect(paid[1]!.status).toBe(200);
    clock.advance(59_000);
    const back = await agent.sol('0.10');
    expectError(back, 402, 'cooldown_active');
    expect(back.headers.get('retry-after')).toBe('1');
    clock.advance(1_000);
    paid.push(await agent.sol('0.10'));
    expect(paid[2]!.status).toBe(200);
    // Measured from the last payment whatever its rail: the Solana one just made holds Base back again.
    expectError(await agent.base('0.10'), 402, 'cooldown_active');
    await expectListedOnTheirRails(paid);
  });

  describe.each(BUDGET_WINDOWS)('a budget of an amount over %s', (window: BudgetWindow) => {
    it('holds what both rails spent in it: 0.60 on Solana leave 0.40 for Base, and the other way round', async () => {
      const agentId = `amount-${window}`;
      const agent = await twoRailAgent(agentId, { budgets: [{ amount: '1', window }] });
      const paid: Paid[] = [await agent.sol('0.60')];
      expect(paid[0]!.status).toBe(200);
      // 0.50 alone fits 1 USDC: refused only because the Solana payment counts.
      const words = `1.00 USDC ${WINDOW_WORDS[window]}`;
      expectError(await agent.base('0.50'), 402, 'budget_exceeded', new RegExp(`budget of ${words}: 0\\.60 USDC spent`));
      paid.push(await agent.base('0.40'));
      expect(paid[1]!.status).toBe(200);
      // And the other way: the Base payment counts against a Solana one (0.60 + 0.01 on Solana alone would fit).
      expectError(await agent.sol('0.01'), 402, 'budget_exceeded', new RegExp(`budget of ${words}: 1\\.00 USDC spent`));
      const read = await t.api('GET', policyPath(agentId));
      expect(read.body.budgets).toEqual([expect.objectContaining({ amount: '1.00', window, spent: '1.00', remaining: '0.00' })]);
      await expectListedOnTheirRails(paid);
    });
  });

  describe.each(BUDGET_WINDOWS)('a budget of a count of payments over %s', (window: BudgetWindow) => {
    it('counts the payments of both rails: one on each makes two of two', async () => {
      const agentId = `count-${window}`;
      const agent = await twoRailAgent(agentId, { budgets: [{ count: 2, window }] });
      const paid: Paid[] = [await agent.sol('0.01'), await agent.base('0.01')];
      expect(paid.map((answer) => answer.status)).toEqual([200, 200]);
      // Each rail has made one payment: counted per rail, either would make a second.
      const words = `2 payments ${WINDOW_WORDS[window]}`;
      expectError(await agent.base('0.01'), 402, 'budget_exceeded', new RegExp(`budget of ${words}: 2 made`));
      expectError(await agent.sol('0.01'), 402, 'budget_exceeded', new RegExp(`budget of ${words}: 2 made`));
      const read = await t.api('GET', policyPath(agentId));
      expect(read.body.budgets).toEqual([expect.objectContaining({ count: 2, window, made: 2, remaining: 0 })]);
      await expectListedOnTheirRails(paid);
    });
  });

  it('a rolling window frees as the payments of either rail grow older than it', async () => {
    const agent = await twoRailAgent('hourly', { budgets: [{ amount: '1', window: 'hour' }] });
    const paid: Paid[] = [await agent.sol('0.60')];
    clock.advance(30 * MINUTE);
    expectError(await agent.base('0.50'), 402, 'budget_exceeded', /in any hour: 0\.60 USDC spent/);
    paid.push(await agent.base('0.40'));
    clock.advance(30 * MINUTE - 1);
    expectError(await agent.base('0.01'), 402, 'budget_exceeded', /in any hour: 1\.00 USDC spent/);
    // An hour after the Solana payment it leaves the window; the Base one, half an hour old, stays in it.
    clock.advance(1);
    expectError(await agent.base('0.61'), 402, 'budget_exceeded', /in any hour: 0\.40 USDC spent/);
    paid.push(await agent.base('0.60'));
    expect(paid.map((answer) => answer.status)).toEqual([200, 200, 200]);
    await expectListedOnTheirRails(paid);
  });

  it("a recipient's budget on an EVM address holds every payment to that account, however its address is spelled", async () => {
    const held = evmAccount();
    const other = evmAccount();
    const agent = await twoRailAgent('to-one', {
      budgets: [
        { amount: '1', window: 'day', recipient: held.toLowerCase() },
        { amount: '0.5', window: 'day', recipient: SOL_SELLER },
        { amount: '2', window: 'day' },
      ],
    });
    // Kept in its checksum spelling, as payments to it are.
    expect((await t.api('GET', policyPath('to-one'))).body.policy.budgets[0]).toEqual({ amount: '1.00', window: 'day', recipient: held });
    const paid: Paid[] = [await agent.base('0.60', { recipient: held })];
    // Sent in lower case: the same account, the same budget (0.50 alone would fit it).
    expectError(
      await agent.base('0.50', { recipient: held.toLowerCase() }),
      402,
      'budget_exceeded',
      new RegExp(`1\\.00 USDC a day to ${held}: 0\\.60 USDC spent`),
    );
    // Other recipients, on either rail, are not held by it.
    paid.push(await agent.base('0.50', { recipient: other }), await agent.sol('0.40'));
    paid.push(await agent.base('0.40', { recipient: held.toLowerCase() }));
    expect(paid.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(paid[3]!.body.recipient).toBe(held);
    expectError(await agent.base('0.01', { recipient: held }), 402, 'budget_exceeded', /a day to 0x/);
    // The budget over every payment holds both rails: 1.90 spent, 0.20 more would pass 2 (on Base alone 1.50 + 0.20 would fit).
    expectError(await agent.base('0.20', { recipient: other }), 402, 'budget_exceeded', /2\.00 USDC a day: 1\.90 USDC spent/);
    const read = await t.api('GET', policyPath('to-one'));
    expect(read.body.budgets).toEqual([
      expect.objectContaining({ recipient: held, spent: '1.00', remaining: '0.00' }),
      expect.objectContaining({ recipient: SOL_SELLER, spent: '0.40', remaining: '0.10' }),
      expect.objectContaining({ amount: '2.00', window: 'day', spent: '1.90', remaining: '0.10' }),
    ]);
    await expectListedOnTheirRails(paid);
    expect((await activityById()).get(paid[3]!.body.paymentId as string)?.amount).toBe('0.40');
  });

  it("a service's budget holds its registry service's payments on both rails; the budget over every payment holds them all", async () => {
    const agent = await twoRailAgent('by-service', {
      budgets: [
        { amount: '0.02', window: 'day', service: 'demo-weather' },
        { amount: '0.6', window: 'day' },
      ],
    });
    const weather = { service: 'demo-weather', amount: '0.01' };
    const pay = (rail: Rail) =>
      payUsdc(t, 'by-service', agent.apiKey, { ...weather, rail }).then((answer): Paid => {
        kept(rail, undefined, answer);
        if (answer.status === 200) expect(answer.body.rail).toBe(rail);
        return { ...answer, rail };
      });
    // One on each rail spends the service's 0.02 a day (either rail's alone would leave 0.01).
    const paid: Paid[] = [await pay('sol'), await pay('base')];
    for (const rail of RAILS) expectError(await pay(rail), 402, 'budget_exceeded', /0\.02 USDC a day for demo-weather: 0\.02 USDC spent/);
    // A Base payment to an address outside the registry is not demo-weather's.
    paid.push(await agent.base('0.50'));
    // 0.50 + 0.09 on Base alone would fit 0.60: the Solana payments count.
    expectError(await agent.base('0.09'), 402, 'budget_exceeded', /0\.60 USDC a day: 0\.52 USDC spent/);
    paid.push(await agent.base('0.08'));
    expect(paid.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const read = await t.api('GET', policyPath('by-service'));
    expect(read.body.budgets).toEqual([
      expect.objectContaining({ service: 'demo-weather', spent: '0.02', remaining: '0.00' }),
      expect.objectContaining({ amount: '0.60', spent: '0.60', remaining: '0.00' }),
    ]);
    await expectListedOnTheirRails(paid);
  });

  it('ask-above: a Base payment above it is held, counts against the budget both rails share, and once approved is paid on Base', async () => {
    const seller = evmAccount();
    const agent = await twoRailAgent('asker', { dailyBudget: '3', maxPerPayment: '5', askAbove: '1' });
    const paid: Paid[] = [await agent.sol('0.50')];
    expect(paid[0]!.status).toBe(200);
    // Above the threshold but past the budget with the Solana payment, it is refused, never held (alone, 2.60 fits 3).
    expectError(await agent.base('2.60', { recipient: seller }), 402, 'daily_budget_exceeded');
    const asked = await agent.base('2.50', { recipient: seller }, { 'idempotency-key': 'ask-base-1' });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      kind: 'payment',
      status: 'pending',
      paymentId: expect.stringMatching(/^pay_/),
      request: { amount: '2.50', recipient: seller, reason: { code: 'ask_above' } },
    });
    const { approvalId, paymentId } = asked.body as { approvalId: string; paymentId: string };
    expect((await activityById()).get(paymentId)).toMatchObject({ rail: 'base', status: 'held' });
    // Held on Base, it counts against the daily budget: 0.01 more on Solana (0.51 there alone) passes 3.
    expectError(await agent.sol('0.01'), 402, 'daily_budget_exceeded');

    const approved = await t.api('POST', t.withOwner(`/v1/approvals/${approvalId}/approve`));
    expect(approved.body).toMatchObject({
      status: 'approved',
      result: {
        paymentId,
        rail: 'base',
        status: 'confirmed',
        amount: '2.50',
        recipient: seller,
        txSignature: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    });
    const chain = createPublicClient({ transport: http(`${t.url}/evm-rpc`, { retryCount: 0 }) });
    const received = await chain.readContract({
      address: t.coffer.base!.chain.usdc as Address,
      abi: USDC_ABI,
      functionName: 'balanceOf',
      args: [seller],
    });
    expect(received).toBe(micro('2.5'));
    // The key's replay answers the payment made on Base.
    const replay = await agent.base('2.50', { recipient: seller }, { 'idempotency-key': 'ask-base-1' });
    expect(replay).toMatchObject({ status: 200, body: { paymentId, rail: 'base', status: 'confirmed' } });
    const listed = await activityById();
    expect(listed.get(paymentId)).toMatchObject({ rail: 'base', status: 'approved', amount: '2.50', agent: 'asker' });
    expect(listed.get(paid[0]!.body.paymentId as string)).toMatchObject({ rail: 'sol', status: 'approved', amount: '0.50' });
    expect((await t.api('GET', policyPath('asker'))).body.spent24h).toBe('3.00');
  });

  it('the breaker on spending trips on what both rails spent within its minutes; then both rails are refused', async () => {
    const agent = await twoRailAgent('spender', { dailyBudget: '4', breaker: { spending: { percent: 50, minutes: 10 } } });
    const paid: Paid[] = [await agent.sol('1.20')];
    clock.advance(MINUTE);
    expect((await statusOf('spender'))?.status).toBe('active');
    // 1.20 on Solana is 30 % of 4, 0.90 on Base 22.5 %: only together do they reach 50 %. The payment that reaches it stands.
    paid.push(await agent.base('0.90'));
    expect(paid.map((answer) => answer.status)).toEqual([200, 200]);
    expect(await statusOf('spender')).toMatchObject({
      status: 'suspended',
      statusReason: 'its breaker tripped: 2.10 USDC spent within 10 minutes, 50 % or more of its daily budget of 4.00 USDC',
    });
    expectError(await agent.sol('0.01'), 403, 'agent_suspended');
    expectError(await agent.base('0.01'), 403, 'agent_suspended');
    await expectListedOnTheirRails(paid);
    // The owner resumes it: judged afresh from then on, on both rails.
    expect((await t.api('POST', t.withOwner('/v1/agents/spender/resume'))).status).toBe(200);
    clock.advance(1_000);
    expect((await agent.base('0.10')).status).toBe(200);
    expect((await agent.sol('0.10')).status).toBe(200);
  });

  it('the breaker on refusals counts the refusals of both rails; then both rails are refused', async () => {
    const agent = await twoRailAgent('refused', { maxPerPayment: '1', breaker: { refusals: { count: 3, minutes: 5 } } });
    expectError(await agent.sol('1.01'), 402, 'max_per_payment_exceeded');
    expectError(await agent.base('1.01'), 402, 'max_per_payment_exceeded');
    clock.advance(MINUTE);
    const paid: Paid[] = [await agent.sol('0.10'), await agent.base('0.10')];
    expect(paid.map((answer) => answer.status)).toEqual([200, 200]);
    // Two refusals, one on each rail: not yet three.
    expect((await statusOf('refused'))?.status).toBe('active');
    expectError(await agent.base('1.50'), 402, 'max_per_payment_exceeded');
    // The third in all, the second on Base: counted per rail, neither rail reaches three.
    expect(await statusOf('refused')).toMatchObject({
      status: 'suspended',
      statusReason: 'its breaker tripped: 3 refused payments within 5 minutes',
    });
    expectError(await agent.sol('0.10'), 403, 'agent_suspended');
    expectError(await agent.base('0.10'), 403, 'agent_suspended');
    await expectListedOnTheirRails(paid);
  });

  it('the refusals kept for the owner say their rail: the same refusal on the other rail is its own, a repeat on one is kept once', async () => {
    const agent = await twoRailAgent('refused-twice', { maxPerPayment: '1' });
    const shared = { service: 'shared-api' };
    expectError(await agent.sol('1.01', shared), 402, 'max_per_payment_exceeded');
    expectError(await agent.base('1.01', shared), 402, 'max_per_payment_exceeded');
    expectError(await agent.base('1.01', shared), 402, 'max_per_payment_exceeded');
    const refusals = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals as {
      agent: string;
      service: string;
      amount: string;
      code: string;
      rail: Rail | null;
    }[];
    expect(
      refusals
        .filter((refusal) => refusal.agent === 'refused-twice')
        .map(({ rail, service, amount, code }) => [rail, service, amount, code]),
    ).toEqual([
      ['base', 'shared-api', '1.01', 'max_per_payment_exceeded'],
      ['sol', 'shared-api', '1.01', 'max_per_payment_exceeded'],
    ]);
  });

  it('expiry: once the policy ends, payments on both rails are 403 policy_expired, until the owner sets a later end', async () => {
    const agent = await twoRailAgent('ending');
    const end = new Date(clock.now() + MINUTE).toISOString();
    expect((await t.api('POST', policyPath('ending'), { body: { expiresAt: end } })).body.policy.expiresAt).toBe(end);
    const paid: Paid[] = [await agent.base('0.10'), await agent.sol('0.10')];
    expect(paid.map((answer) => answer.status)).toEqual([200, 200]);
    clock.advance(MINUTE);
    expectError(await agent.base('0.10'), 403, 'policy_expired', new RegExp(`policy ended at .* \\(${end}\\)`));
    expectError(await agent.sol('0.10'), 403, 'policy_expired', new RegExp(`policy ended at .* \\(${end}\\)`));
    // Refused payments are recorded as refusals, whatever their rail.
    const refusals = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.recentRefusals as { agent: string; code: string }[];
    expect(refusals.filter((refusal) => refusal.agent === 'ending').map((refusal) => refusal.code)).toEqual([
      'policy_expired',
      'policy_expired',
    ]);
    const later = new Date(clock.now() + 60 * MINUTE).toISOString();
    expect((await t.api('POST', policyPath('ending'), { body: { expiresAt: later } })).status).toBe(200);
    paid.push(await agent.base('0.10'), await agent.sol('0.10'));
    expect(paid.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    await expectListedOnTheirRails(paid);
  });

  it("what-if: a policy replayed over the agent's history judges its Base payments with its Solana ones", async () => {
    const seller = evmAccount();
    const agent = await twoRailAgent('replayed');
    // Ten seconds apart: Solana 0.40, Base 0.50, Base 0.30, Solana 0.20.
    const paid: Paid[] = [];
    for (const [rail, amount] of [
      ['sol', '0.40'],
      ['base', '0.50'],
      ['base', '0.30'],
      ['sol', '0.20'],
    ] as const) {
      paid.push(rail === 'sol' ? await agent.sol(amount) : await agent.base(amount, { recipient: seller }));
      clock.advance(10_000);
    }
    expect(paid.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    await expectListedOnTheirRails(paid);
    const [, base50, base30, sol20] = paid.map((answer) => answer.body.paymentId as string);
    const tried = async (change: Record<string, unknown>) => {
      const answer = await t.api('POST', whatIfPath('replayed'), { body: change });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.payments).toBe(4);
      const ids = (tally: { examples: { paymentId: string }[] }) => tally.examples.map((example) => example.paymentId);
      return {
        refused: ids(answer.body.wouldRefuse),
        held: ids(answer.body.wouldHold),
        byCode: answer.body.wouldRefuse.byCode as Record<string, number>,
        amount: answer.body.wouldRefuse.amount as string,
      };
    };
    // A daily budget of 0.95: 0.40 + 0.50 fit; each rail alone (0.60, 0.80) would fit it whole.
    expect(await tried({ dailyBudget: '0.95' })).toEqual({
      refused: [base30, sol20],
      held: [],
      byCode: { daily_budget_exceeded: 2 },
      amount: '0.50',
    });
    // A 15 s cooldown: measured from the last payment let through, whatever its rail (per rail, only the second Base one).
    expect(await tried({ cooldownSeconds: 15 })).toMatchObject({ refused: [base50, sol20], byCode: { cooldown_active: 2 } });
    // Two payments an hour: the third and fourth, on whatever rail (per rail, none).
    expect(await tried({ budgets: [{ count: 2, window: 'hour' }] })).toMatchObject({
      refused: [base30, sol20],
      byCode: { budget_exceeded: 2 },
    });
    // An amount budget over 30 days, and a recipient's on the EVM address, as sent in lower case.
    expect(await tried({ budgets: [{ amount: '1', window: '30d' }] })).toMatchObject({ refused: [base30, sol20] });
    expect(await tried({ budgets: [{ amount: '0.6', window: '24h', recipient: seller.toLowerCase() }] })).toMatchObject({
      refused: [base30],
      amount: '0.30',
    });
    // Max per payment and ask-above judge the Base payments' amounts.
    expect(await tried({ maxPerPayment: '0.45' })).toMatchObject({ refused: [base50], byCode: { max_per_payment_exceeded: 1 } });
    expect(await tried({ askAbove: '0.45' })).toEqual({ refused: [], held: [base50], byCode: {}, amount: '0.00' });
    // Nothing was saved.
    expect((await t.api('GET', policyPath('replayed'))).body.policy).toEqual({
      dailyBudget: '100.00',
      maxPerPayment: '10.00',
      cooldownSeconds: 0,
      allowedServices: [],
    });
  });

  // Last in the file: it reads what every test before it asked of the two sellers.
  it('the refusals moved nothing: each seller holds on chain exactly what the paid answers say, on each rail', async () => {
    for (const rail of RAILS) {
      const asked = toTheSellers.filter((entry) => entry.rail === rail && entry.recipient?.toLowerCase() === SELLERS[rail].toLowerCase());
      // Alone (a -t filter), this test has nothing to read: it must run after the file's others.
      expect(
        asked.some((entry) => entry.answer.status === 402),
        `a refusal on ${rail}, asked by the tests before this one`,
      ).toBe(true);
      // A repeated Idempotency-Key answers its payment again: each payment counts once.
      const paid = new Map(
        asked.filter((entry) => entry.answer.status === 200).map((entry) => [entry.answer.body.paymentId as string, entry.answer.body]),
      );
      expect(paid.size, `payments on ${rail}`).toBeGreaterThan(0);
      for (const body of paid.values()) expect(body).toMatchObject({ rail, status: 'confirmed' });
      const total = [...paid.values()].reduce((sum, body) => sum + micro(body.amount as string), 0n);
      expect(await sellersBalance(rail, SELLERS[rail]), `${rail} seller ${SELLERS[rail]}`).toBe(sellersAtStart[rail] + total);
    }
  });
});
