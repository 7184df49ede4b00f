import type { LedgerPayment } from './ledger.js';
import { usdc } from './money.js';

/**
 * The policy as the ledger must show it was kept, as pure functions over one agent's payments (so
 * the checker itself can be tested: see selfTestPolicyCheck, run before every payments probe).
 */
export const DAY_MS = 24 * 60 * 60 * 1000;

export interface Limits {
  dailyBudget: bigint;
  maxPerPayment: bigint;
  cooldownSeconds: number;
  allowedServices: string[];
}

export interface CheckContext {
  /** Registry service id -> the address it is paid to. */
  registry: Map<string, string>;
  /** Limits lowered by the owner: payments reserved after `at` obey these. */
  lowered?: { at: number; dailyBudget: bigint; maxPerPayment: bigint } | null;
  /** When a stop was acknowledged: nothing may be reserved after it. */
  stoppedAt?: number | null;
}

export interface Violation {
  kind: string;
  example: string;
}

/** The policy's service rule, as docs/CLI.md ("Spending policies") states it: registry ids by id, everything else by recipient. */
export function allowedByPolicy(allowed: string[], serviceId: string, recipient: string, registry: Map<string, string>): boolean {
  if (allowed.length === 0) return true;
  if (allowed.includes(recipient)) return true;
  return registry.has(serviceId) && allowed.includes(serviceId);
}

/** Every way the agent's confirmed and pending payments break its policy. */
export function policyViolations(agentId: string, all: LedgerPayment[], limits: Limits, ctx: CheckContext): Violation[] {
  const out: Violation[] = [];
  const add = (kind: string, example: string) => out.push({ kind, example: `${agentId}: ${example}` });
  const payments = all.filter((p) => p.status === 'confirmed' || p.status === 'pending').sort((a, b) => a.timestamp - b.timestamp);
  let windowStart = 0;
  let windowSum = 0n;
  for (let i = 0; i < payments.length; i++) {
    const p = payments[i]!;
    if (p.status === 'pending') add('left pending', `${p.id} still pending after the burst`);
    windowSum += p.amount;
    while (payments[windowStart]!.timestamp <= p.timestamp - DAY_MS) windowSum -= payments[windowStart++]!.amount;
    // The limits in force when the payment was reserved: lowered ones once the change was answered.
    const lowered = ctx.lowered != null && p.timestamp > ctx.lowered.at;
    const budget = lowered ? ctx.lowered!.dailyBudget : limits.dailyBudget;
    const max = lowered ? ctx.lowered!.maxPerPayment : limits.maxPerPayment;
    if (windowSum > budget)
      add(
        'daily budget',
        `${usdc(windowSum)} in 24 h with a budget of ${usdc(budget)} (${p.id}${lowered ? ', after it was lowered' : ''})`,
      );
    if (p.amount > max)
      add('max per payment', `${p.id} of ${usdc(p.amount)} over max ${usdc(max)}${lowered ? ' (after it was lowered)' : ''}`);
    const previous = payments[i - 1];
    if (previous && limits.cooldownSeconds > 0 && p.timestamp - previous.timestamp < limits.cooldownSeconds * 1000) {
      add('cooldown', `${previous.id} and ${p.id} ${p.timestamp - previous.timestamp} ms apart, cooldown ${limits.cooldownSeconds} s`);
    }
    if (!allowedByPolicy(limits.allowedServices, p.serviceId, p.recipient, ctx.registry)) {
      add('service not allowed', `${p.id} to ${p.serviceId} (${p.recipient}), allowed ${JSON.stringify(limits.allowedServices)}`);
    }
    const payTo = ctx.registry.get(p.serviceId);
    if (payTo !== undefined && p.recipient !== payTo)
      add('registry recipient', `${p.id} to registry service ${p.serviceId} went to ${p.recipient}, not ${payTo}`);
    if (ctx.stoppedAt != null && p.timestamp > ctx.stoppedAt) {
      add('paid while suspended', `${p.id} at ${new Date(p.timestamp).toISOString()}, stopped at ${new Date(ctx.stoppedAt).toISOString()}`);
    }
  }
  return out;
}

/** The checker against a made-up ledger with one of each violation: returns what it failed to see. */
export function selfTestPolicyCheck(): string[] {
  const registry = new Map([['demo-weather', 'WEATHER']]);
  const t0 = Date.parse('2030-01-01T00:00:00Z');
  let n = 0;
  const p = (at: number, amount: bigint, serviceId = 'demo-weather', recipient = 'WEATHER', status = 'confirmed'): LedgerPayment => ({
    id: `pay_${n++}`,
    serviceId,
    amount,
    status,
    timestamp: t0 + at,
    description: '',
    recipient,
    txSignature: null,
  });
  const limits: Limits = {
    dailyBudget: 1_000_000n,
    maxPerPayment: 400_000n,
    cooldownSeconds: 2,
    allowedServices: ['demo-weather', 'SINK'],
  };
  const clean = [p(0, 300_000n), p(3_000, 300_000n), p(6_000, 100_000n, 'anything', 'SINK'), p(DAY_MS + 10_000, 400_000n)];
  const missed: string[] = [];
  if (policyViolations('clean', clean, limits, { registry }).length > 0) missed.push('a clean ledger was flagged');
  const cases: [string, LedgerPayment[], CheckContext?][] = [
    ['daily budget', [p(0, 400_000n), p(3_000, 400_000n), p(6_000, 300_000n)]],
    ['max per payment', [p(0, 500_000n)]],
    ['cooldown', [p(0, 100_000n), p(1_999, 100_000n)]],
    ['service not allowed', [p(0, 100_000n, 'label', 'ELSEWHERE')]],
    ['registry recipient', [p(0, 100_000n, 'demo-weather', 'SINK')]],
    ['paid while suspended', [p(0, 100_000n), p(5_000, 100_000n)], { registry, stoppedAt: t0 + 4_000 }],
    [
      'daily budget',
      [p(0, 300_000n), p(5_000, 300_000n)],
      { registry, lowered: { at: t0 + 4_000, dailyBudget: 500_000n, maxPerPayment: 400_000n } },
    ],
    ['left pending', [p(0, 100_000n, 'demo-weather', 'WEATHER', 'pending')]],
  ];
  for (const [kind, payments, ctx] of cases) {
    if (!policyViolations('case', payments, limits, ctx ?? { registry }).some((v) => v.kind === kind)) missed.push(kind);
  }
  return missed;
}
