/**
 * How many what-ifs an agent's key may ask (issue 47). Each replays up to 30 days of its payments on
 * a worker thread that every what-if shares: a key asking without end would keep the owner's (and
 * every other agent's) waiting behind its own. So an agent's key has at most WHAT_IFS_AT_ONCE asked
 * and not yet answered, and WHAT_IFS_A_MINUTE in any minute; past either, `slow_down` with a
 * Retry-After, and nothing is replayed. The owner is never refused here (and goes first on the worker,
 * see ports/policy-replays.ts): an agent's load cannot keep the owner from trying a change.
 */
import { CofferError } from '../../wire/errors.js';
import type { Principal } from '../auth.js';

/** What-ifs one agent's key may have asked and not yet been answered. */
export const WHAT_IFS_AT_ONCE = 2;
/** What-ifs one agent's key may ask in any 60 seconds. */
export const WHAT_IFS_A_MINUTE = 30;
const MINUTE_MS = 60_000;

/** One agent key's what-ifs: how many are running, and when each of the last minute's was admitted (oldest first). */
export interface WhatIfUse {
  running: number;
  admittedAt: number[];
}

/**
 * Admits a what-if, or refuses it with `slow_down` (counting nothing). Answers what to call once it is
 * answered, whatever the answer: the key's running count is lowered then. `uses` holds one entry per
 * agent that ever asked (as many as the owner has agents), each at most a minute of times.
 */
export function admitWhatIf(uses: Map<string, WhatIfUse>, principal: Principal, now: number): () => void {
  if (principal.kind === 'owner') return () => undefined;
  const key = `${principal.owner}|${principal.agentId}`;
  const use = uses.get(key) ?? { running: 0, admittedAt: [] };
  while (use.admittedAt.length > 0 && use.admittedAt[0]! <= now - MINUTE_MS) use.admittedAt.shift();
  if (use.running >= WHAT_IFS_AT_ONCE) {
    throw new CofferError(
      'slow_down',
      `agent "${principal.agentId}" already has ${use.running} what-ifs running: ask again once one is answered`,
      { retryAfterSeconds: 1 },
    );
  }
  if (use.admittedAt.length >= WHAT_IFS_A_MINUTE) {
    const retryAfterSeconds = Math.max(1, Math.ceil((use.admittedAt[0]! + MINUTE_MS - now) / 1000));
    throw new CofferError(
      'slow_down',
      `agent "${principal.agentId}" asked ${WHAT_IFS_A_MINUTE} what-ifs in the last minute: ask again in ${retryAfterSeconds} s`,
      { retryAfterSeconds },
    );
  }
  use.running += 1;
  use.admittedAt.push(now);
  uses.set(key, use);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    use.running -= 1;
  };
}
