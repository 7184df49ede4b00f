import { chmodSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../server/boot/data-dir-lock.js';
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

  it('a data dir that is a file is refused in words, with its code, not a raw error', async () => {
    const file = join(dataDir, 'a-file');
    writeFileSync(file, '');
    await expect(spawnServe(file)).rejects.toThrow(
      /the data dir .*a-file is a file, not a folder: name a folder \(--data-dir or COFFER_HOME\)/,
    );
    await expect(spawnServe(file)).rejects.not.toThrow(/ENOTDIR/);
  });

  it('a second serve on a running data dir says where the first one runs and how to open it', async () => {
    const first = await spawnServe(dataDir);
    try {
      const again = spawnServe(dataDir);
      await expect(again).rejects.toThrow(
        new RegExp(
          `already using the data dir[\\s\\S]*already running for it at ${first.url.replace(/\./g, '\\.')} \\(pid ${first.child.pid}\\): open its dashboard with \`coffer open --data-dir ${dataDir.replace(/[.\\]/g, '\\$&')}\``,
        ),
      );
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });

  it('a start on a port in use creates nothing in a new data dir', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => blocker.once('listening', resolve));
    const port = String((blocker.address() as { port: number }).port);
    const fresh = join(tempDataDir(), 'never-made');
    try {
      await expect(spawnServe(fresh, { COFFER_PORT: port })).rejects.toThrow(
        new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use[\\s\\S]*nothing was started or created`),
      );
      expect(existsSync(fresh)).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('a killed process leaves no stale lock behind', async () => {
    const killed = await spawnServe(dataDir);
    killed.child.kill('SIGKILL');
    await killed.exited;
    const next = await startCoffer({ dataDir });
    expect((await next.api('GET', '/v1/health')).status).toBe(200);
    await next.stop();
  });

  it("the lock file and its journal are the user's alone (0600), a lock file left 0644 by an older Coffer too", () => {
    const dir = tempDataDir();
    const modes = () => Object.fromEntries(readdirSync(dir).map((name) => [name, (statSync(join(dir, name)).mode & 0o777).toString(8)]));
    try {
      const lock = lockDataDir(dir);
      expect(modes()).toEqual({ 'coffer.lock': '600', 'coffer.lock-journal': '600' });
      lock.release();
      chmodSync(join(dir, 'coffer.lock'), 0o644);
      lockDataDir(dir).release();
      expect(modes()).toEqual({ 'coffer.lock': '600' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
