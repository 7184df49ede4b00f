import { randomBytes } from 'node:crypto';
import {
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  signBytes,
  type KeyPairSigner,
} from '@solana/kit';
import type { KeyVault } from '../core/ports/keys.js';
import type { SecretBackend } from './secret-backend.js';

const walletAccount = (address: string) => `wallet:${address}`;

/**
 * Wallet keys and named secrets on top of a SecretBackend. A wallet's secret is the 64-byte Solana
 * keypair (seed + public key) in base58, the format wallets import. Signers are cached in memory so
 * a payment does not wait on the keychain; the bytes never leave this module except into WebCrypto.
 */
export interface WalletKeyVault extends KeyVault {
  signer(address: string): Promise<KeyPairSigner>;
}

export function createKeyVault(backend: SecretBackend): WalletKeyVault {
  const signers = new Map<string, Promise<KeyPairSigner>>();

  const loadSigner = async (address: string): Promise<KeyPairSigner> => {
    const secret = await backend.get(walletAccount(address));
    if (secret === null) throw new Error(`no secret key stored for wallet ${address}`);
    const signer = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(secret)));
    if (signer.address !== address) throw new Error(`stored key for ${address} does not match its address`);
    return signer;
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
    signer: (address) => {
      let signer = signers.get(address);
      if (!signer) {
        signer = loadSigner(address);
        signers.set(address, signer);
        signer.catch(() => signers.delete(address));
      }
      return signer;
    },
    signMessage: async (address, message) => {
      const signer = await (signers.get(address) ?? loadSigner(address));
      return new Uint8Array(await signBytes(signer.keyPair.privateKey, message));
    },
    getSecret: (name) => backend.get(name),
    setSecret: (name, value) => backend.set(name, value),
  };
}
