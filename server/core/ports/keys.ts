/** The name under which a treasury's recovery phrase is kept in the key store. */
export const recoveryPhraseSecret = (treasury: string): string => `recovery-phrase:${treasury}`;
/** The name of the owner key (the CLI's and the connection file's credential) in the key store. */
export const ownerKeySecret = (owner: string): string => `owner-key:${owner}`;

/**
 * What a new wallet is for: a treasury (the first wallet of a new recovery phrase, or of `phrase`
 * when one is restored), an agent of a treasury (the phrase's next wallet, or a random key when the
 * treasury has no phrase), one wallet of a treasury's phrase a restore found in use (`index`), or
 * the embedded chain's own use (a random key: test money, never recovered).
 */
export type NewWallet =
  | { kind: 'treasury'; phrase?: string }
  | { kind: 'agent'; treasury: string }
  | { kind: 'phrase-index'; treasury: string; index: number }
  | { kind: 'random' };

/**
 * The key port as the core sees it: wallets are created and named by address; secrets (the owner
 * key) are stored by name. Secret key bytes never cross this boundary into the core.
 */
export interface KeyVault {
  /** 'keychain' (OS keychain) or 'file' (0600 files under the data dir). */
  readonly kind: 'keychain' | 'file';
  createWallet(what: NewWallet): Promise<string>;
  /**
   * The EVM address of a treasury's wallet (named by its Solana address): its phrase's account at the
   * wallet's own index, or a random account for a wallet the phrase does not derive; made once, then
   * the same every time.
   */
  evmWalletOf(wallet: string, treasury: string): Promise<string>;
  /** An Ed25519 signature of `message` by the wallet's key (proves a receipt came from its payer). */
  signMessage(address: string, message: Uint8Array): Promise<Uint8Array>;
  /** Whether the key store holds the key of `address`: a wallet's (by its Solana address) or a Base account's (0x). */
  holdsKeyOf(address: string): Promise<boolean>;
  /** The EIP-191 signature (hex) of `message` by an EVM account's key (proves a Base receipt came from its payer). */
  signEvmMessage(address: string, message: Uint8Array): Promise<string>;
  getSecret(name: string): Promise<string | null>;
  setSecret(name: string, value: string): Promise<void>;
  deleteSecret(name: string): Promise<void>;
}

/**
 * A wallet's key is not in the key store (lost, or not in the backup file this Coffer was restored
 * from): nothing of that wallet's can be signed. Thrown by the key vault, said in words by the core
 * (it read as "the chain could not be reached": helper 199).
 */
export class WalletKeyMissing extends Error {
  constructor(readonly address: string) {
    super(`no key stored for ${address}`);
    this.name = 'WalletKeyMissing';
  }
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
