import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/coffer.js';
import { json, spawnServe } from '../helpers/serve-process.js';

describe('npm start where Electron cannot run', () => {
  it('starts the same engine headless, says why in one line, and the dashboard works', async () => {
    const dataDir = tempDataDir();
    try {
      // No display here (as on CI): the tray app cannot show, so `start` runs headless.
      const started = await spawnServe(dataDir, { DISPLAY: '', WAYLAND_DISPLAY: '' }, 'start');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(started.lines[0]).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const reason = started.lines.find((line) => line.startsWith('Starting headless:'));
      expect(reason).toMatch(/^Starting headless: there is no display to show a tray on \(DISPLAY is not set\)\. .+$/);
      expect((await json(fetch(`${started.url}/v1/health`))).ok).toBe(true);
      const page = await fetch(started.loginUrl, { redirect: 'manual' });
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<div id="root">|Coffer is running/);
      started.child.kill('SIGTERM');
      expect((await started.exited).code).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
