/**
 * The /pay door: an agent pays a service (a registry listing, or any recipient) from its wallet;
 * Coffer signs, sends and answers with a receipt. What every payment shares is move.ts's; a payment
 * the policy asks the owner about is held (held.ts) and answered `awaiting_approval`.
 */
import { CofferError, RepeatedFailure, isErrorCode, type Refusal } from '../../wire/errors.js';
import type { Principal } from '../auth.js';
import type { EngineContext } from '../context.js';
import { getAgentOrThrow } from '../agent-lookup.js';
import { belowNoncesPriceRefusal, buysNoCallRefusal } from './refusals.js';
import { newId } from '../ids.js';
import { parseAmount } from '../../wire/money.js';
import type { AgentRecord, PaymentRecord, ServiceRecord } from '../ports/store.js';
import type { PayBody } from '../../wire/schemas.js';
import { spendRecordView } from '../views.js';
import { nearServiceIds, registryServiceForPay } from '../registry/registry.js';
import { recordingRefusals } from './refusal-log.js';
import { sayingBaseHoldsIt } from './paid-on-base-too.js';
import { requireAgentScope } from '../auth.js';
import { done, type Outcome } from '../outcome.js';
import { judgeAtDoor } from './judge.js';
import { didYouMean } from '../../wire/did-you-mean.js';
import { awaitingOf, holdPayment } from './held.js';
import { approvedAtOf } from './held-approved.js';
import { earlierPayment, keyOf, movePayment, payingAgent, signCofferPayment, agentStoppedField } from './move.js';
import type { PaymentAsked, PaymentToMove } from './payment.js';
import { paymentResult } from './payment-result.js';
import type { Payment, SpendHistory } from '../../wire/answers/payments.js';
import { railOfAddress, type Rail } from '../../wire/rails.js';
import { chainOf } from '../rails.js';
import { isOwnWallet, paysSomeone } from './paid-to.js';
import { railName } from '../../wire/rail-words.js';

function checkCurrency(currency: string | undefined): void {
  if (currency === undefined || currency === 'USDC') return;
  if (/eth|erc|base/i.test(currency)) {
    throw new CofferError(
      'unsupported_currency',
      'the currency is "USDC" on either rail: a payment to an EVM address (0x…) is paid in USDC on Base, to a Solana address on Solana',
    );
  }
  throw new CofferError('unsupported_currency', `unsupported currency "${currency}": only USDC is available`);
}

/**
 * The earlier payment under an Idempotency-Key, answered again: its result; the approval it still
 * waits for; or its failure again. A payment that failed before any transaction (a hold denied,
 * expired, withdrawn, or refused when approved) says its own code; one the chain refused says
 * `insufficient_funds` or `chain_rejected`.
 */
async function answerEarlier(ctx: EngineContext, earlier: PaymentRecord, agent: AgentRecord): Promise<Outcome<Payment>> {
  if (earlier.status === 'held') return awaitingOf(ctx, earlier);
  if (earlier.status === 'failed') {
    const code =
      earlier.txWire === null && isErrorCode(earlier.errorCode)
        ? earlier.errorCode
        : earlier.errorCode === 'insufficient_funds'
          ? 'insufficient_funds'
          : 'chain_rejected';
    throw new RepeatedFailure(
      code,
      `the payment made with this Idempotency-Key failed (${earlier.errorCode ?? 'unknown'}); no money moved`,
    );
  }
  return done(await paymentResult(ctx, earlier, agent));
}

/** What the engine itself knows about a payment it makes (generation), beyond the request body. */
export interface PaymentContext {
  /** Anything else that makes two requests different (generation: the full prompt). */
  fingerprint?: string;
  /** The listed price of what is bought, when the service's own listing does not say (a model's price). */
  listedPrice?: bigint;
  /** Written in the payment's own commit, right after it (generation: its task), so no crash can leave one without the other. */
  alsoWrite?: (payment: PaymentRecord) => void;
  /**
   * What the payment buys, when it is held for the owner: shown with the request, and carried out
   * when approved (generation/generation.ts generateHeld writes the task in the payment's commit then).
   */
  purchase?: Record<string, unknown>;
}

export async function pay(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: PayBody,
  idempotencyKey: string | null,
  context: PaymentContext = {},
): Promise<Outcome<Payment>> {
  const registry = registryServiceForPay(ctx, body.service, body.recipient, principal.owner);
  const route = routeOf(body, registry.service);
  return recordingRefusals(
    ctx,
    principal,
    agentId,
    () => ({ service: body.service, amount: body.amount, rail: route.rail }),
    () =>
      sayingBaseHoldsIt(
        ctx,
        {
          owner: principal.owner,
          agentId,
          amount: body.amount,
          service: registry.service,
          onDefaultRail: body.rail === undefined && body.recipient === undefined,
        },
        () => payOrThrow(ctx, principal, agentId, body, idempotencyKey, context, registry, route),
      ),
  );
}

/**
 * Where a payment goes and on which rail. A registry service's payTo is looked up on the rail asked,
 * else the recipient's. The payment itself goes on its recipient's rail; a recipient on another rail
 * than the one asked is refused at the door (recipientRefusal).
 */
function routeOf(body: PayBody, service: ServiceRecord | null): { recipient: string | undefined; rail: Rail } {
  const railAsked = body.rail ?? (body.recipient === undefined ? 'sol' : railOfAddress(body.recipient));
  const recipient = service === null ? body.recipient : payToOn(service, railAsked);
  return { recipient, rail: recipient === undefined ? railAsked : railOfAddress(recipient) };
}

async function payOrThrow(
  ctx: EngineContext,
  principal: Principal,
  agentId: string,
  body: PayBody,
  idempotencyKey: string | null,
  context: PaymentContext,
  { service, listed }: ReturnType<typeof registryServiceForPay>,
  { recipient, rail }: ReturnType<typeof routeOf>,
): Promise<Outcome<Payment>> {
  const agent = payingAgent(ctx, principal, agentId);
  checkCurrency(body.currency);
  const amount = parseAmount(body.amount);
  const asked: PaymentAsked = {
    // The service its money goes to, whatever name the agent gave it, and its price cap (registry.ts).
    serviceId: service?.id ?? body.service,
    service,
    recipient,
    amount,
    // What is bought may have its own listed price (an image's model), below the service's dearest.
    listed: service === null ? listed : (context.listedPrice ?? listed),
    key: keyOf(agent, idempotencyKey, [
      body.service,
      amount.toString(),
      body.description ?? '',
      body.recipient ?? null,
      body.nonce ?? null,
      context.fingerprint ?? null,
      // Named only when asked, so a key's requests from before `rail` existed keep their fingerprint.
      ...(body.rail === undefined ? [] : [body.rail]),
    ]),
    sentBy: 'coffer',
    rail,
  };
  const earlier = await earlierPayment(ctx, agent, asked);
  if (earlier !== null) return answerEarlier(ctx, earlier, agent);
  const { hold } = await judgeAtDoor(ctx, principal, agent, asked, () =>
    recipientRefusal(ctx, agent, body, service, recipient, asked.rail, context.purchase !== undefined),
  );
  const id = newId('pay');
  const payment: PaymentToMove = {
    ...asked,
    recipient: judgedRecipient(recipient),
    id,
    // The paid API's nonce goes on chain so it can match the payment to its 402.
    memo: body.nonce ?? id,
    nonce: body.nonce ?? null,
    description: body.description ?? '',
    resource: null,
    alsoWrite: context.alsoWrite,
  };
  if (hold !== null && principal.kind === 'agent') {
    // Held, nothing is written with it: what it buys is written when it is paid.
    return holdPayment(ctx, principal, agent, { ...payment, alsoWrite: undefined }, hold, context.purchase);
  }
  const moved = await movePayment(ctx, principal, agent, payment, () => signCofferPayment(ctx, agent, payment));
  return 'earlier' in moved
    ? answerEarlier(ctx, moved.earlier, agent)
    : done({ ...(await paymentResult(ctx, moved.row, agent)), ...agentStoppedField(moved) });
}

/**
 * /pay's own checks of who is paid, taken after the policy and the price cap (judge.ts): a payment
 * that buys no call, one below the price its Coffer nonce names, a recipient that is not the service's, a service not paid on the rail asked, a
 * recipient on another rail than the one asked, a service outside the registry with no recipient, a
 * recipient outside it with no USDC account.
 */
async function recipientRefusal(
  ctx: EngineContext,
  agent: AgentRecord,
  body: PayBody,
  service: ServiceRecord | null,
  recipient: string | undefined,
  rail: Rail,
  buying: boolean,
): Promise<Refusal> {
  if (service !== null && body.nonce === undefined) {
    const noCall = buysNoCallRefusal(service, parseAmount(body.amount));
    if (noCall !== null) return noCall;
  }
  const belowTerms = belowNoncesPriceRefusal(body.nonce, parseAmount(body.amount));
  if (belowTerms !== null) return belowTerms;
  if (service !== null && body.recipient !== undefined && body.recipient !== recipient) {
    return new CofferError('recipient_mismatch', `service "${service.id}" is paid to ${payToWords(service)}, not ${body.recipient}`);
  }
  if (service !== null && recipient === undefined) {
    return new CofferError('service_not_on_rail', `service "${service.id}" is paid on Solana only, not on ${railName(rail)}`);
  }
  if (body.rail !== undefined && recipient !== undefined && railOfAddress(recipient) !== body.rail) {
    return new CofferError(
      'recipient_mismatch',
      `${recipient} is paid on ${railName(railOfAddress(recipient))}, not on ${railName(body.rail)}`,
    );
  }
  if (recipient === undefined) {
    return new CofferError(
      'service_not_found',
      `"${body.service}" is not in the registry${didYouMean(body.service, nearServiceIds(ctx, body.service))}; send its recipient address to pay it`,
    );
  }
  // Coffer's own services (image generation) are paid to the treasury by the endpoint that buys
  // them; paid through /pay alone, the money would go back to the treasury and buy nothing.
  if (service !== null && !buying && recipient === agent.owner) {
    return new CofferError(
      'invalid_recipient',
      `"${service.id}" is paid to the owner's treasury by ${service.endpoint.replace('{agentId}', ':agentId')}, which buys what it sells; a payment on its own would buy nothing`,
    );
  }
  const nowhere = paysNoOne(ctx, agent, recipient, rail);
  if (nowhere !== null) return new CofferError('invalid_recipient', `${recipient} ${nowhere}`);
  // The treasury pays the rent of a new token account only for registry services (signCofferPayment).
  const chain = chainOf(ctx, rail);
  if (service === null && !(await chain.hasUsdcAccount(recipient))) {
    return new CofferError(
      'recipient_not_ready',
      `${recipient} has no USDC account on ${chain.network}; the recipient must open one before it can be paid`,
    );
  }
  return null;
}

/**
 * Why a payment to `recipient` would reach no one, in words; null where it would. USDC sent to the
 * token's own contract (its mint, on Solana) is beyond anyone's reach, and on a real chain lost; one to
 * the paying agent's own wallet buys nothing yet spends its budget (x402-pay.ts refuses both in an offer).
 */
function paysNoOne(ctx: EngineContext, agent: AgentRecord, recipient: string, rail: Rail): string | null {
  if (!paysSomeone(recipient, chainOf(ctx, rail).usdc)) {
    return `is the USDC token's own ${rail === 'base' ? 'contract' : 'mint'} on ${railName(rail)}: no one could spend what is sent there`;
  }
  return isOwnWallet(ctx, agent, recipient, rail) ? `is this agent's own wallet on ${railName(rail)}: paying it buys nothing` : null;
}

/** Who a registry service is paid on a rail: its Solana payTo, or its Base one (none where it is not paid there). */
const payToOn = (service: ServiceRecord, rail: Rail): string | undefined => (rail === 'sol' ? service.payTo : service.base?.payTo);

/** Where a service is paid, in words: its address on each rail it is paid on. */
const payToWords = (service: ServiceRecord): string =>
  service.base === null ? service.payTo : `${service.payTo} on Solana or ${service.base.payTo} on Base`;

/** The recipient a payment the door's checks allowed names (recipientRefusal refused one with none). */
function judgedRecipient(recipient: string | undefined): string {
  if (recipient === undefined) throw new CofferError('internal', 'a payment passed its checks without a recipient');
  return recipient;
}

export const SPEND_HISTORY_DEFAULT_LIMIT = 20;

export function spendHistory(ctx: EngineContext, principal: Principal, agentId: string, limit = SPEND_HISTORY_DEFAULT_LIMIT): SpendHistory {
  requireAgentScope(principal, agentId);
  getAgentOrThrow(ctx, principal.owner, agentId);
  return {
    payments: ctx.store
      .listPayments(principal.owner, agentId, limit)
      .map((payment) => spendRecordView(payment, approvedAtOf(ctx, payment))),
  };
}
