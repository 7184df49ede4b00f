import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startCoffer, tempDataDir } from '../helpers/coffer.js';
import { spawnServe } from '../helpers/serve-process.js';

describe('one Coffer per data dir', () => {
  const dataDir = tempDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses a second engine on a data dir in use, in this process or another, and allows it once the first stops', async () => {
    const first = await startCoffer({ dataDir });
    try {
      await expect(startCoffer({ dataDir })).rejects.toThrow(/already using the data dir/);
      await expect(spawnServe(dataDir)).rejects.toThrow(/already using the data dir/);
    } finally {
      await first.stop();
    }
    const second = await spawnServe(dataDir);
    second.child.kill('SIGTERM');
    const exit = await second.exited;
    expect(exit, second.stderr.join('\n')).toEqual({ code: 0, signal: null });
  });

  it('a killed process leaves no stale lock behind', async () => {
    const killed = await spawnServe(dataDir);
    killed.child.kill('SIGKILL');
    await killed.exited;
    const next = await startCoffer({ dataDir });
    expect((await next.api('GET', '/v1/health')).status).toBe(200);
    await next.stop();
  });
});
