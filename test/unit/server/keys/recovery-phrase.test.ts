import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { HDKey } from 'micro-key-producer/slip10.js';
import { HDKey as Bip32Key } from '@scure/bip32';
import { privateKeyToAccount } from 'viem/accounts';
import {
  isRecoveryPhrase,
  newRecoveryPhrase,
  normalizePhrase,
  evmPath,
  evmWalletKeyAt,
  seedOfPhrase,
  solanaPath,
  walletKeyAt,
} from '../../../../server/keys/recovery-phrase.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('the recovery phrase', () => {
  it('matches the published vectors: BIP39 (seed of the "abandon … about" phrase) and SLIP-0010 Ed25519 (vector 1)', async () => {
    // BIP39's reference vectors (trezor/python-mnemonic vectors.json) give this seed with the
    // passphrase "TREZOR"; without one, as wallets derive, it is the seed every Solana wallet uses.
    expect(hex(await seedOfPhrase(ABANDON))).toBe(
      '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
    );
    // SLIP-0010 test vector 1 for ed25519: seed 000102…0f.
    const master = HDKey.fromMasterSeed(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'));
    expect(hex(master.privateKey)).toBe('2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7');
    expect(hex(master.derive("m/0'").privateKey)).toBe('68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
    expect(hex(master.derive("m/0'/1'/2'/2'/1000000000'").privateKey)).toBe(
      '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793',
    );
  });

  it("derives the EVM address MetaMask, Rabby and Coinbase Wallet show for the same phrase at m/44'/60'/0'/0/i", async () => {
    // BIP32 test vector 1 (secp256k1): seed 000102…0f.
    const master = Bip32Key.fromMasterSeed(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'));
    expect(hex(master.derive("m/0'/1/2'/2/1000000000").privateKey!)).toBe(
      '471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8',
    );
    // The accounts every EVM wallet derives from the "abandon … about" phrase.
    const seed = await seedOfPhrase(ABANDON);
    const addressAt = (index: number) => privateKeyToAccount(`0x${hex(evmWalletKeyAt(seed, index))}`).address;
    expect(addressAt(0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(addressAt(1)).toBe('0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0');
    expect(evmPath(0)).toBe("m/44'/60'/0'/0/0");
  });

  it("derives the address Phantom and Solflare show for the same phrase at m/44'/501'/0'/0'", async () => {
    const seed = await seedOfPhrase(ABANDON);
    const treasury = await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(seed, 0));
    expect(treasury.address).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
    expect(solanaPath(0)).toBe("m/44'/501'/0'/0'");
    // Each index its own wallet, the same one every time.
    const agent = await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(seed, 1));
    expect(agent.address).not.toBe(treasury.address);
    expect((await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(await seedOfPhrase(ABANDON), 1))).address).toBe(agent.address);
  });

  it('is 24 words with a checksum; a typed phrase is read in any case and spacing; a wrong word or checksum is not a phrase', async () => {
    const phrase = newRecoveryPhrase();
    expect(phrase.split(' ')).toHaveLength(24);
    expect(isRecoveryPhrase(phrase)).toBe(true);
    expect(newRecoveryPhrase()).not.toBe(phrase);
    expect(normalizePhrase(`  ${phrase.toUpperCase().replaceAll(' ', '  \n')} `)).toBe(phrase);
    expect(isRecoveryPhrase(ABANDON.replace('about', 'abandon'))).toBe(false);
    expect(isRecoveryPhrase(ABANDON.replace('about', 'coffer'))).toBe(false);
    await expect(seedOfPhrase('not a phrase')).rejects.toThrow(/not a valid recovery phrase/);
    expect(() => walletKeyAt(new Uint8Array(64), -1)).toThrow(/no wallet index/);
  });
});
