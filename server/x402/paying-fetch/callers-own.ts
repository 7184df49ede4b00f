/**
 * What is the caller's own, passed on as it came and never retried: an error its callback threw
 * (`onHeld`, `onChainWait`), and its giving up (its `signal` aborted) while the owner decides.
 */
import type { CofferClient } from '../../client/coffer-client.js';
import type { GivingUp } from '../../client/held-payment.js';

const thrownByCaller = new WeakSet<object>();

/**
 * The caller gave up (its signal aborted) while its payment waited for the owner's yes: the request
 * was withdrawn, nothing paid. Carried out of the purchase as is, and thrown by payingFetch as the
 * signal's reason, as fetch throws it (a reason need not be an object, so it is not marked itself).
 */
export class CallerAborted extends Error {
  constructor(readonly reason: unknown) {
    super('the caller gave up (its signal aborted)');
  }
}

export const byCaller = (error: unknown) =>
  error instanceof CallerAborted || (typeof error === 'object' && error !== null && thrownByCaller.has(error));

/** A caller's callback whose error is marked as the caller's. */
export function guarded<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void {
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
 * Before Coffer is asked to pay: a call its caller gave up (its signal aborted) once the seller asked
 * for payment pays nothing, its reason thrown as fetch throws it.
 */
export function unlessGivenUp(init: RequestInit): void {
  if (init.signal?.aborted === true) throw new CallerAborted(init.signal.reason);
}

/** How a wait for the owner's decision gives up with the call: where its `init` has a signal. */
export const givingUpOf = (init: RequestInit, api: Pick<CofferClient, 'withdrawRequest'>): GivingUp | undefined =>
  init.signal == null ? undefined : { signal: init.signal, api };

/** A wait for the owner given up by the call's signal, as CallerAborted; any other error as it came. */
export const asCallers =
  (init: RequestInit) =>
  (error: unknown): never => {
    if (init.signal?.aborted === true && error === init.signal.reason) throw new CallerAborted(error);
    throw error;
  };
