import { join } from 'node:path';
import { openKeychainBackend } from './keychain-backend.js';
import { createFileBackend } from './file-backend.js';
import type { SecretBackend } from './secret-backend.js';

export type KeyStorePreference = 'auto' | 'keychain' | 'file';

/**
 * The key folders already warned about in this process: a restore opens the key store twice (to
 * import the keys, then to check them against the chain), and a person is told once.
 */
const warnedAbout = new Set<string>();

/**
 * The OS keychain when one answers, else 0600 files under DIR/keys with a warning: one short line
 * that says where the keys are and why, once per process and folder. The keychain library's own
 * words (a D-Bus error several lines long) are said only where the keychain was asked for by name.
 * `COFFER_KEYSTORE=file|keychain` forces a choice (keychain then fails loudly instead of falling back).
 */
export async function openSecretBackend(
  dataDir: string,
  preference: KeyStorePreference,
  warn: (message: string) => void,
): Promise<SecretBackend> {
  const folder = join(dataDir, 'keys');
  if (preference !== 'file') {
    const keychain = await openKeychainBackend();
    if ('backend' in keychain) return keychain.backend;
    if (preference === 'keychain') throw new Error(`COFFER_KEYSTORE=keychain but ${keychain.reason} (${keychain.cause})`);
    if (!warnedAbout.has(folder)) {
      warnedAbout.add(folder);
      warn(`warning: ${keychain.reason}, so keys are kept in files only you can read, in ${folder}`);
    }
  }
  return createFileBackend(folder);
}
