/**
 * Where a policy is replayed on an agent's past payments (the what-if). A replay reads tens of
 * thousands of rows and judges each: tens of milliseconds that must not be spent on the thread that
 * serves every agent's payments. The core asks for one and awaits it; the adapter says where it runs
 * (the ledger file's: a worker thread with a read-only connection of its own; in memory: in process)
 * and in what order, the owner's first.
 */
import type { Policy } from '../../wire/policy/policy.js';
import type { WhatIfTally } from '../../wire/answers/policy.js';

/** A replay asked for: everything it judges by, read by the core beforehand, so the replay reads payments and the registry only. */
export interface PolicyReplayRequest {
  owner: string;
  agentId: string;
  /** The policy tried (plain data: it crosses to another thread as is). */
  policy: Policy;
  /** The first payment read (null: all of them), the ones before `judgedFrom` weighed as made. */
  since: number | null;
  /** Payments from then on are judged. */
  judgedFrom: number;
  /** The owner's time zone, which calendar windows read. */
  timeZone: string;
}

/** What a replay found: how many payments it judged, and what it would have refused and held. */
export interface PolicyReplay {
  payments: number;
  wouldRefuse: WhatIfTally;
  wouldHold: WhatIfTally;
}

/** Who asked: the owner's replays go before any agent's. */
export type ReplayAsker = 'owner' | 'agent';

export interface PolicyReplays {
  /** The replay over the payments as they stand at one moment (one snapshot of the ledger). */
  replay(request: PolicyReplayRequest, asker: ReplayAsker): Promise<PolicyReplay>;
}
