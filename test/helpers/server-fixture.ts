import { afterAll, beforeAll } from 'vitest';
import { startCoffer, type TestCoffer } from './coffer.js';

/**
 * The server fixture of a describe block: a real Coffer (startCoffer) started before its tests and
 * stopped after them. Call it in the block's body; the answer stands for that Coffer once it runs
 * (reading it before beforeAll has run is an error that says so). Hooks registered after it run
 * after it starts and, as Vitest stacks after-hooks, end before it stops.
 */
export function useCoffer(options: Parameters<typeof startCoffer>[0] = {}): TestCoffer {
  let started: TestCoffer | undefined;
  beforeAll(async () => {
    started = await startCoffer(options);
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
