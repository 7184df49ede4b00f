/**
 * What a request that may need the owner's approval comes to: carried out now, or stored for the
 * owner to decide. A discriminated union, so every door is made by the compiler to answer both
 * (HTTP: 200 with the result, 202 with the approval).
 */
import { CofferError } from '../wire/errors.js';
import type { Approval } from '../wire/answers/approvals.js';

export interface Done<T> {
  kind: 'done';
  result: T;
}

export interface AwaitingApproval {
  kind: 'awaiting_approval';
  approval: Approval;
}

export type Outcome<T> = Done<T> | AwaitingApproval;

export const done = <T>(result: T): Done<T> => ({ kind: 'done', result });

/** The result of a request only the owner made (the owner's requests never wait for approval). */
export function ownerResult<T>(outcome: Outcome<T>): T {
  if (outcome.kind === 'awaiting_approval') throw new CofferError('internal', 'an owner request was stored for approval');
  return outcome.result;
}
