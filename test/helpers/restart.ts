import { rmSync } from 'node:fs';
import { startCoffer, tempDataDir, type TestCoffer } from './coffer.js';

/**
 * A Coffer stopped and started again on the same data dir, as a restart (or a crash and a restart)
 * leaves it: `before` runs on the first start, `after` on the second with what `before` answered.
 * Each is stopped and the data dir removed whatever happens.
 */
export async function acrossRestart<T>(
  before: (t: TestCoffer) => Promise<T>,
  after: (t: TestCoffer, carried: T) => Promise<void>,
): Promise<void> {
  const dataDir = tempDataDir();
  try {
    const first = await startCoffer({ dataDir });
    let carried: T;
    try {
      carried = await before(first);
    } finally {
      await first.stop();
    }
    const second = await startCoffer({ dataDir });
    try {
      await after(second, carried);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
