import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the test runner, without types
import { PACKAGES, plan } from '../../prerequisites.js';

const base = { platform: 'linux', missing: [] as string[], isRoot: false, interactive: true, hasApt: true };

describe("npm test's prerequisites", () => {
  it('does nothing when everything is there, or off Linux', () => {
    expect(plan(base)).toEqual({ action: 'none' });
    expect(plan({ ...base, platform: 'darwin', missing: PACKAGES })).toEqual({ action: 'none' });
  });

  it('as root without a terminal (CI), installs what is missing with apt', () => {
    expect(plan({ ...base, isRoot: true, interactive: false, missing: ['gnome-keyring', 'chromium'] })).toEqual({
      action: 'install',
      packages: ['gnome-keyring', 'chromium'],
    });
  });

  it('otherwise stops at once with the one command that installs what is missing', () => {
    const stop = plan({ ...base, missing: ['gnome-keyring', 'chromium'] });
    expect(stop).toEqual({
      action: 'stop',
      message: 'npm test needs gnome-keyring, chromium: install them first with\n  sudo apt-get install -y gnome-keyring chromium',
    });
    expect(plan({ ...base, isRoot: true, interactive: false, hasApt: false, missing: ['chromium'] }).action).toBe('stop');
  });
});
