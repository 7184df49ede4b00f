// The integration tests' Secret Service on Linux: a D-Bus session of their own with gnome-keyring in
// a temporary XDG_DATA_HOME, created fresh and unlocked with a known password, so the tests never
// prompt and never touch the user's keyring.
//
// The daemon runs in the foreground as the session script's child, its messages kept, so that one
// that ends during the run is said at the end (CI keeps only the tail: stop 84's CI failed every
// keychain test from mid-run on, with no cause left to read). And the bus starts no daemon in its
// place: by D-Bus activation a second one would answer the next call with the login keyring locked
// ("unlock prompt was dismissed"), which reads as a Coffer bug; without it, a call says that no
// Secret Service answers. Nothing restarts it: a crash Coffer's calls caused must not be hidden.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The session bus's own configuration (Debian's), taken as it is but for where services start from. */
const SESSION_CONFIG = '/usr/share/dbus-1/session.conf';
/** How long the daemon may take to own its name on the bus before the tests start anyway (0.1 s steps). */
const NAME_WAITS = 100;

const quoted = (word) => `'${String(word).replaceAll("'", `'\\''`)}'`;

/**
 * Runs `command` (its words) in that session with `run(command, args, env)`; `ended` says how the
 * daemon ended where it did not outlive the command (with the last lines it wrote), else null.
 */
export function runInKeyringSession(command, run) {
  const home = mkdtempSync(join(tmpdir(), 'coffer-keyring-'));
  const log = join(home, 'daemon.log');
  const ended = join(home, 'daemon-ended');
  try {
    const script = [
      `echo -n coffer-test | gnome-keyring-daemon --foreground --unlock --components=secrets --control-directory ${quoted(join(home, 'control'))} >/dev/null 2>${quoted(log)} &`,
      'keyring=$!',
      // Its name owned before the first test asks (the forking start returned once it was).
      'i=0',
      `until dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true' || [ $i -ge ${NAME_WAITS} ]; do i=$((i+1)); sleep 0.1; done`,
      command.map(quoted).join(' '),
      'status=$?',
      `kill -0 $keyring 2>/dev/null || : > ${quoted(ended)}`,
      'kill $keyring 2>/dev/null',
      'exit $status',
    ].join('\n');
    const status = run('dbus-run-session', [...busConfig(home), '--', 'sh', '-c', script], { ...process.env, XDG_DATA_HOME: home });
    return { status, ended: existsSync(ended) ? `the test keyring's gnome-keyring-daemon ended during the run${lastWords(log)}` : null };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** dbus-run-session's arguments for a bus that activates no service; none (its defaults) where the configuration is not Debian's. */
function busConfig(home) {
  if (!existsSync(SESSION_CONFIG)) return [];
  const standard = readFileSync(SESSION_CONFIG, 'utf8');
  if (!standard.includes('<standard_session_servicedirs />')) return [];
  const noServices = join(home, 'no-services');
  mkdirSync(noServices);
  const config = standard
    .replace('<standard_session_servicedirs />', `<servicedir>${noServices}</servicedir>`)
    // Its one relative path, read beside the file it is in.
    .replace('<includedir>session.d</includedir>', `<includedir>${join(dirname(SESSION_CONFIG), 'session.d')}</includedir>`);
  const file = join(home, 'session.conf');
  writeFileSync(file, config);
  return [`--config-file=${file}`];
}

/** The daemon's last lines, after a colon, or nothing where it wrote none. */
function lastWords(log) {
  const lines = existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
    : [];
  return lines.length === 0 ? ' (it wrote nothing)' : `: ${lines.slice(-3).join(' | ').slice(0, 300)}`;
}
