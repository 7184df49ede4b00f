import { join } from 'node:path';
import { openKeychainBackend } from './keychain-backend.js';
import { createFileBackend } from './file-backend.js';
import type { SecretBackend } from './secret-backend.js';

export type KeyStorePreference = 'auto' | 'keychain' | 'file';

/**
 * The OS keychain when one answers, else 0600 files under DIR/keys with a warning.
 * `COFFER_KEYSTORE=file|keychain` forces a choice (keychain then fails loudly instead of falling back).
 */
export async function openSecretBackend(
  dataDir: string,
  preference: KeyStorePreference,
  warn: (message: string) => void,
): Promise<SecretBackend> {
  if (preference !== 'file') {
    const keychain = await openKeychainBackend();
    if ('backend' in keychain) return keychain.backend;
    if (preference === 'keychain') throw new Error(`COFFER_KEYSTORE=keychain but ${keychain.reason}`);
    warn(`warning: ${keychain.reason}; keeping keys in ${join(dataDir, 'keys')} (files readable only by you)`);
  }
  return createFileBackend(join(dataDir, 'keys'));
}
