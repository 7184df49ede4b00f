// What `npm test` needs from the system, checked before anything runs: on Debian/Ubuntu a Secret
// Service (gnome-keyring on D-Bus) for the keychain tests, Chromium for the dashboard specs, and
// curl and jq, which the README's walkthrough uses (readme-walkthrough.test.ts runs it as printed),
// and GLib's `gio`, which launches the Linux autostart entry as GNOME does (linux-autostart.test.ts).
// Nothing here is needed to build: the keychain binding ships prebuilt (no libsecret, no compiler).
// Run as root without a terminal (CI), the missing packages are installed with apt; otherwise the
// run stops at once with the one command that installs them.
import { spawnSync } from 'node:child_process';

export const PACKAGES = ['gnome-keyring', 'dbus', 'dbus-x11', 'chromium', 'curl', 'jq', 'libglib2.0-bin'];

/** The decision, from what was probed: nothing to do, install these, or stop with this command. Pure, so it is unit-tested. */
export function plan({ platform, missing, isRoot, interactive, hasApt }) {
  if (platform !== 'linux' || missing.length === 0) return { action: 'none' };
  if (isRoot && !interactive && hasApt) return { action: 'install', packages: missing };
  return {
    action: 'stop',
    message: `npm test needs ${missing.join(', ')}: install ${missing.length === 1 ? 'it' : 'them'} first with\n  sudo apt-get install -y ${missing.join(' ')}`,
  };
}

const quiet = (command, args, options = {}) => spawnSync(command, args, { stdio: 'ignore', ...options }).status === 0;

/** Probes this machine, then does what the plan says; returns a message when the run must stop. */
export function ensurePrerequisites() {
  if (process.platform !== 'linux') return null;
  const hasDpkg = quiet('sh', ['-c', 'command -v dpkg']);
  const decided = plan({
    platform: process.platform,
    missing: hasDpkg ? PACKAGES.filter((name) => !quiet('dpkg', ['-s', name])) : [],
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
  return null;
}
