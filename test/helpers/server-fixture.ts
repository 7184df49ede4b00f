import { afterAll, beforeAll } from 'vitest';
import { startCoffer, type TestCoffer } from './coffer.js';

type CofferOptions = Parameters<typeof startCoffer>[0];

/**
 * The server fixture of a describe block: a real Coffer (startCoffer) started before its tests and
 * stopped after them. Call it in the block's body; the answer stands for that Coffer once it runs
 * (reading it before beforeAll has run is an error that says so). Options that depend on what an
 * earlier beforeAll starts (a cluster's URL, a provider's) are passed as a function, read when it
 * starts. Hooks registered after it run after it starts and, as Vitest stacks after-hooks, end
 * before it stops; those registered before it end after it stops.
 */
export function useCoffer(options: CofferOptions | (() => CofferOptions) = {}): TestCoffer {
  let started: TestCoffer | undefined;
  beforeAll(async () => {
    started = await startCoffer(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await started?.stop();
    started = undefined;
  });
  return new Proxy({} as TestCoffer, {
    get: (_target, property) => {
      if (!started) throw new Error(`the test Coffer is not running (read of ${String(property)} outside its describe block's tests)`);
      return Reflect.get(started, property) as unknown;
    },
  });
}
