import { randomUUID } from 'node:crypto';
import { tryParseUsdc } from '../core/money.js';
import { readOffer, type PaymentInstructions } from './payment-required.js';

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
  /** An offer Coffer recognises but cannot complete (an x402 payment payload): refused before paying. */
  | 'unsupported_offer'
  | 'price_above_registry'
  /** The 402's recipient is not the registry's address for the service it names. */
  | 'recipient_mismatch'
  | 'payment_refused'
  /** The payment was sent but not confirmed yet: do not pay again, ask Coffer later. */
  | 'payment_pending'
  | 'coffer_unreachable'
  /** Paid, but the paid request did not succeed: `details.payment` holds the receipt. */
  | 'paid_call_failed';

/** Why a paid call did not go through. `status`/`cofferCode` carry Coffer's answer when it refused. */
export class PaymentError extends Error {
  constructor(
    readonly code: PaymentErrorCode,
    message: string,
    readonly details: {
      status?: number;
      cofferCode?: string;
      instructions?: PaymentInstructions;
      payment?: PaidResponse['payment'];
      response?: Response;
    } = {},
  ) {
    super(message);
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
}

export interface PaidResponse {
  response: Response;
  /** The payment made for this call, when one was made. */
  payment: { paymentId: string; txSignature: string; amount: string; xPaymentHeader: string } | null;
}

const PAYMENT_KEYS = ['paymentId', 'txSignature', 'amount', 'xPaymentHeader'] as const;
/** Answers to a paid retry that mean "not yet" (chain lag, verifier down): the same receipt is tried again. */
const NOT_YET = new Set(['transaction_not_found', 'verifier_unavailable']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * fetch for agents: calls the URL; on a 402 reads Coffer's terms, refuses an offer only an x402
 * payment payload completes (paying with a receipt would buy nothing), anything that is not USDC on
 * this Coffer's network, a recipient that contradicts the
 * registry, or a price above the registry's listing (found by service id or by the recipient's
 * address); pays through the agent's Coffer `/pay` (inside its policy; a refusal comes back as a
 * PaymentError), and retries with `X-Payment`. One call pays at most once: the payment carries an
 * Idempotency-Key (a retried /pay returns the same payment), and a paid request lost in transport or
 * answered "not yet" (chain lag, verifier down) is retried with the same receipt. A receipt buys one
 * answer: if the API refuses it (for example because that answer was lost after it was accepted), the
 * call fails with `paid_call_failed` and the receipt, and is never paid again.
 * The request body must be re-sendable (a string, bytes or URLSearchParams).
 */
export async function payingFetch(url: string, init: RequestInit, options: PayingFetchOptions): Promise<PaidResponse> {
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 2;
  const first = await doFetch(url, init);
  if (first.status !== 402) return { response: first, payment: null };

  const offer = readOffer(first.headers, await first.clone().json().catch(() => null));
  if (offer === null) {
    throw new PaymentError('unreadable_402', `${url} asked for payment in a form Coffer cannot pay (USDC on Solana)`);
  }
  if (offer.kind === 'x402') {
    throw new PaymentError(
      'unsupported_offer',
      `${url} asks for an x402${offer.version === null ? '' : ` v${offer.version}`} payment, which Coffer cannot complete; nothing was paid`,
    );
  }
  const { instructions } = offer;
  const coffer = await cofferFacts(options.agent, doFetch);
  checkNetwork(instructions, coffer.network, url);
  const listing = await registryListing(options.agent, instructions, doFetch);
  const asked = tryParseUsdc(instructions.amount) ?? 0n;
  if (listing.cap !== null && asked > listing.cap.micro) {
    throw new PaymentError(
      'price_above_registry',
      `${url} asks ${instructions.amount} USDC but the registry lists it at ${listing.cap.text}; not paid`,
      { instructions },
    );
  }

  const idempotencyKey = `fetch-${randomUUID()}`;
  let payment;
  try {
    payment = await withRetries(retries, () => pay(options, url, init, instructions, listing.serviceId, idempotencyKey, doFetch));
  } catch (error) {
    if (error instanceof PaymentError) throw error;
    throw new PaymentError('coffer_unreachable', `Coffer at ${options.agent.cofferUrl} cannot be reached: ${(error as Error).message}`);
  }

  const headers = new Headers(init.headers);
  headers.set('X-Payment', payment.xPaymentHeader);
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
      throw new PaymentError('paid_call_failed', `paid, but ${url} refused the receipt (${code ?? 'payment required'})`, { payment, response });
    }
    return { response, payment };
  }
}

async function codeOf(response: Response): Promise<string | null> {
  const body = (await response.clone().json().catch(() => null)) as { code?: unknown } | null;
  return typeof body?.code === 'string' ? body.code : null;
}

const factsCache = new Map<string, { network: string }>();

/** The Coffer's network, to refuse a 402 that asks for payment on another. */
async function cofferFacts(agent: PayingAgent, doFetch: typeof fetch) {
  const cached = factsCache.get(agent.cofferUrl);
  if (cached) return cached;
  const body = await getJson(`${agent.cofferUrl}/v1/health`, doFetch);
  if (typeof body?.network !== 'string') {
    throw new PaymentError('coffer_unreachable', `Coffer at ${agent.cofferUrl} did not say which network it pays on`);
  }
  const facts = { network: body.network };
  factsCache.set(agent.cofferUrl, facts);
  return facts;
}

function checkNetwork(instructions: PaymentInstructions, network: string, url: string) {
  if (instructions.network !== null && instructions.network !== network) {
    throw new PaymentError('unreadable_402', `${url} wants payment on ${instructions.network}; this Coffer pays on ${network}`, { instructions });
  }
}

/**
 * What the registry says of this 402: the listed service (by the id it names), or the services paid
 * to its recipient; the highest listed per-call price among them caps what is paid. A service named
 * in the 402 but paid elsewhere than the registry says is refused before any money moves.
 */
async function registryListing(agent: PayingAgent, instructions: PaymentInstructions, doFetch: typeof fetch) {
  type Listing = { id: string; payTo: string; pricePerCall: string | null };
  let named: Listing | null = null;
  if (instructions.service !== null) {
    const response = await cofferGet(`${agent.cofferUrl}/v1/services/${encodeURIComponent(instructions.service)}`, doFetch);
    if (response.status !== 404) named = (await readJson(response, agent)) as Listing;
  }
  if (named !== null && named.payTo !== instructions.recipient) {
    throw new PaymentError(
      'recipient_mismatch',
      `the registry pays "${named.id}" to ${named.payTo}, but the 402 asks for ${instructions.recipient}; not paid`,
      { instructions },
    );
  }
  const byRecipient = (await readJson(
    await cofferGet(`${agent.cofferUrl}/v1/services?payTo=${encodeURIComponent(instructions.recipient)}`, doFetch),
    agent,
  )) as { results: Listing[] };
  const prices = [...(named ? [named] : []), ...byRecipient.results]
    .map((listing) => listing.pricePerCall)
    .filter((price): price is string => price !== null);
  const cap = prices.reduce<{ text: string; micro: bigint } | null>((max, text) => {
    const micro = tryParseUsdc(text) ?? 0n;
    return max === null || micro > max.micro ? { text, micro } : max;
  }, null);
  return { serviceId: named?.id ?? null, cap };
}

async function cofferGet(url: string, doFetch: typeof fetch): Promise<Response> {
  try {
    return await doFetch(url);
  } catch (error) {
    throw new PaymentError('coffer_unreachable', `Coffer cannot be reached: ${(error as Error).message}`);
  }
}

/** Only a 200 with JSON counts; anything else means the registry could not be asked (so nothing is paid). */
async function readJson(response: Response, agent: PayingAgent): Promise<unknown> {
  const body = response.ok ? await response.json().catch(() => undefined) : undefined;
  if (body === undefined) {
    throw new PaymentError('coffer_unreachable', `Coffer at ${agent.cofferUrl} could not check the registry (answered ${response.status})`);
  }
  return body;
}

async function getJson(url: string, doFetch: typeof fetch): Promise<Record<string, unknown> | null> {
  const response = await cofferGet(url, doFetch);
  return response.ok ? ((await response.json().catch(() => null)) as Record<string, unknown> | null) : null;
}

async function pay(
  options: PayingFetchOptions,
  url: string,
  init: RequestInit,
  instructions: PaymentInstructions,
  listedServiceId: string | null,
  idempotencyKey: string,
  doFetch: typeof fetch,
) {
  const { agent } = options;
  const response = await doFetch(
    `${agent.cofferUrl}/v1/agents/${encodeURIComponent(agent.agentId)}/pay?owner=${encodeURIComponent(agent.owner)}`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify({
        service: listedServiceId ?? instructions.service ?? new URL(url).host,
        amount: instructions.amount,
        currency: 'USDC',
        description: (options.description ?? `${init.method ?? 'GET'} ${url}`).slice(0, 500),
        // A registry service is paid to its listed address (checked equal above); anything else to the 402's.
        ...(listedServiceId !== null ? {} : { recipient: instructions.recipient }),
        ...(instructions.nonce === null ? {} : { nonce: instructions.nonce }),
      }),
    },
  );
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status !== 200) {
    const cofferCode = typeof body.code === 'string' ? body.code : undefined;
    const pending = response.status === 502 && cofferCode === 'chain_unavailable';
    throw new PaymentError(
      pending ? 'payment_pending' : 'payment_refused',
      pending
        ? `the payment was sent but not confirmed yet; do not pay again: ${String(body.error ?? '')}`
        : `Coffer refused the payment: ${String(body.error ?? response.statusText)}`,
      { status: response.status, cofferCode, instructions },
    );
  }
  for (const key of PAYMENT_KEYS) {
    if (typeof body[key] !== 'string') throw new PaymentError('payment_refused', 'Coffer answered the payment without a receipt');
  }
  return body as Record<(typeof PAYMENT_KEYS)[number], string>;
}

/** Retries a transport failure (a thrown fetch), never an HTTP answer nor a PaymentError. */
async function withRetries<T>(retries: number, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof PaymentError || tries >= retries) throw error;
      await sleep(100 * 2 ** tries);
    }
  }
}
