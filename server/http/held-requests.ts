import type { Response } from 'express';
import type { Principal } from '../core/auth.js';
import { CofferError } from '../wire/errors.js';
import { whenClosed } from './response-closed.js';

/**
 * What an agent's key may hold open at once: event streams (`GET /v1/events`) and waits for the
 * owner's decision (`GET /v1/approvals/:id?wait=N`). Each holds a connection and a listener asked
 * about every event for as long as it lasts. Security invariant: an agent's key holds at most
 * HELD_PER_AGENT_KEY; past that `429 too_many_requests`, and nothing is held (helpers 197, 199: 500
 * streams of one key took the server from 241 to 522 MB). The owner is never refused here: an agent's
 * load cannot keep the owner's dashboard from following.
 */
export const HELD_PER_AGENT_KEY = 32;

export class HeldRequests {
  /** How many each agent (`owner|agentId`) holds now; an agent holding none has no entry. */
  private readonly held = new Map<string, number>();

  /** Counts `res` as held by `principal` until it closes, or refuses it (counting nothing). */
  hold(principal: Principal, res: Response): void {
    if (principal.kind === 'owner') return;
    const key = `${principal.owner}|${principal.agentId}`;
    const count = this.held.get(key) ?? 0;
    if (count >= HELD_PER_AGENT_KEY) {
      throw new CofferError(
        'too_many_requests',
        `agent "${principal.agentId}" already holds ${count} requests open (event streams and waits for a decision), the most one agent may: close one and ask again`,
      );
    }
    this.held.set(key, count + 1);
    whenClosed(res, () => {
      const left = (this.held.get(key) ?? 1) - 1;
      if (left === 0) this.held.delete(key);
      else this.held.set(key, left);
    });
  }
}
