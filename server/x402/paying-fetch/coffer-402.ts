/**
 * Coffer's own 402 (terms in its body) paid through the agent's `/pay`, and the call sent again with
 * the receipt in `X-Payment`.
 */
import { randomUUID } from 'node:crypto';
import { tryParseUsdc } from '../../wire/money.js';
import type { PaymentInstructions } from '../payment-required.js';
import type { CofferClient } from '../../client/coffer-client.js';
import { paymentWhenDecided } from '../../client/held-payment.js';
import type { Rail } from '../../wire/rails.js';
import { chainWaitOf, whileChainConfirms, waitedFor, type ChainWait } from './chain-wait.js';
import { timed, cofferOf, unreachableOr, cofferFacts } from './coffer-reach.js';
import { fundsOnEachRail, withOtherRailFunds, onBase, railsPayable, checkNetwork, registryListing } from './coffer-terms.js';
import { sleep, withRetries } from './fetch-retries.js';
import { callSellerCarrying, paidButNoAnswer } from './seller-call.js';
import { stoppedOf, railOf, networkOf, type PaymentMade, type PaidResponse } from './paid-response.js';
import type { PayingFetchOptions } from './paying-fetch-options.js';
import { PaymentError, refusedBy, refusal, OWN_CODES, type PaymentErrorCode } from './payment-error.js';
import { paidUnderApproval } from './picked-up.js';
import { asCallers, givingUpOf, unlessGivenUp } from './callers-own.js';

const PAYMENT_KEYS = ['paymentId', 'txSignature', 'amount', 'xPaymentHeader'] as const;
/** Answers to a paid retry that mean "not yet" (chain lag, verifier down): the same receipt is tried again. */
const NOT_YET = new Set(['transaction_not_found', 'verifier_unavailable']);
/** The longest pause between two tries of the same receipt. */
const NOT_YET_POLL_MS = 2_000;

/** How long the agent's wallets are read for before Coffer's 402 is paid on Solana unread. */
const BALANCE_READ_MS = 3_000;
/**
 * Coffer's own 402 (its terms in the body: USDC on this Coffer's network, on Solana or Base): the
 * rail asked or chosen, the registry's price held, paid through the agent's `/pay` under one
 * Idempotency-Key, and the request sent again with `X-Payment`; "not yet" answers retried with the
 * same receipt.
 */
export async function payCoffers402(
  url: string,
  init: RequestInit,
  offered: PaymentInstructions,
  options: PayingFetchOptions,
): Promise<PaidResponse> {
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 2;
  const api = cofferOf(options.agent, doFetch);
  const coffer = await cofferFacts(options.agent, api);
  // What this Coffer cannot pay is refused before the registry is read: the rail asked where it is
  // not payable, or, with none asked, a 402 payable on neither rail.
  const payable = railsPayable(offered, coffer);
  const choosing = options.rail === undefined && options.approvalId === undefined;
  // A request picked up with no rail asked may have been made on Base (chosen where Solana's terms are
  // another network's): what the yes paid is held to these terms on either rail (paidUnderApproval).
  const pickedUpOnEither = options.approvalId !== undefined && options.rail === undefined && payable.base;
  if (options.rail === 'base') onBase(offered, coffer.baseChainId, url);
  else if (options.rail === 'sol' || !payable.base) checkNetwork(offered, coffer.network, url);
  const listing = await registryListing(options.agent, offered, coffer.baseChainId, api);
  // A listed service paid on Solana only is not chosen for Base (Coffer would refuse it there).
  const funds =
    choosing && listing.onBase && payable.sol
      ? await fundsOnEachRail(cofferOf(options.agent, timed(doFetch, BALANCE_READ_MS)), options.agent, offered, coffer.baseChainId)
      : null;
  // Solana's terms another network's, Base is the one rail left to pay on.
  const rail = options.rail ?? funds?.chosen ?? (choosing && listing.onBase && !payable.sol ? 'base' : undefined);
  const instructions = rail === 'base' ? onBase(offered, coffer.baseChainId, url) : offered;
  // Paid on Solana (a listed service paid there only is never chosen for Base), its terms must be this
  // Coffer's network's.
  if (!pickedUpOnEither) checkNetwork(instructions, coffer.network, url);
  const asked = tryParseUsdc(instructions.amount) ?? 0n;
  // The wallet paid is held to its own listings; one the registry does not list, to the other rail's.
  const cap = rail === 'base' ? (listing.caps.base ?? listing.caps.sol) : (listing.caps.sol ?? listing.caps.base);
  if (cap !== null && asked > cap.micro) {
    throw new PaymentError(
      'price_above_registry',
      `${url} asks ${instructions.amount} USDC but the registry lists its wallet ${cap.wallet} (${cap.services.join(', ')}) at ${cap.text}; not paid`,
      { instructions },
    );
  }

  const terms: CofferTerms = {
    rail,
    instructions,
    offered,
    listedServiceId: listing.serviceId,
    idempotencyKey: `fetch-${randomUUID()}`,
    // One wait for the chain over the whole call, however often a lost answer has /pay asked again.
    chainWait: chainWaitOf(options),
  };
  let payment;
  try {
    payment = await withRetries(retries, () => pay(options, api, url, init, terms));
  } catch (error) {
    // Short on one rail where the 402 is payable on the other too (Base on this Coffer's chain, or
    // Solana on its network): said, with what the other wallet holds (read with the choice, or now
    // where a rail was asked: offered unread, paying there was refused as short as well, helper 187),
    // or how to pay there where it cannot be read.
    if (!(error instanceof PaymentError)) throw unreachableOr(options.agent, error);
    const other = rail === 'sol' ? 'base' : 'sol';
    const otherPayable = rail === 'sol' ? funds !== null || (payable.base && listing.onBase) : rail === 'base' && payable.sol;
    if (!otherPayable) throw error;
    const fundsNow =
      funds ??
      (error.details.cofferCode === 'insufficient_funds'
        ? await fundsOnEachRail(cofferOf(options.agent, timed(doFetch, BALANCE_READ_MS)), options.agent, offered, coffer.baseChainId)
        : null);
    throw withOtherRailFunds(error, other, fundsNow?.free[other] ?? null);
  }

  const headers = new Headers(init.headers);
  headers.set('X-Payment', payment.header.value);
  // The seller's "not yet" is followed as the chain's is (chainWaitMs, from the payment), four tries at
  // least: a verifier restarting for ten seconds (Coffer's own, on sim) left the receipt paid and
  // the call answered 503 for good (helper 180).
  const notYetUntil = Date.now() + terms.chainWait.ms;
  for (let attempt = 0; ; attempt += 1) {
    let response: Response;
    try {
      response = await withRetries(retries, () => callSellerCarrying(url, { ...init, headers }, options, 'X-Payment'), init.signal);
    } catch (error) {
      throw new PaymentError('paid_call_failed', paidButNoAnswer(url, error, init), { payment });
    }
    const code = response.status === 402 || response.status === 503 ? await codeOf(response) : null;
    const pause = Math.min(500 * 2 ** attempt, NOT_YET_POLL_MS);
    if (code !== null && NOT_YET.has(code) && (attempt < 4 || Date.now() + pause <= notYetUntil)) {
      await sleep(pause);
      continue;
    }
    if (response.status === 402) {
      throw new PaymentError('paid_call_failed', `paid, but ${url} refused the receipt (${code ?? 'payment required'})`, {
        payment,
        response,
      });
    }
    return { response, payment, settlement: Promise.resolve(payment) };
  }
}

async function codeOf(response: Response): Promise<string | null> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return typeof body?.code === 'string' ? body.code : null;
}

/** Coffer's terms as this call pays them, and what it asks /pay under. */
interface CofferTerms {
  /**
   * The rail asked, or chosen (by the agent's funds, or Base where Solana's terms are another
   * network's); left out, Solana, as /pay pays it.
   */
  rail: Rail | undefined;
  /** The terms on that rail (onBase's on Base). */
  instructions: PaymentInstructions;
  /** The terms as the 402 wrote them, on both rails (a request picked up may have been paid on either). */
  offered: PaymentInstructions;
  listedServiceId: string | null;
  idempotencyKey: string;
  chainWait: ChainWait;
}

async function pay(options: PayingFetchOptions, api: CofferClient, url: string, init: RequestInit, terms: CofferTerms) {
  const { agent } = options;
  const { rail, instructions, offered, listedServiceId, idempotencyKey, chainWait } = terms;
  let paid;
  try {
    unlessGivenUp(init);
    if (options.approvalId !== undefined) paid = await paidUnderApproval(api, options.approvalId, offered, options, init);
    else {
      const ask = () =>
        api.pay(
          agent.agentId,
          {
            service: listedServiceId ?? instructions.service ?? new URL(url).host,
            amount: instructions.amount,
            currency: 'USDC',
            description: (options.description ?? `${init.method ?? 'GET'} ${url}`).slice(0, 500),
            // Coffer refuses a registry service's payment to any address but its listed one.
            recipient: instructions.recipient,
            // The rail asked or chosen (its terms there: onBase); left out, Solana, as /pay does whatever the owner prefers.
            ...(rail === undefined ? {} : { rail }),
            ...(instructions.nonce === null ? {} : { nonce: instructions.nonce }),
          },
          idempotencyKey,
        );
      const answered = await whileChainConfirms(chainWait, options, ask);
      paid = await paymentWhenDecided(api, answered, options.onHeld, givingUpOf(init, api)).catch(asCallers(init));
      // Approved, and made at the owner's yes, the payment may still wait for the chain: its receipt
      // is asked for under the same key, for a wait of its own from the yes. Not confirmed by then,
      // the pending one is presented (the seller may find it landed meanwhile).
      if (paid.status === 'pending') {
        const afterYes = { ...chainWaitOf(options), told: chainWait.told };
        const confirmed = await whileChainConfirms(afterYes, options, ask).catch(() => null);
        if (confirmed?.status === 200) paid = confirmed.body;
        // The yes's payment failed meanwhile (dropped), so the key asked again made a payment anew,
        // held for the owner: no one follows it, so it is withdrawn (nothing paid by it).
        if (confirmed?.status === 202) await api.withdrawRequest(confirmed.body.approvalId).catch(() => undefined);
      }
    }
  } catch (error) {
    if (!refusal(error)) throw error;
    if (OWN_CODES.has(error.code as PaymentErrorCode)) {
      throw new PaymentError(error.code as PaymentErrorCode, error.message, { ...refusedBy(error), instructions });
    }
    const pending = error.status === 502 && error.code === 'chain_unavailable';
    throw new PaymentError(
      pending ? 'payment_pending' : 'payment_refused',
      pending
        ? // chain_unavailable: signed and recorded, and sent or not (a node that refused it outright leaves
          // it to reconciliation, which sends it again); or, where the chain could not even be asked to
          // sign it (no blockhash), not made at all. The answer names no payment to tell which.
          `Coffer could not confirm the payment${waitedFor(chainWait, options)}: it may be recorded and on its way (Coffer then sends it until it lands or can no longer land), or not made at all; check the agent's payments (coffer activity) before paying again: ${error.message}`
        : options.approvalId === undefined
          ? `Coffer refused the payment: ${error.message}`
          : `Coffer paid nothing under request ${options.approvalId} for this call: ${error.message}`,
      { ...refusedBy(error), instructions },
    );
  }
  // An answer without a body (not JSON) has no receipt either.
  const body = (paid ?? {}) as Record<string, unknown>;
  for (const key of PAYMENT_KEYS) {
    if (typeof body[key] !== 'string') throw new PaymentError('payment_refused', 'Coffer answered the payment without a receipt');
  }
  return {
    protocol: 'coffer',
    paymentId: paid.paymentId,
    txSignature: paid.txSignature,
    amount: paid.amount,
    // A payment the owner's yes made that the chain has not confirmed yet is presented as it stands.
    status: paid.status === 'pending' ? 'pending' : 'confirmed',
    header: { name: 'X-Payment', value: paid.xPaymentHeader },
    rail: railOf(paid.rail),
    network: networkOf(paid.network),
    ...stoppedOf(paid.agentStopped),
  } satisfies PaymentMade;
}
