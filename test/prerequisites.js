// What `npm test` needs from the system, checked before anything runs: on Debian/Ubuntu the
// keychain library (keytar builds against libsecret), a Secret Service (gnome-keyring on D-Bus) and
// Chromium for the dashboard specs. Run as root without a terminal (CI), the missing packages are
// installed with apt; otherwise the run stops at once with the one command that installs them.
import { spawnSync } from 'node:child_process';

export const PACKAGES = ['libsecret-1-dev', 'gnome-keyring', 'dbus', 'dbus-x11', 'chromium'];

/**
 * The decision, from what was probed: nothing to do, install these (and rebuild keytar after), or
 * stop with this command. Pure, so it is unit-tested.
 */
export function plan({ platform, missing, keytarLoads, isRoot, interactive, hasApt }) {
  if (platform !== 'linux') return { action: 'none' };
  if (missing.length === 0 && keytarLoads) return { action: 'none' };
  if (missing.length === 0) return { action: 'rebuild-keytar' };
  const command = `sudo apt-get install -y ${missing.join(' ')}`;
  if (isRoot && !interactive && hasApt)
    return { action: 'install', packages: missing, rebuildKeytar: !keytarLoads || missing.includes('libsecret-1-dev') };
  return {
    action: 'stop',
    message: `npm test needs ${missing.join(', ')}: install ${missing.length === 1 ? 'it' : 'them'} first with\n  ${command}`,
  };
}

const quiet = (command, args, options = {}) => spawnSync(command, args, { stdio: 'ignore', ...options }).status === 0;

/** Probes this machine, then does what the plan says; returns a message when the run must stop. */
export function ensurePrerequisites(root) {
  if (process.platform !== 'linux') return null;
  const hasDpkg = quiet('sh', ['-c', 'command -v dpkg']);
  const missing = hasDpkg ? PACKAGES.filter((name) => !quiet('dpkg', ['-s', name])) : [];
  const keytarLoads = () => quiet(process.execPath, ['-e', "require('keytar')"], { cwd: root });
  const decided = plan({
    platform: process.platform,
    missing,
    keytarLoads: keytarLoads(),
    isRoot: process.getuid?.() === 0,
    interactive: Boolean(process.stdin.isTTY) && process.env.CI !== 'true',
    hasApt: quiet('sh', ['-c', 'command -v apt-get']),
  });
  if (decided.action === 'stop') return decided.message;
  if (decided.action === 'install') {
    console.log(`npm test: installing ${decided.packages.join(', ')} with apt`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (
      !quiet('apt-get', ['update', '-qq'], { env }) ||
      !quiet('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...decided.packages], { env })
    ) {
      return `npm test: apt-get could not install ${decided.packages.join(', ')}`;
    }
  }
  if (decided.action === 'rebuild-keytar' || (decided.action === 'install' && decided.rebuildKeytar)) {
    if (!keytarLoads()) {
      console.log('npm test: building keytar against libsecret');
      spawnSync('npm', ['rebuild', 'keytar'], { cwd: root, stdio: 'inherit' });
      if (!keytarLoads()) return 'npm test: keytar does not load (npm rebuild keytar failed): the keychain tests cannot run';
    }
  }
  return null;
}
