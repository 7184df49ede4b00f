import type { Rng } from './rng.js';

/** One figure a probe reports; a safety figure above zero fails the run (unless known and allowed). */
export interface Figure {
  name: string;
  value: number;
  safety: boolean;
  /** A known open issue: it prints, and fails the run only without --allow-known. */
  known?: boolean;
}

export interface ProbeResult {
  name: string;
  /** The probe's headline, in the brief's words. */
  line: string;
  details: string[];
  figures: Figure[];
  /** Anything that looked wrong, with how to see it again. */
  findings: string[];
  /** Set when the probe could not do its job (setup failed, controls failed, time bound hit). */
  error?: string;
  durationMs: number;
}

export interface ProbeContext {
  rng: Rng;
  quick: boolean;
  /** Wall-clock ms after which the probe stops sending new work and goes on to its checks. */
  softDeadline: number;
  /** Progress notes (stderr, only with --verbose). */
  log: (message: string) => void;
}

export type Probe = (ctx: ProbeContext) => Promise<Omit<ProbeResult, 'durationMs' | 'name'>>;

export const pastDeadline = (ctx: ProbeContext): boolean => Date.now() > ctx.softDeadline;

/** Counts by label, printed as "a 3, b 1" (largest first). */
export class Tally {
  private readonly counts = new Map<string, number>();

  add(label: string, n = 1): void {
    this.counts.set(label, (this.counts.get(label) ?? 0) + n);
  }

  get(label: string): number {
    return this.counts.get(label) ?? 0;
  }

  get total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }

  toString(limit = 12): string {
    const entries = [...this.counts.entries()].sort((a, b) => b[1] - a[1]);
    if (entries.length === 0) return 'none';
    const shown = entries.slice(0, limit).map(([label, n]) => `${label} ${n}`);
    if (entries.length > limit) shown.push(`${entries.length - limit} more`);
    return shown.join(', ');
  }
}

/** Keeps the first few examples of a problem, for the findings. */
export class Examples {
  readonly items: string[] = [];
  count = 0;

  constructor(private readonly keep = 3) {}

  add(example: string): void {
    this.count += 1;
    if (this.items.length < this.keep) this.items.push(example);
  }
}
