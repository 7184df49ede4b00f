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
