import type { AsyncEntry } from '@napi-rs/keyring';
import type { SecretBackend } from './secret-backend.js';
import { KEYCHAIN_SERVICE } from './secret-backend.js';

/**
 * On Linux the binding, left to itself, falls back from the Secret Service to the kernel keyring
 * (keyutils), whose keys are gone at logout or reboot: a wallet key kept there would lose its money.
 * Pinned to the Secret Service, a machine without one is refused here, and the caller falls back to
 * the key files with their warning instead. Other platforms ignore the option.
 */
const SECRET_SERVICE_ONLY = { linux: { store: 'secret-service' } } as const;

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
    await entry('probe').getPassword();
  } catch (error) {
    return { reason: 'no OS keychain answered', cause: firstLine(error) };
  }
  return {
    backend: {
      kind: 'keychain',
      // A keychain that stops answering (locked, its daemon gone) rejects: never read as "no key".
      get: (account) => entry(account).getPassword(),
      set: (account, secret) => entry(account).setPassword(secret),
      delete: (account) => entry(account).deletePassword(),
    },
  };
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
