import { generateMnemonic, mnemonicToSeed, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey as Bip32Key } from '@scure/bip32';
import { HDKey } from 'micro-key-producer/slip10.js';

/**
 * The recovery phrase: a BIP39 phrase (English words) whose seed derives every wallet of a treasury
 * by SLIP-0010 Ed25519 at Solana's standard path, `m/44'/501'/i'/0'`, as Phantom and Solflare do:
 * index 0 is the treasury (it opens in those wallets with the same phrase), the agents follow.
 * Each wallet also has an EVM key at the same index, by BIP32 secp256k1 at Ethereum's standard path,
 * `m/44'/60'/0'/0/i`, as MetaMask, Rabby and Coinbase Wallet derive their accounts: index 0 is the
 * treasury's EVM address in those wallets too.
 * Libraries, never hand-rolled: @scure/bip39 for the phrase and its seed, micro-key-producer's
 * slip10 for the Ed25519 derivation, @scure/bip32 for the secp256k1 one.
 */

/** 24 words: 256 bits of entropy. Wallets import 12 and 24 alike. */
const PHRASE_BITS = 256;

/** The derivation path of wallet `index`. */
export const solanaPath = (index: number): string => `m/44'/501'/${index}'/0'`;
/** The derivation path of wallet `index`'s EVM key. */
export const evmPath = (index: number): string => `m/44'/60'/0'/0/${index}`;

export function newRecoveryPhrase(): string {
  return generateMnemonic(wordlist, PHRASE_BITS);
}

/** Whether `phrase` is a BIP39 English phrase with a valid checksum (words separated by single spaces). */
export function isRecoveryPhrase(phrase: string): boolean {
  return validateMnemonic(phrase, wordlist);
}

/** Words as a person may type them: any case, any spacing. */
export const normalizePhrase = (typed: string): string => typed.trim().toLowerCase().split(/\s+/).join(' ');

/** The BIP39 seed of a phrase (no BIP39 passphrase: what wallets use by default). */
export async function seedOfPhrase(phrase: string): Promise<Uint8Array> {
  if (!isRecoveryPhrase(phrase)) throw new Error('not a valid recovery phrase');
  return mnemonicToSeed(phrase);
}

/** The 32-byte Ed25519 private key (the keypair's seed half) of wallet `index` under a BIP39 seed. */
export function walletKeyAt(seed: Uint8Array, index: number): Uint8Array {
  checkIndex(index);
  return HDKey.fromMasterSeed(seed).derive(solanaPath(index)).privateKey;
}

/** The 32-byte secp256k1 private key of wallet `index`'s EVM account under a BIP39 seed. */
export function evmWalletKeyAt(seed: Uint8Array, index: number): Uint8Array {
  checkIndex(index);
  const key = Bip32Key.fromMasterSeed(seed).derive(evmPath(index)).privateKey;
  if (key === null) throw new Error(`no EVM key at index ${index}`);
  return key;
}

/** Both keys of wallet `index`: the Solana wallet's and its EVM account's. */
export interface WalletKeysAt {
  solana: Uint8Array;
  evm: Uint8Array;
}

export const walletKeysAt = (seed: Uint8Array, index: number): WalletKeysAt => ({
  solana: walletKeyAt(seed, index),
  evm: evmWalletKeyAt(seed, index),
});

function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error(`no wallet index ${index}`);
}
