import { createPrivateKey, randomBytes, sign } from 'node:crypto';
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  type KeyPairSigner,
} from '@solana/kit';
import { ownerKeySecret, WalletKeyMissing, type NewWallet } from '../core/ports/keys.js';
import type { SignBytes, WalletSigners } from '../chain/solana/signers.js';
import type { EvmSigners } from '../chain/evm/signers.js';
import { createEvmWallets, evmKeyAccount, isEvmEntry } from './evm-wallets.js';
import { signingInProcess, type EvmSigningThread } from './evm-signing-thread.js';
import { createPhraseWallets, treasuryEntryOf } from './phrase-wallets.js';
import type { WalletKeysAt } from './recovery-phrase.js';
import type { SecretBackend } from './secret-backend.js';

/** The key store's name of a wallet's key (its Solana keypair), as a backup's manifest names it too. */
export const walletAccount = (address: string) => `wallet:${address}`;

/**
 * Wallet keys and named secrets on top of a SecretBackend. A wallet's secret is the 64-byte Solana
 * keypair (seed + public key) in base58, the format wallets import. Signers are cached in memory so
 * a payment does not wait on the keychain; the bytes never leave this module except into WebCrypto's
 * non-extractable keys.
 */
export interface WalletKeyVault extends WalletSigners, EvmSigners {
  /**
   * The key store's entries that restore these wallets and treasuries on another computer, by their
   * names (for the encrypted backup file): each wallet's keypair, and of each treasury its owner key,
   * recovery phrase and next wallet index where it has them. Wallets without a stored key are named.
   */
  exportSecrets(what: {
    wallets: string[];
    treasuries: string[];
  }): Promise<{ secrets: Record<string, string>; walletsWithoutKey: string[] }>;
  /**
   * Files entries read from a backup into this key store, each checked first: a wallet's keypair must
   * be its address's, a phrase must derive its treasury, a name must be one Coffer writes. A
   * treasury's next wallet index never goes back.
   */
  importSecrets(secrets: Record<string, string>): Promise<void>;
}

/** One wallet's key, held twice without copying the secret out again: kit's signer and node:crypto's. */
interface WalletKeys {
  signer: KeyPairSigner;
  signBytes: SignBytes;
}

/**
 * Both forms from the 32-byte seed, made once. node:crypto's key comes from the same seed as a JWK,
 * not from the signer's CryptoKey: Node 24 deprecates KeyObject.from() on a non-extractable
 * CryptoKey (DEP0204).
 */
async function walletKeys(seed: Uint8Array): Promise<WalletKeys> {
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const publicKey = getAddressEncoder().encode(signer.address);
  const key = createPrivateKey({
    format: 'jwk',
    key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(seed).toString('base64url'), x: Buffer.from(publicKey).toString('base64url') },
  });
  return { signer, signBytes: (message) => new Uint8Array(sign(null, message, key)) };
}

/** `evmSigning`: where the EVM accounts sign (a worker for a served data dir, evm-signing-thread.ts). */
export function createKeyVault(backend: SecretBackend, evmSigning: EvmSigningThread = signingInProcess): WalletKeyVault {
  const wallets = new Map<string, Promise<WalletKeys>>();
  const phrases = createPhraseWallets(backend);
  const evm = createEvmWallets(backend, evmSigning);

  /** Stores a wallet's 64-byte keypair (what wallets import) and keeps its signers; answers its address. */
  const keep = async (key: Uint8Array): Promise<string> => {
    const keypair = new Uint8Array(64);
    keypair.set(key, 0);
    try {
      const keys = await walletKeys(keypair.subarray(0, 32));
      const address = keys.signer.address;
      keypair.set(getAddressEncoder().encode(address), 32);
      await backend.set(walletAccount(address), getBase58Decoder().decode(keypair));
      wallets.set(address, Promise.resolve(keys));
      return address;
    } finally {
      keypair.fill(0);
      key.fill(0);
    }
  };

  /** A wallet of the phrase: its Solana keypair, then its EVM account at the same index. */
  const keepBoth = async (keys: WalletKeysAt): Promise<string> => {
    const address = await keep(keys.solana);
    await evm.file(address, keys.evm);
    return address;
  };

  const createWallet = async (what: NewWallet): Promise<string> => {
    if (what.kind === 'treasury') return phrases.newTreasury(keepBoth, what.phrase);
    if (what.kind === 'phrase-index') return keepBoth(await phrases.keyAt(what.treasury, what.index));
    const derived = what.kind === 'agent' ? await phrases.nextAgentKey(what.treasury) : null;
    return derived === null ? keep(new Uint8Array(randomBytes(32))) : keepBoth(derived);
  };

  const addressOfKey = async (key: Uint8Array) => (await createKeyPairSignerFromPrivateKeyBytes(key)).address;
  const evmWalletOf = (wallet: string, treasury: string) => evm.of(wallet, () => phrases.evmKeyOf(treasury, wallet, addressOfKey));

  const loadWallet = async (address: string): Promise<WalletKeys> => {
    const secret = await backend.get(walletAccount(address));
    if (secret === null) throw new WalletKeyMissing(address);
    return keysOfSecret(address, secret);
  };

  /** A stored keypair's keys, checked: 64 bytes, and the key of its address. */
  const keysOfSecret = async (address: string, secret: string): Promise<WalletKeys> => {
    const keypair = new Uint8Array(getBase58Encoder().encode(secret));
    try {
      if (keypair.length !== 64) throw new Error(`stored key for ${address} is not a 64-byte keypair`);
      const keys = await walletKeys(keypair.subarray(0, 32));
      if (keys.signer.address !== address) throw new Error(`stored key for ${address} does not match its address`);
      return keys;
    } finally {
      keypair.fill(0);
    }
  };

  const walletOf = (address: string): Promise<WalletKeys> => {
    let keys = wallets.get(address);
    if (!keys) {
      keys = loadWallet(address);
      wallets.set(address, keys);
      keys.catch(() => wallets.delete(address));
    }
    return keys;
  };
  const signerOf = async (address: string) => (await walletOf(address)).signer;

  const exportSecrets = async ({ wallets, treasuries }: { wallets: string[]; treasuries: string[] }) => {
    const secrets: Record<string, string> = {};
    const walletsWithoutKey: string[] = [];
    for (const address of new Set([...treasuries, ...wallets])) {
      const secret = await backend.get(walletAccount(address));
      if (secret === null) walletsWithoutKey.push(address);
      else secrets[walletAccount(address)] = secret;
    }
    for (const treasury of treasuries) {
      const ownerKey = await backend.get(ownerKeySecret(treasury));
      if (ownerKey !== null) secrets[ownerKeySecret(treasury)] = ownerKey;
      Object.assign(secrets, await phrases.exportTreasury(treasury));
    }
    const accounts = await evm.export(new Set([...treasuries, ...wallets]));
    Object.assign(secrets, accounts.entries);
    return { secrets, walletsWithoutKey: [...walletsWithoutKey, ...accounts.withoutKey] };
  };

  const importSecrets = async (secrets: Record<string, string>) => {
    const treasuries = new Map<string, { phrase?: string; nextIndex?: string }>();
    const filed: [string, string][] = [];
    const evmEntries: Record<string, string> = {};
    for (const [name, value] of Object.entries(secrets)) {
      const treasuryEntry = treasuryEntryOf(name);
      if (isEvmEntry(name)) {
        evmEntries[name] = value;
      } else if (name.startsWith(walletAccount(''))) {
        await keysOfSecret(name.slice(walletAccount('').length), value);
        filed.push([name, value]);
      } else if (name.startsWith(ownerKeySecret('')) && /^[A-Za-z0-9_-]{16,200}$/.test(value)) {
        filed.push([name, value]);
      } else if (treasuryEntry !== null) {
        treasuries.set(treasuryEntry.treasury, { ...treasuries.get(treasuryEntry.treasury), [treasuryEntry.entry]: value });
      } else {
        throw new Error(`the key store entry ${name} is not one Coffer writes`);
      }
    }
    // Everything is checked before anything is filed.
    filed.push(...evm.check(evmEntries));
    const fileTreasuries = await Promise.all(
      [...treasuries].map(([treasury, entries]) => phrases.checkTreasury(treasury, entries, addressOfKey)),
    );
    for (const [name, value] of filed) await backend.set(name, value);
    for (const file of fileTreasuries) await file();
  };
  const signBytesOf = async (address: string) => (await walletOf(address)).signBytes;

  return {
    kind: backend.kind,
    createWallet,
    evmWalletOf,
    evmAccount: (address) => evm.account(address),
    // A Base account is named by its 0x address; a wallet by its Solana address (base58 has no 0x).
    holdsKeyOf: async (address) => (await backend.get(address.startsWith('0x') ? evmKeyAccount(address) : walletAccount(address))) !== null,
    signEvmMessage: async (address, message) => (await evm.account(address)).signMessage({ message: { raw: message } }),
    signer: signerOf,
    signBytes: signBytesOf,
    signMessage: async (address, message) => (await signBytesOf(address))(message),
    exportSecrets,
    importSecrets,
    getSecret: (name) => backend.get(name),
    setSecret: (name, value) => backend.set(name, value),
    deleteSecret: async (name) => void (await backend.delete(name)),
  };
}
