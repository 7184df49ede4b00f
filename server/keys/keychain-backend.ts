import type { AsyncEntry } from '@napi-rs/keyring';
import type { SecretBackend } from './secret-backend.js';
import { KEYCHAIN_SERVICE } from './secret-backend.js';
import { oneAtATime } from './one-at-a-time.js';

/**
 * On Linux the binding, left to itself, falls back from the Secret Service to the kernel keyring
 * (keyutils), whose keys are gone at logout or reboot: a wallet key kept there would lose its money.
 * Pinned to the Secret Service, a machine without one is refused here, and the caller falls back to
 * the key files with their warning instead. Other platforms ignore the option.
 */
const SECRET_SERVICE_ONLY = { linux: { store: 'secret-service' } } as const;

/**
 * Every keychain call of this process, one at a time. On Linux each call opens its own D-Bus connection
 * and Secret Service session, and gnome-keyring-daemon (42 to 50 at least: upstream issues 190 and
 * 194) aborts when a new connection's OpenSession arrives before it has registered that client: a
 * burst of concurrent calls under load crashes it (reproduced here: 100 at once beside three busy
 * processes, in 2 runs of 3; one at a time, 600 calls, never). A crashed daemon that systemd restarts
 * comes back with the login keyring locked, every wallet key unreadable until the user unlocks it.
 * Keychain calls are few (keys are read once and kept in memory), so queueing them costs nothing felt.
 */
const inTurn = oneAtATime();

/**
 * The OS keychain through @napi-rs/keyring (macOS Keychain, Windows Credential Manager, the Secret
 * Service on Linux): prebuilt Node-API binaries, so nothing is compiled at install and one build
 * serves Node and Electron. Returns a reason instead when the binding does not load or no keychain
 * answers (in a few words, and the library's own first line as its cause), so the caller can fall back.
 */
export async function openKeychainBackend(): Promise<{ backend: SecretBackend } | { reason: string; cause: string }> {
  let entry: (account: string) => AsyncEntry;
  try {
    const { AsyncEntry } = await import('@napi-rs/keyring');
    entry = (account) => new AsyncEntry(KEYCHAIN_SERVICE, account, SECRET_SERVICE_ONLY);
  } catch (error) {
    return { reason: 'the keychain binding is not available', cause: firstLine(error) };
  }
  try {
    // A read that reaches the keychain proves it answers; on a headless Linux box it throws.
    await inTurn(() => entry('probe').getPassword());
  } catch (error) {
    return { reason: 'no OS keychain answered', cause: firstLine(error) };
  }
  return {
    backend: {
      kind: 'keychain',
      // A keychain that stops answering (locked, its daemon gone) rejects: never read as "no key".
      get: (account) => inTurn(() => entry(account).getPassword()),
      set: (account, secret) => inTurn(() => entry(account).setPassword(secret)),
      delete: (account) => inTurn(() => entry(account).deletePassword()),
    },
  };
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
