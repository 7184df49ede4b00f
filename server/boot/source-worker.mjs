// A worker thread's TypeScript entry run from the sources (a checkout, the tests), as bin.js runs the
// CLI's: a worker does not share the loader of the thread that started it, so tsx (a dev dependency,
// there with the sources) is registered in this thread first. The compiled app (dist/app, the desktop
// app's archive) starts its workers' JavaScript directly and has no copy of this file.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.sourceEntry);
