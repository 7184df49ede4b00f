import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAutostart, execArgument } from '../../electron/autostart.js';
import { createFakeElectron } from '../fixtures/fake-electron.js';

/**
 * The Linux autostart entry read by a real reader of desktop entries: GLib's (`gio launch`, the code
 * GNOME's session starts autostart entries with), on app paths holding every character the Desktop
 * Entry spec reserves in a quoted Exec argument. Each path holds a script standing in for Coffer's
 * executable, which says it ran and with what.
 */
const root = mkdtempSync(join(tmpdir(), 'coffer autostart '));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the Linux autostart entry, as GLib launches it', () => {
  it.each([['a folder with spaces'], ['cost $HOME'], ['say "hi"'], ['back`tick`'], ['two \\\\ backslashes'], ['a \\$ sign']])(
    'starts Coffer in the tray from %s',
    (folder) => {
      const dir = join(root, folder);
      mkdirSync(dir, { recursive: true });
      const ran = join(root, `ran-${folder.length}`);
      const executable = join(dir, 'Coffer.AppImage');
      writeFileSync(executable, `#!/bin/sh\necho "$@" > '${ran}'\n`, { mode: 0o755 });
      const { electron } = createFakeElectron({ packaged: true, platform: 'linux' });
      const config = join(root, `config-${folder.length}`);
      const autostart = createAutostart(electron.app, {
        platform: 'linux',
        execPath: executable,
        env: { XDG_CONFIG_HOME: config },
        home: root,
      });
      autostart.set(true);
      const entry = join(config, 'autostart', 'coffer.desktop');
      const launched = spawnSync('gio', ['launch', entry], { encoding: 'utf8', timeout: 20_000 });
      expect(launched.stderr, readFileSync(entry, 'utf8')).toBe('');
      const deadline = Date.now() + 10_000;
      while (!existsSync(ran) && Date.now() < deadline) spawnSync('sleep', ['0.05']);
      expect(readFileSync(ran, 'utf8').trim()).toBe('--hidden');
    },
  );

  it('writes a literal % as %%, as the spec asks (GLib then looks for the path unexpanded; KDE expands it)', () => {
    expect(execArgument('/opt/100% Coffer/coffer')).toBe('"/opt/100%% Coffer/coffer"');
  });
});
