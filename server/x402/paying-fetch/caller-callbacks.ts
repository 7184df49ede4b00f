/** Errors a caller's own callback threw (`onHeld`, `onChainWait`): passed on as they came, never retried. */
const thrownByCaller = new WeakSet<object>();
export const byCaller = (error: unknown) => typeof error === 'object' && error !== null && thrownByCaller.has(error);

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
