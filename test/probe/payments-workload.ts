import type { Answer } from './lib/http.js';
import { usdc } from './lib/money.js';
import { randomAddress, type Rng } from './lib/rng.js';

/**
 * The payments probe's agents and workload, drawn from the seed: random policies over registry ids
 * and recipient addresses, and payments of mixed services and amounts (some over the limits, above
 * the registry price, to unknown or unready recipients, replaying an Idempotency-Key or a nonce).
 */

export const REGISTRY_IDS = ['demo-weather', 'demo-quotes', 'web-search', 'translate', 'image-generate'] as const;

export interface PolicySpec {
  dailyBudget: bigint;
  maxPerPayment: bigint;
  cooldownSeconds: number;
  allowedServices: string[];
}

export interface PayerAgent {
  agentId: string;
  walletAddress: string;
  apiKey: string;
  policy: PolicySpec;
}

export interface Attempt {
  index: number;
  agentId: string;
  body: Record<string, unknown>;
  byOwner: boolean;
  idempotencyKey: string | null;
  sentAt?: number;
  answer?: Answer;
}

export const roundTo = (value: bigint, step: bigint) => (value / step) * step;

export function randomPolicy(rng: Rng, allowPool: string[]): PolicySpec {
  const dailyBudget = rng.pick([300_000n, 1_000_000n, 2_000_000n, 5_000_000n, 8_000_000n]);
  // Mostly small payments against the budget, so many land before it runs out (where races happen).
  let maxPerPayment = roundTo(
    rng.chance(0.8) ? rng.bigint(dailyBudget / 200n, dailyBudget / 10n) : rng.bigint(dailyBudget / 10n, dailyBudget),
    1_000n,
  );
  if (maxPerPayment < 10_000n) maxPerPayment = 10_000n;
  const cooldownSeconds = rng.weighted([
    [7, 0],
    [2, 1],
    [1, 2],
  ] as const);
  let allowedServices: string[] = [];
  if (rng.chance(0.5)) {
    allowedServices = rng.subset(allowPool, 0.45);
    if (allowedServices.length === 0) allowedServices = [rng.pick(allowPool)];
  }
  return { dailyBudget, maxPerPayment, cooldownSeconds, allowedServices };
}

function randomAmount(rng: Rng, policy: PolicySpec): bigint {
  const max = policy.maxPerPayment;
  const kind = rng.weighted([
    [60, 'small'],
    [20, 'upto'],
    [14, 'over'],
    [4, 'exact'],
    [2, 'budget'],
  ] as const);
  let amount: bigint;
  switch (kind) {
    case 'small':
      amount = rng.bigint(1_000n, max / 10n > 1_000n ? max / 10n : 1_000n);
      break;
    case 'upto':
      amount = rng.bigint(max / 10n, max);
      break;
    case 'over':
      amount = rng.bigint(max + 1n, max * 2n);
      break;
    case 'exact':
      amount = max;
      break;
    case 'budget':
      amount = policy.dailyBudget;
      break;
  }
  return amount < 1n ? 1n : amount;
}

/** `total` payments among `payers`, to the registry (priced as `listed`) and to the sinks. */
export function buildWorkload(
  rng: Rng,
  total: number,
  payers: PayerAgent[],
  sinkWallets: string[],
  listed: Map<string, bigint>,
): Attempt[] {
  const attempts: Attempt[] = [];
  const nonces: { agentId: string; nonce: string; body: Record<string, unknown> }[] = [];
  for (let index = 0; index < total; index++) {
    const payer = rng.pick(payers);
    if (attempts.length > 10 && rng.chance(0.04)) {
      // The same Idempotency-Key and body again: one payment at most.
      const earlier = rng.pick(attempts.filter((a) => a.idempotencyKey !== null));
      if (earlier) {
        attempts.push({ ...earlier, index, sentAt: undefined, answer: undefined });
        continue;
      }
    }
    let amount = usdc(randomAmount(rng, payer.policy));
    const kind = rng.weighted([
      [50, 'registry'],
      [28, 'sink'],
      [5, 'sink-unlisted-label'],
      [4, 'unknown-service'],
      [4, 'registry-wrong-recipient'],
      [4, 'not-ready-recipient'],
      [5, 'nonce-replay'],
    ] as const);
    let body: Record<string, unknown>;
    switch (kind) {
      case 'registry': {
        // Mostly at or under the registry's listed price (more is refused: price_above_registry). Under
        // it, with a seller's nonce, as payingFetch pays (without one: price_below_registry).
        const service = rng.pick(REGISTRY_IDS);
        const price = listed.get(service) ?? 10_000n;
        let under = false;
        if (rng.chance(0.75)) {
          const amountMicro = rng.chance(0.5) ? price : rng.bigint(price / 10n > 0n ? price / 10n : 1n, price);
          amount = usdc(amountMicro);
          under = amountMicro < price;
        }
        body = under ? { service, amount, nonce: `under-${index}` } : { service, amount };
        break;
      }
      case 'sink':
        body = { service: 'sink-label', recipient: rng.pick(sinkWallets), amount };
        break;
      case 'sink-unlisted-label':
        body = { service: `label-${rng.int(0, 9)}`, recipient: rng.pick(sinkWallets), amount };
        break;
      case 'unknown-service':
        body = { service: `nowhere-${rng.int(0, 99)}`, amount };
        break;
      case 'registry-wrong-recipient':
        body = { service: rng.pick(REGISTRY_IDS), recipient: rng.pick(sinkWallets), amount };
        break;
      case 'not-ready-recipient':
        body = { service: 'fresh', recipient: randomAddress(rng), amount };
        break;
      case 'nonce-replay': {
        const earlier = nonces.filter((n) => n.agentId === payer.agentId);
        body = earlier.length > 0 && rng.chance(0.6) ? { ...rng.pick(earlier).body, amount } : { service: 'demo-weather', amount };
        break;
      }
    }
    body = { ...body, currency: 'USDC', description: `burst ${index}` };
    if (kind !== 'nonce-replay' && rng.chance(0.15)) {
      body.nonce = `nonce-${index}-${rng.int(0, 1e6)}`;
      nonces.push({ agentId: payer.agentId, nonce: String(body.nonce), body: { ...body } });
    }
    attempts.push({
      index,
      agentId: payer.agentId,
      body,
      byOwner: rng.chance(0.1),
      idempotencyKey: rng.chance(0.3) ? `idem-${index}-${rng.int(0, 1e9)}` : null,
    });
  }

  return attempts;
}
