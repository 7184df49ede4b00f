/** Where secrets physically live: the OS keychain, or 0600 files when no keychain answers. */
export interface SecretBackend {
  readonly kind: 'keychain' | 'file';
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

/** Keychain service name under which every Coffer secret is filed. */
export const KEYCHAIN_SERVICE = 'coffer';
