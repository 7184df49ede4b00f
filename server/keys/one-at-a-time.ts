/**
 * A queue that runs its calls one at a time, in the order given, each whether the one before it
 * succeeded or failed: `run(call)` answers what `call` answers, once the calls before it have ended.
 */
export function oneAtATime(): <T>(call: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(call: () => Promise<T>): Promise<T> => {
    const next = last.then(call, call);
    // The queue goes on after a failure; the failure itself is the caller's.
    last = next.catch(() => undefined);
    return next;
  };
}
