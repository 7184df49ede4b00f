import { generateMnemonic, mnemonicToSeed, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from 'micro-key-producer/slip10.js';

/**
 * The recovery phrase: a BIP39 phrase (English words) whose seed derives every wallet of a treasury
 * by SLIP-0010 Ed25519 at Solana's standard path, `m/44'/501'/i'/0'`, as Phantom and Solflare do:
 * index 0 is the treasury (it opens in those wallets with the same phrase), the agents follow.
 * Libraries, never hand-rolled: @scure/bip39 for the phrase and its seed, micro-key-producer's
 * slip10 for the derivation.
 */

/** 24 words: 256 bits of entropy. Wallets import 12 and 24 alike. */
const PHRASE_BITS = 256;

/** The derivation path of wallet `index`. */
export const solanaPath = (index: number): string => `m/44'/501'/${index}'/0'`;

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
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new Error(`no wallet index ${index}`);
  return HDKey.fromMasterSeed(seed).derive(solanaPath(index)).privateKey;
}
