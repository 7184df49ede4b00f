import { randomUUID } from 'node:crypto';
import { tryParseUsdc } from '../wire/money.js';
import { coffersNonceRoute } from '../wire/paywall-nonce.js';
import { readOffer, type PaymentInstructions } from './payment-required.js';
import { keyClient, type CofferClient } from '../client/coffer-client.js';
import { CofferApiError } from '../client/client-error.js';
import { approvedOrThrow, paymentWhenDecided } from '../client/held-payment.js';
import type { Approval } from '../wire/answers/approvals.js';
import type { Payment } from '../wire/answers/payments.js';
import { RAILS, railFirst, type Rail } from '../wire/rails.js';
import type { X402SignInBody } from '../wire/schemas.js';

/** The agent a payingFetch pays from: its Coffer server and credentials. */
export interface PayingAgent {
  cofferUrl: string;
  owner: string;
  agentId: string;
  apiKey: string;
}

export type PaymentErrorCode =
  /** The 402 asks for something Coffer cannot pay: not USDC, another network, unreadable terms. */
  | 'unreadable_402'
  /** An x402 offer Coffer cannot pay (another network, scheme or asset; Coffer on the sim chain): refused before paying. */
  | 'unsupported_offer'
  | 'price_above_registry'
  /** The 402's recipient is not the registry's address for the service it names. */
  | 'recipient_mismatch'
  | 'payment_refused'
  /** Coffer could not confirm the payment: it may be recorded and on its way, or not made at all; check before paying again. */
  | 'payment_pending'
  | 'coffer_unreachable'
  /** The URL did not answer the first request (no host, refused, timed out): nothing was paid. */
  | 'url_unreachable'
  /** Paid, but the paid request did not succeed: `details.payment` holds the receipt. */
  | 'paid_call_failed';

/**
 * Why a paid call did not go through: the client's one error (CofferApiError) with a payment code of
 * its own, and what a caller needs beside it (the payment already made, the 402's terms).
 * `status`/`cofferCode` carry Coffer's answer when it refused.
 */
export class PaymentError extends CofferApiError {
  declare readonly code: PaymentErrorCode;
  constructor(
    code: PaymentErrorCode,
    message: string,
    readonly details: {
      status?: number;
      cofferCode?: string;
      /** Set where Coffer's refusal stopped the agent (its breaker tripped). */
      agentStopped?: { reason: string };
      instructions?: PaymentInstructions;
      payment?: PaymentMade;
      response?: Response;
    } = {},
  ) {
    super(details.status ?? 0, code, message);
    this.name = 'PaymentError';
  }
}

export interface PayingFetchOptions {
  agent: PayingAgent;
  /** Shown in the spend history; defaults to "METHOD URL". */
  description?: string;
  fetch?: typeof fetch;
  /** How often a transport failure is retried (same payment, same receipt). Default 2. */
  retries?: number;
  /**
   * Told once when the agent's policy holds the payment for the owner's yes (the request then waits,
   * with long polls, until the owner decides; denied or expired, nothing is paid: payment_refused).
   */
  onHeld?: (approval: Approval) => void;
  /**
   * The request an earlier call of this purchase was held under (its `approvalId`: a process that did
   * not live to see the owner decide, an MCP bridge restarted): waited for and used, never asked
   * anew, so the owner decides once and the purchase is paid once. An x402 offer is bought under it
   * with the seller's terms as they stand now (Coffer refuses another purchase: `approval_mismatch`);
   * Coffer's own 402 was paid at the owner's yes, and that receipt is presented. A request that is
   * not this agent's, or was for another payment, is refused; nothing is paid.
   */
  approvalId?: string;
  /**
   * The rail to pay on (`sol`, `base`): an x402 offer on both rails is paid on that one, and Coffer's
   * own 402 on Base where it offers Base (`base` in its body; one that does not is refused,
   * `unsupported_offer`, nothing paid). Left out, a 402 payable on both rails (an x402 offer, or
   * Coffer's own whose body offers Base) is paid on the owner's preferred rail where the agent's wallet
   * there holds the amount, else on the rail whose wallet does, Solana first (Coffer's own on Base where
   * its Solana terms are another network's). The payment says which.
   */
  rail?: Rail;
  /**
   * How long Coffer's own 402 paid and not yet confirmed by the chain (`/pay` answered `502
   * chain_unavailable`: signed and recorded, on its way) is followed before the call gives up with
   * `payment_pending`: `/pay` is asked again under the payment's Idempotency-Key every few seconds,
   * which answers its receipt once it lands (the request is then sent with it), its refusal once it
   * cannot, or, where nothing was recorded (the chain could not even be asked to sign), makes the
   * payment then. The same key never pays twice. Default 60 s; 0 gives up at the first answer.
   */
  chainWaitMs?: number;
  /** Told once when the call waits for the chain to confirm its payment (as `chainWaitMs` says). */
  onChainWait?: () => void;
}

/** A payment made for a call: Coffer's own (a receipt in X-Payment) or x402 (the seller's facilitator sent it). */
export interface PaymentMade {
  protocol: 'coffer' | 'x402';
  paymentId: string;
  /** Null for an x402 payment whose transaction Coffer has not seen yet. */
  txSignature: string | null;
  amount: string;
  /** `confirmed`, or `pending` for an x402 payment whose transaction Coffer has not seen yet. */
  status: string;
  /** The header the paid request carried. */
  header: { name: string; value: string };
  /** The rail it was paid on. */
  rail: Rail;
  /** That rail's network as Coffer names it (`isTestMoney` says whether its USDC is test money); null where an older Coffer said none. */
  network: string | null;
  /** Set where this payment tripped the agent's breaker: it is made, and the agent is stopped now for `reason`. */
  agentStopped?: { reason: string };
}

/** What a payment's answer said of its agent stopped by it (an older Coffer says nothing), carried into what payingFetch reports. */
function stoppedOf(said: unknown): Pick<PaymentMade, 'agentStopped'> {
  const reason = (said as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? { agentStopped: { reason } } : {};
}

export interface PaidResponse {
  response: Response;
  /** The payment made for this call, when one was made. */
  payment: PaymentMade | null;
  /**
   * The payment as Coffer has it once the seller's answer was reported to it (x402: `confirmed`
   * with its transaction when the seller settled it). The response never waits for this; a caller
   * that wants Coffer's word (a command printing what was paid) awaits it. Never rejects.
   */
  settlement: Promise<PaymentMade | null>;
  /**
   * Set when the seller let the agent in on its earlier purchase (x402 Sign-In-With-X): the wallet
   * Coffer proved it with. Nothing was paid for this call.
   */
  signedIn?: { address: string };
}

const unpaid = (response: Response): PaidResponse => ({ response, payment: null, settlement: Promise.resolve(null) });

const PAYMENT_KEYS = ['paymentId', 'txSignature', 'amount', 'xPaymentHeader'] as const;
/** Answers to a paid retry that mean "not yet" (chain lag, verifier down): the same receipt is tried again. */
const NOT_YET = new Set(['transaction_not_found', 'verifier_unavailable']);

/** How long the agent's wallets are read for before Coffer's 402 is paid on Solana unread. */
const BALANCE_READ_MS = 3_000;
/** How often a payment waiting for the chain is asked after (a store read for Coffer, once recorded). */
const CHAIN_POLL_MS = 3_000;
/** How long a payment waiting for the chain is followed by default (`chainWaitMs`). */
export const CHAIN_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * fetch for agents: calls the URL; on a 402 pays it through the agent's Coffer and retries once with
 * the payment. An x402 offer (a PAYMENT-REQUIRED header or an x402 body) is handed to Coffer's x402
 * endpoint, which pays it under the agent's policy (or refuses it, before any money moves) and gives
 * the header to retry with; the seller's answer tells Coffer which transaction it settled. Otherwise
 * Coffer's own terms are read: anything that is not USDC on this Coffer's network (on the rail paid)
 * is refused here, and a price above what the registry lists for the recipient's wallet when the 402 names no listed
 * service; the rest is Coffer's to judge: it pays through the agent's `/pay` (inside its policy, a
 * listed service held to its price and its recipient; a refusal comes back as a PaymentError, with
 * `price_above_registry` and `recipient_mismatch` keeping their names), and retries with `X-Payment`. One call pays at most once: the payment carries an
 * Idempotency-Key (a retried /pay returns the same payment), and a paid request lost in transport or
 * answered "not yet" (chain lag, verifier down) is retried with the same receipt. A receipt buys one
 * answer: if the API refuses it (for example because that answer was lost after it was accepted), the
 * call fails with `paid_call_failed` and the receipt, and is never paid again.
 * The request body must be re-sendable (a string, bytes or URLSearchParams).
 */
export async function payingFetch(url: string, init: RequestInit, given: PayingFetchOptions): Promise<PaidResponse> {
  const options: PayingFetchOptions = {
    ...given,
    ...(given.onHeld === undefined ? {} : { onHeld: guarded(given.onHeld) }),
    ...(given.onChainWait === undefined ? {} : { onChainWait: guarded(given.onChainWait) }),
  };
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 2;
  let first: Response;
  try {
    first = await doFetch(url, init);
  } catch (error) {
    // Picking a request up, the owner's yes may have paid already (Coffer's 402 is paid at the yes):
    // the request stands, for the next try to pick up again.
    const paid =
      options.approvalId === undefined
        ? 'nothing was paid'
        : `nothing was paid by this call; request ${options.approvalId} stands (a yes to a Coffer 402 paid it at once): try again with it, not without`;
    throw new PaymentError('url_unreachable', `${hostOf(url)} could not be reached (${whyUnreachable(error)}); ${paid}`);
  }
  if (first.status !== 402) return unpaid(first);

  const seller = await sellerAsked(url, init, first);
  const offer = readOffer(first.headers, seller.body);
  if (offer === null) {
    throw new PaymentError('unreadable_402', `${url} asked for payment in a form Coffer cannot pay (USDC on Solana)`);
  }
  // Sign-in is tried where offered, never after a redirect: the proof would be for the URL asked, not
  // the one that answered.
  if (offer.kind === 'x402') return payX402Offer(url, init, seller, offer.signIn && !first.redirected, options);
  const api = cofferOf(options.agent, doFetch);
  const coffer = await cofferFacts(options.agent, api);
  // What this Coffer cannot pay is refused before the registry is read: the rail asked where it is
  // not payable, or, with none asked, a 402 payable on neither rail.
  const payable = railsPayable(offer.instructions, coffer);
  const choosing = options.rail === undefined && options.approvalId === undefined;
  // A request picked up with no rail asked may have been made on Base (chosen where Solana's terms are
  // another network's): what the yes paid is held to these terms on either rail (paidUnderApproval).
  const pickedUpOnEither = options.approvalId !== undefined && options.rail === undefined && payable.base;
  if (options.rail === 'base') onBase(offer.instructions, coffer.baseChainId, url);
  else if (options.rail === 'sol' || !payable.base) checkNetwork(offer.instructions, coffer.network, url);
  const listing = await registryListing(options.agent, offer.instructions, coffer.baseChainId, api);
  // A listed service paid on Solana only is not chosen for Base (Coffer would refuse it there).
  const funds =
    choosing && listing.onBase && payable.sol
      ? await fundsOnEachRail(
          cofferOf(options.agent, timed(doFetch, BALANCE_READ_MS)),
          options.agent,
          offer.instructions,
          coffer.baseChainId,
        )
      : null;
  // Solana's terms another network's, Base is the one rail left to pay on.
  const rail = options.rail ?? funds?.chosen ?? (choosing && listing.onBase && !payable.sol ? 'base' : undefined);
  const instructions = rail === 'base' ? onBase(offer.instructions, coffer.baseChainId, url) : offer.instructions;
  // Paid on Solana (a listed service paid there only is never chosen for Base), its terms must be this
  // Coffer's network's.
  if (!pickedUpOnEither) checkNetwork(instructions, coffer.network, url);
  const asked = tryParseUsdc(instructions.amount) ?? 0n;
  // The wallet paid is held to its own listings; one the registry does not list, to the other rail's.
  const cap = rail === 'base' ? (listing.caps.base ?? listing.caps.sol) : (listing.caps.sol ?? listing.caps.base);
  if (cap !== null && asked > cap.micro) {
    throw new PaymentError(
      'price_above_registry',
      `${url} asks ${instructions.amount} USDC but the registry lists its wallet ${cap.wallet} at ${cap.text}; not paid`,
      { instructions },
    );
  }

  const terms: CofferTerms = {
    rail,
    instructions,
    offered: offer.instructions,
    listedServiceId: listing.serviceId,
    idempotencyKey: `fetch-${randomUUID()}`,
    // One wait for the chain over the whole call, however often a lost answer has /pay asked again.
    chainWait: chainWaitOf(options),
  };
  let payment;
  try {
    payment = await withRetries(retries, () => pay(options, api, url, init, terms));
  } catch (error) {
    if (error instanceof PaymentError) throw funds === null || rail !== 'sol' ? error : withBaseFunds(error, funds.base);
    throw unreachableOr(options.agent, error);
  }

  const headers = new Headers(init.headers);
  headers.set('X-Payment', payment.header.value);
  for (let attempt = 0; ; attempt += 1) {
    let response: Response;
    try {
      response = await withRetries(retries, () => doFetch(url, { ...init, headers }));
    } catch (error) {
      throw new PaymentError('paid_call_failed', `paid, but ${url} could not be reached: ${(error as Error).message}`, { payment });
    }
    const code = response.status === 402 || response.status === 503 ? await codeOf(response) : null;
    if (code !== null && NOT_YET.has(code) && attempt < 4) {
      await sleep(500 * 2 ** attempt);
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

/**
 * The rail Coffer's own 402 is paid on where the agent asked none, where it offers Base on the chain
 * this Coffer pays Base on: the owner's preferred rail (settings, read with the wallets) where the
 * agent's wallet there holds the amount free, else the other where its wallet does (Solana first
 * with no preference), else Solana (whose refusal then names both), as Coffer chooses an x402
 * purchase's rail. `null` where there is nothing to choose (Solana alone offered, or Base on another
 * chain): paid on Solana, as before. The wallets are read, not reserved: a payment that reserved
 * meanwhile is Coffer's to refuse.
 */
async function fundsOnEachRail(api: CofferClient, agent: PayingAgent, offered: PaymentInstructions, baseChainId: number | null) {
  if (offered.base === null || offered.base.chainId !== baseChainId) return null;
  const asked = tryParseUsdc(offered.amount);
  // A wallet not read now is not chosen, and is not named in a refusal: Solana pays or refuses as before.
  // Read over a client whose requests end after BALANCE_READ_MS: a node slow to answer (Base's client
  // waits 15 s, and asks twice) delays no payment, nor a command's exit, by more.
  const read = await api.balance(agent.agentId).then(
    ({ available, preferredRail }) => ({ available, preferredRail }),
    () => null,
  );
  const covers = (rail: Rail) => {
    // An older Coffer's balance answer has no `available`: nothing read, nothing chosen.
    const free = read?.available?.[rail];
    return asked !== null && free != null && (tryParseUsdc(free) ?? -1n) >= asked;
  };
  const order = railFirst(
    RAILS.map((rail) => ({ rail })),
    read?.preferredRail ?? null,
  );
  const chosen: Rail = order.find(({ rail }) => covers(rail))?.rail ?? 'sol';
  return { chosen, base: read?.available?.base ?? null };
}

/**
 * Coffer's 402 refused on Solana for want of funds, where it offers Base too: the refusal says what the
 * agent's Base wallet holds free, as an x402 offer payable on both rails does; where that wallet was
 * not read, or held the amount when read (a payment reserved meanwhile), it says the 402 can be paid
 * there, and how. Not where the refusal stopped the agent (its breaker): asking again pays nothing then.
 */
function withBaseFunds(error: PaymentError, baseFree: string | null) {
  if (error.details.cofferCode !== 'insufficient_funds' || error.details.agentStopped !== undefined) return error;
  const asked = tryParseUsdc(error.details.instructions?.amount ?? '');
  const short = baseFree !== null && asked !== null && (tryParseUsdc(baseFree) ?? 0n) < asked;
  const said = short
    ? `; on Base, where the 402 is payable too, ${baseFree}`
    : `; the 402 can be paid on Base too: ask again with the rail "base" to pay it from the agent's Base wallet`;
  return new PaymentError(error.code, `${error.message}${said}`, error.details);
}

/** Coffer's refusal as a PaymentError carries it: its status and code, and whether it stopped the agent (its breaker). */
const refusedBy = (error: CofferApiError): PaymentError['details'] => ({
  status: error.status,
  cofferCode: error.code,
  ...(error.agentStopped === undefined ? {} : { agentStopped: error.agentStopped }),
});

async function codeOf(response: Response): Promise<string | null> {
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return typeof body?.code === 'string' ? body.code : null;
}

/** A fetch whose requests are given up after `ms` (AbortSignal.timeout: its timer keeps no process alive). */
const timed =
  (doFetch: typeof fetch, ms: number): typeof fetch =>
  (input, init) =>
    doFetch(input, { ...init, signal: AbortSignal.timeout(ms) });

/** The agent's Coffer through the one /v1 client, over this call's fetch (a test may wrap it). */
const cofferOf = (agent: PayingAgent, doFetch: typeof fetch): CofferClient =>
  keyClient(agent.cofferUrl, { owner: agent.owner, key: agent.apiKey }, doFetch);

/** Coffer not answering (fetch failed), as a PaymentError; the client's own words where it said so already. */
const unreachable = (agent: PayingAgent, error: unknown) =>
  new PaymentError(
    'coffer_unreachable',
    error instanceof CofferApiError && error.code === 'coffer_unreachable'
      ? error.message
      : `Coffer at ${agent.cofferUrl} cannot be reached: ${(error as Error).message}`,
  );

/** Errors a caller's own callback threw (`onHeld`, `onChainWait`): passed on as they came, never retried. */
const thrownByCaller = new WeakSet<object>();
const byCaller = (error: unknown) => typeof error === 'object' && error !== null && thrownByCaller.has(error);

/** A caller's callback whose error is marked as the caller's. */
function guarded<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    try {
      callback(...args);
    } catch (error) {
      if (typeof error === 'object' && error !== null) thrownByCaller.add(error);
      throw error;
    }
  };
}

/**
 * A failure on the way to Coffer (its client's, or its answer cut short) as `coffer_unreachable`; a
 * caller's own callback that threw, as it came: that is not Coffer out of reach.
 */
const unreachableOr = (agent: PayingAgent, error: unknown) => (byCaller(error) ? error : unreachable(agent, error));

/** A read Coffer must answer before anything is paid: no answer, or a failed one, means nothing is paid. */
async function mustRead<T>(agent: PayingAgent, what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof CofferApiError)) throw error;
    if (error.status === 0) throw unreachable(agent, error);
    throw new PaymentError('coffer_unreachable', `Coffer at ${agent.cofferUrl} could not ${what} (answered ${error.status})`);
  }
}

/**
 * The Coffer's network, to refuse a 402 that asks for payment on another. Asked at each payment (one
 * request beside a payment's several): a Coffer restarted on the same address may be on another network.
 */
async function cofferFacts(agent: PayingAgent, api: CofferClient) {
  const health = await mustRead(agent, 'say which network it pays on', () => api.health());
  if (typeof health?.network !== 'string') {
    throw new PaymentError('coffer_unreachable', `Coffer at ${agent.cofferUrl} did not say which network it pays on`);
  }
  // An older Coffer answers no `base`: it pays no Base.
  return { network: health.network, baseChainId: health.base?.chainId ?? null };
}

/**
 * Coffer's terms as paid on Base (`rail: "base"`): the same amount, nonce and service, to the 402's
 * recipient there. A 402 that offers Solana alone, Base on another chain than this Coffer's, or any
 * 402 where this Coffer pays no Base (its rail off) is refused before anything is paid.
 */
function onBase(instructions: PaymentInstructions, baseChainId: number | null, url: string): PaymentInstructions {
  const { base } = instructions;
  const refused = (why: string) =>
    new PaymentError('unsupported_offer', `${url} cannot be paid on Base: ${why}; not paid`, { instructions });
  if (base === null) throw refused('it asks to be paid on Solana only');
  if (baseChainId === null) throw refused("this Coffer's Base rail is off");
  if (base.chainId !== baseChainId)
    throw refused(`it asks for Base on chain ${base.chainId}; this Coffer pays Base on chain ${baseChainId}`);
  // Its network is Solana's, which this payment does not touch.
  return { ...instructions, recipient: base.recipient, network: null };
}

/** Which of the 402's rails this Coffer can pay: Solana on its own network, Base on its own chain. */
function railsPayable(offered: PaymentInstructions, coffer: { network: string; baseChainId: number | null }) {
  return {
    sol: offered.network === null || offered.network === coffer.network,
    base: offered.base !== null && coffer.baseChainId !== null && offered.base.chainId === coffer.baseChainId,
  };
}

function checkNetwork(instructions: PaymentInstructions, network: string, url: string) {
  if (instructions.network !== null && instructions.network !== network) {
    throw new PaymentError('unreadable_402', `${url} wants payment on ${instructions.network}; this Coffer pays on ${network}`, {
      instructions,
    });
  }
}

/**
 * Which registry service this 402 is for, and the prices it is held to. The service it names, when
 * the registry lists it: Coffer holds a listed service to its price and to its recipient on the rail
 * paid (price_above_registry, recipient_mismatch, service_not_on_rail), so those are Coffer's to say,
 * and `onBase` says whether it is paid on Base at all. What Coffer cannot know is read here: for a 402
 * that names no listed service, the dearest price the registry lists for its wallet on each rail
 * (Base's where it is offered on this Coffer's Base chain). The wallet paid is held to its own; one
 * the registry does not list, to the other rail's, so that an unlisted rail is no way around the price
 * listed for the other.
 */
async function registryListing(agent: PayingAgent, offered: PaymentInstructions, baseChainId: number | null, api: CofferClient) {
  const service = offered.service;
  // A service the registry does not list (404) is paid by its recipients' listings alone.
  const named =
    service === null
      ? null
      : await mustRead(agent, 'check the registry', () =>
          api.service(service).catch((error: unknown) => {
            if (error instanceof CofferApiError && error.status === 404) return null;
            throw error;
          }),
        );
  if (named !== null) return { serviceId: named.id, onBase: named.base !== null, caps: { sol: null, base: null } };
  const capOf = async (wallet: string) =>
    dearestListed(wallet, await mustRead(agent, 'check the registry', () => api.servicesPaidTo(wallet)));
  const base = offered.base !== null && offered.base.chainId === baseChainId ? offered.base.recipient : null;
  const [solCap, baseCap] = await Promise.all([capOf(offered.recipient), base === null ? null : capOf(base)]);
  return { serviceId: null, onBase: true, caps: { sol: solCap, base: baseCap } };
}

/** The dearest price listed among a wallet's listings; null where none lists a price. */
function dearestListed(wallet: string, listed: { results: { pricePerCall: string | null }[] }) {
  return listed.results
    .map((listing) => listing.pricePerCall)
    .filter((price): price is string => price !== null)
    .reduce<{ text: string; micro: bigint; wallet: string } | null>((max, text) => {
      const micro = tryParseUsdc(text) ?? 0n;
      return max === null || micro > max.micro ? { text, micro, wallet } : max;
    }, null);
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
    if (options.approvalId !== undefined) paid = await paidUnderApproval(api, options.approvalId, offered, options);
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
      paid = await paymentWhenDecided(api, await whileChainConfirms(chainWait, options, ask), options.onHeld);
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

/** The wait for the chain over one call: until when, and whether the caller was told it waits. */
interface ChainWait {
  until: number;
  ms: number;
  told: boolean;
}

function chainWaitOf(options: PayingFetchOptions): ChainWait {
  const asked = options.chainWaitMs ?? CHAIN_WAIT_MS;
  const ms = Number.isFinite(asked) ? Math.max(0, asked) : CHAIN_WAIT_MS;
  return { until: Date.now() + ms, ms, told: false };
}

/**
 * A payment asked of Coffer, followed while the chain has not confirmed it (`502 chain_unavailable`)
 * until the call's wait ends: asked again under the same Idempotency-Key, so at most one payment is
 * ever made. What it answers after the wait (still pending, or a refusal) is thrown as it came.
 */
async function whileChainConfirms<T>(wait: ChainWait, options: PayingFetchOptions, ask: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await ask();
    } catch (error) {
      const pending = error instanceof CofferApiError && error.status === 502 && error.code === 'chain_unavailable';
      const left = wait.until - Date.now();
      if (!pending || left <= 0) throw error;
      if (!wait.told) options.onChainWait?.();
      wait.told = true;
      await sleep(Math.min(CHAIN_POLL_MS, left));
    }
  }
}

/** How long the chain was waited for, in words (nothing where the call did not wait). */
function waitedFor(wait: ChainWait, options: PayingFetchOptions): string {
  return wait.ms > 0 && options.approvalId === undefined ? ` in ${Math.round(wait.ms / 1000)} s` : '';
}

/** What an earlier call's request must be to be this call's: a payment of these Coffer terms, or an x402 purchase of this URL. */
type PickedUp = { protocol: 'coffer'; instructions: PaymentInstructions } | { protocol: 'x402'; url: string };

/**
 * A request an earlier call was held under (options.approvalId), once the owner decides. It is read
 * first and refused (`approval_mismatch`) unless it is this call's payment, before anything waits:
 * no other request is followed, shown as this call's or withdrawn with it, and a yes to another
 * payment is never waited for as this one's. Then `onHeld` is told while it waits, and the yes's
 * outcome is answered: for Coffer's 402 the payment made at the yes, for x402 the yes, bought next.
 */
async function approvedFor(
  api: CofferClient,
  approvalId: string,
  expected: PickedUp,
  options: PayingFetchOptions,
): Promise<{ approval: Approval; result: Record<string, unknown> }> {
  const asked = await withRetries(options.retries ?? 2, () => api.approval(approvalId));
  const notThis = requestMismatch(asked, expected);
  if (notThis !== null) {
    throw new CofferApiError(
      409,
      'approval_mismatch',
      `request ${approvalId} ${notThis}: it is not this call's, and nothing is paid under it here`,
    );
  }
  if (asked.status === 'pending') options.onHeld?.(asked);
  const approval = await approvedOrThrow(api, asked);
  return { approval, result: (approval.result ?? {}) as Record<string, unknown> };
}

/** Whether a payment of `amount` to `recipient` is one these terms ask: the same sum, to their recipient on either rail. */
const paysTerms = (amount: string, recipient: string, terms: PaymentInstructions) =>
  tryParseUsdc(amount) !== null &&
  tryParseUsdc(amount) === tryParseUsdc(terms.amount) &&
  (recipient === terms.recipient || (terms.base !== null && recipient.toLowerCase() === terms.base.recipient.toLowerCase()));

/**
 * Why a request is not the one this call may pick up, as its approval says it; null where it is. A
 * request held before approvals said what they answer (`resource`, `nonce`) is refused: asked anew.
 */
function requestMismatch(approval: Approval, expected: PickedUp): string | null {
  if (approval.kind !== 'payment') return `is a ${approval.kind} request, not a payment`;
  const request = approval.request as { amount?: unknown; recipient?: unknown; resource?: unknown; nonce?: unknown };
  const resource = typeof request.resource === 'string' ? request.resource : null;
  const nonce = typeof request.nonce === 'string' ? request.nonce : null;
  if (expected.protocol === 'x402') {
    if (resource === null) return 'is not an x402 purchase (it names no URL)';
    // The server's own rule for a purchase under an approval (x402-pay.ts underApproval): origin and path.
    const [was, is] = [new URL(resource), new URL(expected.url)];
    return was.origin === is.origin && was.pathname === is.pathname ? null : `is for ${resource}, not ${expected.url}`;
  }
  if (resource !== null) return `is an x402 purchase of ${resource}`;
  // A payment asked without a seller's 402 (`coffer pay`, /pay without a nonce) was made for no call:
  // it is nobody's to pick up here.
  if (nonce === null) return "is a payment asked without a seller's 402 (it names no nonce), not this call's";
  const { instructions } = expected;
  if (!paysTerms(String(request.amount), String(request.recipient), instructions)) {
    return `is for ${String(request.amount)} USDC to ${String(request.recipient)}, and this 402 asks ${instructions.amount} USDC to ${instructions.recipient}`;
  }
  // A Coffer paywall's nonce is bound to its route: a receipt for another route would be refused.
  const [was, is] = [coffersNonceRoute(nonce), instructions.nonce === null ? null : coffersNonceRoute(instructions.nonce)];
  return was !== null && is !== null && was !== is ? "is for another route of this seller (its 402's nonce names another)" : null;
}

/** Coffer's 402 paid at the owner's yes to an earlier call's request: that payment, where it is the one these terms ask. */
async function paidUnderApproval(
  api: CofferClient,
  approvalId: string,
  instructions: PaymentInstructions,
  options: PayingFetchOptions,
): Promise<Payment> {
  return (await approvedFor(api, approvalId, { protocol: 'coffer', instructions }, options)).result as unknown as Payment;
}

/** Coffer answered and refused (an HTTP answer), as opposed to not answering at all (retried). */
const refusal = (error: unknown): error is CofferApiError =>
  error instanceof CofferApiError && error.status !== 0 && !(error instanceof PaymentError);

/** Coffer's refusals that keep their own name in a PaymentError (the rest are `payment_refused`). */
const OWN_CODES = new Set<PaymentErrorCode>(['unsupported_offer', 'unreadable_402', 'price_above_registry', 'recipient_mismatch']);

/**
 * The x402 path: the 402 goes to Coffer as it came, Coffer answers the header to retry with (or
 * refuses, having moved nothing). A retry lost in transport is sent again with the same header (the
 * transaction in it lands once at most). The seller's answer is handed back to Coffer so the payment
 * is settled at once; if that report is lost, Coffer finds the transaction itself.
 */
async function payX402Offer(
  url: string,
  init: RequestInit,
  asked: SellerAsked,
  signInFirst: boolean,
  options: PayingFetchOptions,
): Promise<PaidResponse> {
  const api = cofferOf(options.agent, options.fetch ?? fetch);
  // A seller that offers sign-in may let the agent in on an earlier purchase: asked first, so that
  // nothing is bought twice. Its answer, if it still asks for payment, is the offer paid below.
  const signIn = signInFirst ? await signedInCall(url, init, asked, options, api) : null;
  if (signIn?.response.ok) return { ...unpaid(signIn.response), signedIn: { address: signIn.address } };
  // Not let in: the seller's fresh 402 is the offer paid (any other answer: the first one).
  const offered = signIn?.response.status === 402 ? await sellerAsked(url, init, signIn.response) : asked;
  const bought = await boughtByCoffer(url, init, offered, options, api);
  if ('unpaid' in bought) return unpaid(bought.unpaid);
  const { paid } = bought;
  const payment: PaymentMade = {
    protocol: 'x402',
    paymentId: paid.paymentId,
    txSignature: null,
    amount: paid.amount,
    status: paid.status,
    header: paid.header,
    rail: paid.rail,
    network: paid.network,
    ...stoppedOf(paid.agentStopped),
  };
  const response = await paidCall(url, init, payment, options);
  const settlement = settlementReported(api, options.agent.agentId, payment, response);
  if (response.status === 402) {
    // What became of the payment, as Coffer finds it now (the settlement report looks on chain): a
    // purchase answered again under its approval, or handed to two pick-ups of one request at once, may
    // have landed by another call the seller served. Made, it is not given back.
    const now = await settlement;
    const after =
      now.status === 'pending'
        ? '; Coffer gives its budget back once the transaction can no longer land'
        : now.status === 'confirmed'
          ? `, but the payment landed${now.txSignature === null ? '' : ` (${now.txSignature})`}: the seller answered another call that carried it, or settled it and refused this one`
          : now.status === 'failed'
            ? '; the payment never landed: nothing was paid'
            : '';
    throw new PaymentError('paid_call_failed', `${url} refused the x402 payment${after}`, { payment: now, response });
  }
  return { response, payment, settlement };
}

/** What Coffer paid for an x402 offer: its payment and the header the paid call carries. */
type X402Paid = Pick<PaymentMade, 'paymentId' | 'amount' | 'status' | 'header' | 'rail' | 'network' | 'agentStopped'>;

/** A rail as Coffer answered it (an older Coffer says none: it paid on Solana). */
const railOf = (said: unknown): Rail => ((RAILS as readonly unknown[]).includes(said) ? (said as Rail) : 'sol');
/** A network as Coffer answered it; null where it said none. */
const networkOf = (said: unknown): string | null => (typeof said === 'string' && said !== '' ? said : null);

/** A seller's 402 as it came, as Coffer's x402 endpoints take it: its body read once, here (not JSON: none). */
type SellerAsked = X402SignInBody;
const sellerAsked = async (url: string, init: RequestInit, response: Response): Promise<SellerAsked> => ({
  url,
  method: (init.method ?? 'GET').toUpperCase(),
  status: 402,
  headers: headersOf(response),
  body: await response.json().catch(() => undefined),
});

/** The seller's 402, for Coffer to pay. */
const x402OfferOf = (asked: SellerAsked, options: PayingFetchOptions) => ({
  ...asked,
  ...(options.description ? { description: options.description.slice(0, 500) } : {}),
  ...(options.rail === undefined ? {} : { rail: options.rail }),
});

/**
 * Coffer's payment of the seller's offer: at once, or, held for the owner's yes, waited for with long
 * polls and then bought with the seller's terms as they stand now (the first may have expired
 * meanwhile), under the approval, once. `unpaid`: the seller no longer asks for payment.
 */
async function boughtByCoffer(
  url: string,
  init: RequestInit,
  first: SellerAsked,
  options: PayingFetchOptions,
  api: CofferClient,
): Promise<{ paid: X402Paid } | { unpaid: Response }> {
  const idempotencyKey = `fetch-${randomUUID()}`;
  const refused = (error: unknown): never => {
    if (!refusal(error)) throw error;
    throw new PaymentError('payment_refused', `Coffer did not pay ${url}: ${error.message}`, refusedBy(error));
  };
  try {
    // An earlier call's request (options.approvalId): its yes awaited, not asked for again.
    let asked: { paid: X402Paid } | { held: Approval } | { resumed: string } =
      options.approvalId === undefined
        ? await askCofferToPay(api, x402OfferOf(first, options), idempotencyKey, options)
        : { resumed: options.approvalId };
    if (!('paid' in asked)) {
      let approval: Approval;
      if ('held' in asked) {
        options.onHeld?.(asked.held);
        approval = await approvedOrThrow(api, asked.held).catch(refused);
      } else approval = (await approvedFor(api, asked.resumed, { protocol: 'x402', url }, options).catch(refused)).approval;
      const again = await sellerAfterYes(url, init, options);
      if (again.status !== 402) return { unpaid: again };
      const offer = { ...x402OfferOf(await sellerAsked(url, init, again), options), approvalId: approval.approvalId };
      asked = await askCofferToPay(api, offer, `${idempotencyKey}-approved`, options);
      if ('held' in asked) throw new PaymentError('payment_refused', `Coffer held ${url} for the owner again after the owner's yes`);
    }
    return asked;
  } catch (error) {
    if (error instanceof PaymentError) throw error;
    throw unreachableOr(options.agent, error);
  }
}

/**
 * The seller asked again once the owner said yes, for its terms as they stand now; a transport failure
 * is retried, as any call. One that does not answer is named, not Coffer (it was said to be Coffer):
 * nothing was paid, and the approval is left unused until it ends.
 */
async function sellerAfterYes(url: string, init: RequestInit, options: PayingFetchOptions): Promise<Response> {
  try {
    return await withRetries(options.retries ?? 2, () => (options.fetch ?? fetch)(url, init));
  } catch (error) {
    throw new PaymentError(
      'url_unreachable',
      `${hostOf(url)} could not be reached after the owner's yes (${whyUnreachable(error)}); nothing was paid`,
    );
  }
}

/** Coffer pays the 402 (or holds it for the owner: the approval it waits for); a refusal is a PaymentError. */
function askCofferToPay(
  api: CofferClient,
  offer: ReturnType<typeof x402OfferOf> & { approvalId?: string },
  idempotencyKey: string,
  options: PayingFetchOptions,
): Promise<{ paid: X402Paid } | { held: Approval }> {
  return withRetries(options.retries ?? 2, async () => {
    let body: Record<string, unknown>;
    try {
      const answered = await api.payX402(options.agent.agentId, offer, idempotencyKey);
      if (answered.status === 202) return { held: answered.body };
      body = (answered.body ?? {}) as Record<string, unknown>;
    } catch (error) {
      if (!refusal(error)) throw error;
      const code: PaymentErrorCode = OWN_CODES.has(error.code as PaymentErrorCode) ? (error.code as PaymentErrorCode) : 'payment_refused';
      throw new PaymentError(code, `Coffer did not pay ${offer.url}: ${error.message}`, refusedBy(error));
    }
    const header = body.header as { name?: unknown; value?: unknown } | null;
    if (typeof body.paymentId !== 'string' || typeof header?.name !== 'string' || typeof header.value !== 'string') {
      throw new PaymentError('payment_refused', 'Coffer answered the x402 payment without a header to send');
    }
    return {
      paid: {
        paymentId: body.paymentId,
        amount: String(body.amount),
        status: String(body.status),
        header: { name: header.name, value: header.value },
        rail: railOf(body.rail),
        network: networkOf(body.network),
        ...stoppedOf(body.agentStopped),
      },
    };
  });
}

/** The call again with the payment's header; a transport failure is retried with the same header. */
async function paidCall(url: string, init: RequestInit, payment: PaymentMade, options: PayingFetchOptions): Promise<Response> {
  const doFetch = options.fetch ?? fetch;
  const headers = new Headers(init.headers);
  headers.set(payment.header.name, payment.header.value);
  let response: Response;
  for (let attempt = 0; ; attempt += 1) {
    try {
      response = await withRetries(options.retries ?? 2, () => doFetch(url, { ...init, headers }));
    } catch (error) {
      throw new PaymentError('paid_call_failed', `paid, but ${url} could not be reached: ${(error as Error).message}`, { payment });
    }
    // 503: the seller could not settle yet (its facilitator is busy or still confirming). The same
    // header is presented again; a new payment would be a second one.
    if (response.status !== 503 || attempt >= 4) break;
    await sleep(500 * 2 ** attempt);
  }
  return response;
}

/**
 * The seller's answer goes back to Coffer, which settles the payment by it; the caller does not wait
 * for that (best effort: without the report Coffer still finds the transaction among the agent's).
 * Sent in the next turn, once the caller has its answer: even starting a request costs a few
 * tenths of a millisecond, which the caller would otherwise wait for.
 */
function settlementReported(api: CofferClient, agentId: string, payment: PaymentMade, response: Response): Promise<PaymentMade> {
  const sellerAnswer = headersOf(response);
  return nextTurn()
    .then(() => api.reportX402Settlement(agentId, payment.paymentId, sellerAnswer))
    .then((answer) => {
      const settled = answer as { status?: unknown; txSignature?: unknown };
      return {
        ...payment,
        status: typeof settled.status === 'string' ? settled.status : payment.status,
        txSignature: typeof settled.txSignature === 'string' ? settled.txSignature : payment.txSignature,
      };
    })
    .catch(() => payment);
}

/**
 * Asks Coffer to sign the seller's sign-in challenge with the agent's wallet and calls again with the
 * proof. Null when Coffer does not sign (this agent never paid that seller, another site's challenge,
 * another chain) or cannot be reached: the purchase then goes ahead as without sign-in.
 */
async function signedInCall(
  url: string,
  init: RequestInit,
  asked: SellerAsked,
  options: PayingFetchOptions,
  api: CofferClient,
): Promise<{ response: Response; address: string } | null> {
  const doFetch = options.fetch ?? fetch;
  let proof;
  try {
    // The rail asked for names the account to prove first, where the agent paid the seller on both.
    proof = await api.signInX402(options.agent.agentId, { ...asked, ...(options.rail === undefined ? {} : { rail: options.rail }) });
  } catch (error) {
    // A Coffer older than the field refuses it: asked again without it, not left to pay again.
    const olderCoffer = options.rail !== undefined && error instanceof CofferApiError && error.code === 'invalid_request';
    proof = olderCoffer ? await api.signInX402(options.agent.agentId, asked).catch(() => null) : null;
    if (proof === null) return null;
  }
  const headers = new Headers(init.headers);
  headers.set(proof.header.name, proof.header.value);
  try {
    // Not followed elsewhere: the proof is for this URL's site only.
    return { response: await doFetch(url, { ...init, headers, redirect: 'manual' }), address: proof.address };
  } catch {
    return null;
  }
}

/** The host of a URL, as a person names it ("api.example.com:8443"). */
const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).host : url);

/** Why fetch failed, in the words of its cause (ENOTFOUND, ECONNREFUSED, a timeout), else its message. */
function whyUnreachable(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return (error as Error).message;
}

/** Response headers as a plain map (the 402's terms may be in one). */
function headersOf(response: Response): Record<string, string> {
  const all: Record<string, string> = {};
  response.headers.forEach((value, name) => (all[name] = value));
  return all;
}

/** Retries a transport failure (a thrown fetch, or Coffer not answering), never an HTTP answer nor a PaymentError. */
async function withRetries<T>(retries: number, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      const answered = error instanceof CofferApiError && (error.status !== 0 || error instanceof PaymentError);
      if (answered || byCaller(error) || tries >= retries) throw error;
      await sleep(100 * 2 ** tries);
    }
  }
}
