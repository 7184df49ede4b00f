import { KeyObject, randomBytes, sign } from 'node:crypto';
import {
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  type KeyPairSigner,
} from '@solana/kit';
import type { KeyVault } from '../core/ports/keys.js';
import type { SecretBackend } from './secret-backend.js';

const walletAccount = (address: string) => `wallet:${address}`;

/** Signs bytes with one wallet's key, at once (Ed25519 in node:crypto, on the calling thread). */
export type SignBytes = (message: Uint8Array) => Uint8Array;

/**
 * Wallet keys and named secrets on top of a SecretBackend. A wallet's secret is the 64-byte Solana
 * keypair (seed + public key) in base58, the format wallets import. Signers are cached in memory so
 * a payment does not wait on the keychain; the bytes never leave this module except into WebCrypto's
 * non-extractable keys.
 */
export interface WalletKeyVault extends KeyVault {
  signer(address: string): Promise<KeyPairSigner>;
  /**
   * The same key as a synchronous signing function: WebCrypto's sign hops to the thread pool and back
   * (about 90 µs here against 30 µs), and a payment signs three times.
   */
  signBytes(address: string): Promise<SignBytes>;
}

export function createKeyVault(backend: SecretBackend): WalletKeyVault {
  const signers = new Map<string, Promise<KeyPairSigner>>();
  const syncSigners = new Map<string, SignBytes>();

  const loadSigner = async (address: string): Promise<KeyPairSigner> => {
    const secret = await backend.get(walletAccount(address));
    if (secret === null) throw new Error(`no secret key stored for wallet ${address}`);
    const signer = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(secret)));
    if (signer.address !== address) throw new Error(`stored key for ${address} does not match its address`);
    return signer;
  };

  const signerOf = (address: string): Promise<KeyPairSigner> => {
    let signer = signers.get(address);
    if (!signer) {
      signer = loadSigner(address);
      signers.set(address, signer);
      signer.catch(() => signers.delete(address));
    }
    return signer;
  };

  const signBytesOf = async (address: string): Promise<SignBytes> => {
    let signBytes = syncSigners.get(address);
    if (!signBytes) {
      // The same non-extractable key, seen by node:crypto: the secret is not copied out.
      const key = KeyObject.from((await signerOf(address)).keyPair.privateKey);
      signBytes = (message) => new Uint8Array(sign(null, message, key));
      syncSigners.set(address, signBytes);
    }
    return signBytes;
  };

  return {
    kind: backend.kind,
    createWallet: async () => {
      const seed = new Uint8Array(randomBytes(32));
      const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
      const keypair = new Uint8Array(64);
      keypair.set(seed, 0);
      keypair.set(getAddressEncoder().encode(signer.address), 32);
      await backend.set(walletAccount(signer.address), getBase58Decoder().decode(keypair));
      seed.fill(0);
      keypair.fill(0);
      signers.set(signer.address, Promise.resolve(signer));
      return signer.address;
    },
    signer: signerOf,
    signBytes: signBytesOf,
    signMessage: async (address, message) => (await signBytesOf(address))(message),
    getSecret: (name) => backend.get(name),
    setSecret: (name, value) => backend.set(name, value),
  };
}
