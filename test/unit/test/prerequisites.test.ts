import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the test runner, without types
import { PACKAGES, plan } from '../../prerequisites.js';

const base = { platform: 'linux', missing: [] as string[], keytarLoads: true, isRoot: false, interactive: true, hasApt: true };

describe("npm test's prerequisites", () => {
  it('does nothing when everything is there, or off Linux', () => {
    expect(plan(base)).toEqual({ action: 'none' });
    expect(plan({ ...base, platform: 'darwin', missing: PACKAGES })).toEqual({ action: 'none' });
  });

  it('as root without a terminal (CI), installs what is missing with apt and rebuilds keytar after libsecret', () => {
    expect(plan({ ...base, isRoot: true, interactive: false, missing: ['libsecret-1-dev', 'chromium'], keytarLoads: false })).toEqual({
      action: 'install',
      packages: ['libsecret-1-dev', 'chromium'],
      rebuildKeytar: true,
    });
    expect(plan({ ...base, isRoot: true, interactive: false, missing: ['chromium'] })).toEqual({
      action: 'install',
      packages: ['chromium'],
      rebuildKeytar: false,
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

  it('rebuilds keytar when the packages are there but it does not load (installed before libsecret was)', () => {
    expect(plan({ ...base, keytarLoads: false })).toEqual({ action: 'rebuild-keytar' });
  });
});
