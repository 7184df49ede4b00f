/**
 * The key port as the core sees it: wallets are created and named by address; secrets (the owner
 * key) are stored by name. Secret key bytes never cross this boundary into the core.
 */
export interface KeyVault {
  /** 'keychain' (OS keychain) or 'file' (0600 files under the data dir). */
  readonly kind: 'keychain' | 'file';
  createWallet(): Promise<string>;
  hasWallet(address: string): Promise<boolean>;
  getSecret(name: string): Promise<string | null>;
  setSecret(name: string, value: string): Promise<void>;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
