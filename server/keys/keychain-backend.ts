import type { SecretBackend } from './secret-backend.js';
import { KEYCHAIN_SERVICE } from './secret-backend.js';

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/**
 * The OS keychain through keytar (macOS Keychain, Windows Credential Vault, Secret Service on Linux).
 * Returns null when keytar is not installed or no keychain answers, so the caller can fall back.
 */
export async function openKeychainBackend(): Promise<{ backend: SecretBackend } | { reason: string }> {
  let keytar: Keytar;
  try {
    const loaded = (await import('keytar')) as unknown as { default?: Keytar } & Keytar;
    keytar = loaded.default ?? loaded;
  } catch (error) {
    return { reason: `keytar is not available (${(error as Error).message.split('\n')[0]})` };
  }
  try {
    // A read that reaches the keychain proves it answers; on a headless Linux box it throws.
    await keytar.getPassword(KEYCHAIN_SERVICE, 'probe');
  } catch (error) {
    return { reason: `no OS keychain answered (${(error as Error).message.split('\n')[0]})` };
  }
  return {
    backend: {
      kind: 'keychain',
      get: (account) => keytar.getPassword(KEYCHAIN_SERVICE, account),
      set: (account, secret) => keytar.setPassword(KEYCHAIN_SERVICE, account, secret),
      delete: (account) => keytar.deletePassword(KEYCHAIN_SERVICE, account),
    },
  };
}
