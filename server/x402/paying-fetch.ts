import { randomUUID } from 'node:crypto';
import { tryParseUsdc } from '../core/money.js';
import { readPaymentInstructions, type PaymentInstructions } from './payment-required.js';

/** The agent a payingFetch pays from: its Coffer server and credentials. */
export interface PayingAgent {
  cofferUrl: string;
  owner: string;
  agentId: string;
  apiKey: string;
}

export type PaymentErrorCode =
  | 'unreadable_402'
  | 'price_above_registry'
  | 'payment_refused'
  | 'coffer_unreachable'
  /** Paid, but the paid request itself failed in transport: `details.payment` holds the receipt. */
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

/**
 * fetch for agents: calls the URL; on a 402 reads the terms (Coffer's body or an x402 `accepts`
 * list), refuses a price above the registry's listed price for that service, pays through the agent's
 * Coffer `/pay` (inside its policy; Coffer's refusal comes back as a PaymentError), and retries once
 * with `X-Payment`. One call pays at most once: the payment carries an Idempotency-Key, so a retried
 * /pay returns the same payment, and the paid request is retried with the same receipt.
 * The request body must be re-sendable (a string, bytes or URLSearchParams).
 */
export async function payingFetch(url: string, init: RequestInit, options: PayingFetchOptions): Promise<PaidResponse> {
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 2;
  const first = await doFetch(url, init);
  if (first.status !== 402) return { response: first, payment: null };

  const instructions = readPaymentInstructions(await first.clone().json().catch(() => null));
  if (instructions === null) {
    throw new PaymentError('unreadable_402', `${url} asked for payment in a form Coffer cannot pay (USDC on Solana)`);
  }
  const listed = instructions.service === null ? null : await listedPrice(options.agent, instructions.service, doFetch);
  const asked = tryParseUsdc(instructions.amount) ?? 0n;
  if (listed !== null && asked > listed.micro) {
    throw new PaymentError(
      'price_above_registry',
      `${url} asks ${instructions.amount} USDC but the registry lists "${instructions.service}" at ${listed.text}; not paid`,
      { instructions },
    );
  }

  const idempotencyKey = `fetch-${randomUUID()}`;
  let payment;
  try {
    payment = await withRetries(retries, () => pay(options, url, init, instructions, listed !== null, idempotencyKey, doFetch));
  } catch (error) {
    if (error instanceof PaymentError) throw error;
    throw new PaymentError('coffer_unreachable', `Coffer at ${options.agent.cofferUrl} cannot be reached: ${(error as Error).message}`);
  }
  const headers = new Headers(init.headers);
  headers.set('X-Payment', payment.xPaymentHeader);
  try {
    return { response: await withRetries(retries, () => doFetch(url, { ...init, headers })), payment };
  } catch (error) {
    throw new PaymentError('paid_call_failed', `paid, but ${url} could not be reached: ${(error as Error).message}`, { payment });
  }
}

async function listedPrice(agent: PayingAgent, service: string, doFetch: typeof fetch) {
  let response: Response;
  try {
    response = await doFetch(`${agent.cofferUrl}/v1/services/${encodeURIComponent(service)}`);
  } catch (error) {
    throw new PaymentError('coffer_unreachable', `Coffer at ${agent.cofferUrl} cannot be reached: ${(error as Error).message}`);
  }
  if (response.status === 404) return null;
  const body = (await response.json()) as { pricePerCall?: string | null };
  if (!body.pricePerCall) return null;
  return { text: body.pricePerCall, micro: tryParseUsdc(body.pricePerCall) ?? 0n };
}

async function pay(
  options: PayingFetchOptions,
  url: string,
  init: RequestInit,
  instructions: PaymentInstructions,
  listed: boolean,
  idempotencyKey: string,
  doFetch: typeof fetch,
) {
  const { agent } = options;
  const service = instructions.service ?? new URL(url).host;
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
        service,
        amount: instructions.amount,
        currency: 'USDC',
        description: (options.description ?? `${init.method ?? 'GET'} ${url}`).slice(0, 500),
        // A registry service is paid to its listed address; anything else to the 402's recipient.
        ...(listed ? {} : { recipient: instructions.recipient }),
        ...(instructions.nonce === null ? {} : { nonce: instructions.nonce }),
      }),
    },
  );
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status !== 200) {
    throw new PaymentError('payment_refused', `Coffer refused the payment: ${String(body.error ?? response.statusText)}`, {
      status: response.status,
      cofferCode: typeof body.code === 'string' ? body.code : undefined,
      instructions,
    });
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
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** tries));
    }
  }
}
