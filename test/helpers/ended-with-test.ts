import { onTestFinished } from 'vitest';
import type { ServeProcess } from './serve-process.js';

/**
 * A serve a test started, ended with the test, also when the test failed before it stopped it: one
 * left running holds its data dir (and its port) for whatever runs next.
 */
export const endedWithTest = (served: ServeProcess): ServeProcess => {
  onTestFinished(() => {
    if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill('SIGKILL');
  });
  return served;
};
