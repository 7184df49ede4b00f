/** A percentile of latencies sorted ascending (the nearest rank below). */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Latencies of one kind of call, and how many did not end as they should. */
export class Timings {
  readonly ms: number[] = [];
  failures = 0;
  async time(call: () => Promise<boolean>, measured: boolean): Promise<void> {
    const began = performance.now();
    const ok = await call().catch(() => false);
    if (!measured) return;
    this.ms.push(performance.now() - began);
    if (!ok) this.failures += 1;
  }
  /** A latency timed elsewhere (in the agent's own process), and whether the call ended as it should. */
  async record(timed: Promise<{ ms: number; ok: boolean }>, measured: boolean): Promise<void> {
    const { ms, ok } = await timed;
    if (!measured) return;
    this.ms.push(ms);
    if (!ok) this.failures += 1;
  }
  get summary() {
    const sorted = [...this.ms].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), failures: this.failures, n: sorted.length };
  }
}

/** Whether a purchase's answer, read to its end, is the paid one (200). */
export async function paidAnswer(answer: Promise<Response>): Promise<boolean> {
  const response = await answer;
  await response.arrayBuffer();
  return response.status === 200;
}

/** The requests of one x402 purchase, timed by what each is: the seller's 402, Coffer's `/x402`, the paid retry. */
export interface PurchaseSteps {
  seller402: Timings;
  paidRetry: Timings;
  x402?: Timings;
}

/**
 * A fetch that times each request of an x402 purchase into `steps`, by what it is (a request to the
 * seller with a payment is its paid retry); `measured` says whether this one counts (past warm-up).
 */
export const steppedFetch =
  (sellerUrl: string, measured: () => boolean, steps: PurchaseSteps): typeof fetch =>
  async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
    const step = url.pathname.endsWith('/x402')
      ? (steps.x402 ?? null)
      : url.origin === new URL(sellerUrl).origin
        ? headers.has('payment-signature')
          ? steps.paidRetry
          : steps.seller402
        : null;
    if (step === null) return fetch(input, init);
    let response!: Response;
    await step.time(async () => {
      response = await fetch(input, init);
      return true;
    }, measured());
    return response;
  };
