import { verify, createPublicKey } from 'node:crypto';
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  signBytes,
  type Address,
} from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { createKeyVault } from '../../../../server/keys/key-vault.js';
import { evmWalletKeyAt, seedOfPhrase, walletKeyAt } from '../../../../server/keys/recovery-phrase.js';
import { privateKeyToAccount } from 'viem/accounts';
import { bytesToHex, verifyMessage } from 'viem';
import type { SecretBackend } from '../../../../server/keys/secret-backend.js';

/** An in-memory key store, as the keychain and the key files behave for the vault. */
function memoryBackend(): SecretBackend & { secrets: Map<string, string> } {
  const secrets = new Map<string, string>();
  return {
    kind: 'file',
    secrets,
    get: async (account) => secrets.get(account) ?? null,
    set: async (account, secret) => void secrets.set(account, secret),
    delete: async (account) => secrets.delete(account),
  };
}

const publicKeyOf = (address: string) =>
  createPublicKey({
    format: 'jwk',
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(getAddressEncoder().encode(address as Address)).toString('base64url') },
  });

describe('the key vault', () => {
  it("signs with node:crypto exactly as kit's signer does, for a new wallet and for one read back from the store, with no deprecation warning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const backend = memoryBackend();
      const address = await createKeyVault(backend).createWallet({ kind: 'random' });
      const stored = backend.secrets.get(`wallet:${address}`)!;
      expect(getBase58Encoder().encode(stored).length).toBe(64);
      const message = new TextEncoder().encode('a transfer message');
      for (const vault of [createKeyVault(backend), createKeyVault(backend)]) {
        const fast = (await vault.signBytes(address))(message);
        const kit = new Uint8Array(await signBytes((await vault.signer(address)).keyPair.privateKey, message));
        expect(Buffer.from(fast).equals(Buffer.from(kit))).toBe(true);
        expect(verify(null, message, publicKeyOf(address), fast)).toBe(true);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it("refuses a stored key that is not the wallet's, or is missing", async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const [first, second] = [await vault.createWallet({ kind: 'random' }), await vault.createWallet({ kind: 'random' })];
    backend.secrets.set(`wallet:${first}`, backend.secrets.get(`wallet:${second}`)!);
    await expect(createKeyVault(backend).signer(first)).rejects.toThrow(`stored key for ${first} does not match its address`);
    backend.secrets.set(`wallet:${first}`, getBase58Decoder().decode(new Uint8Array(12)));
    await expect(createKeyVault(backend).signBytes(first)).rejects.toThrow(/is not a 64-byte keypair/);
    backend.secrets.delete(`wallet:${first}`);
    await expect(createKeyVault(backend).signer(first)).rejects.toThrow(`no key stored for ${first}`);
  });

  it('says whether it holds the key of a wallet, or of its Base account', async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    const agent = await vault.createWallet({ kind: 'agent', treasury });
    const account = await vault.evmWalletOf(agent, treasury);
    expect([await vault.holdsKeyOf(agent), await vault.holdsKeyOf(account)]).toEqual([true, true]);
    backend.secrets.delete(`wallet:${agent}`);
    backend.secrets.delete(`evm-wallet:${account}`);
    expect([await vault.holdsKeyOf(agent), await vault.holdsKeyOf(account), await vault.holdsKeyOf(treasury)]).toEqual([
      false,
      false,
      true,
    ]);
  });
});

describe('wallets from the recovery phrase', () => {
  const addressAt = async (phrase: string, index: number) =>
    (await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(await seedOfPhrase(phrase), index))).address;

  it('a new treasury gets a new phrase and is its first wallet; its agents are the next ones, each once, also made at the same time', async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    const phrase = backend.secrets.get(`recovery-phrase:${treasury}`)!;
    expect(phrase.split(' ')).toHaveLength(24);
    expect(await addressAt(phrase, 0)).toBe(treasury);
    const agents = await Promise.all(Array.from({ length: 5 }, () => vault.createWallet({ kind: 'agent', treasury })));
    const expected = await Promise.all([1, 2, 3, 4, 5].map((index) => addressAt(phrase, index)));
    expect(new Set(agents)).toEqual(new Set(expected));
    // A vault opened again (a restart) goes on from where the last one stopped, and signs with what it stored.
    const later = createKeyVault(backend);
    expect(await later.createWallet({ kind: 'agent', treasury })).toBe(await addressAt(phrase, 6));
    expect((await later.signer(agents[0]!)).address).toBe(agents[0]);
    // Another treasury has a phrase of its own.
    const other = await vault.createWallet({ kind: 'treasury' });
    expect(backend.secrets.get(`recovery-phrase:${other}`)).not.toBe(phrase);
  });

  it('a treasury made before phrases keeps giving its agents random keys; a lost index is refused, never guessed', async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const old = await vault.createWallet({ kind: 'random' });
    const agent = await vault.createWallet({ kind: 'agent', treasury: old });
    expect(agent).not.toBe(old);
    expect(backend.secrets.has(`recovery-phrase:${old}`)).toBe(false);
    const treasury = await createKeyVault(backend).createWallet({ kind: 'treasury' });
    backend.secrets.delete(`recovery-next-index:${treasury}`);
    await expect(createKeyVault(backend).createWallet({ kind: 'agent', treasury })).rejects.toThrow(/next wallet index/);
  });
});

describe('the secrets of a backup', () => {
  it('exports every key the wallets and treasuries need, and files them into another key store that then signs and derives as the first', async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    await backend.set(`owner-key:${treasury}`, 'cof_owner_0123456789abcdefABCDEF');
    const agents = [await vault.createWallet({ kind: 'agent', treasury }), await vault.createWallet({ kind: 'agent', treasury })];
    const random = await vault.createWallet({ kind: 'random' });
    const unrelated = await vault.createWallet({ kind: 'random' });
    const lost = await createKeyVault(memoryBackend()).createWallet({ kind: 'random' });

    const { secrets, walletsWithoutKey } = await vault.exportSecrets({ wallets: [...agents, random, lost], treasuries: [treasury] });
    expect(walletsWithoutKey).toEqual([lost]);
    expect(Object.keys(secrets).sort()).toEqual(
      [
        `wallet:${treasury}`,
        `wallet:${agents[0]}`,
        `wallet:${agents[1]}`,
        `wallet:${random}`,
        `owner-key:${treasury}`,
        `recovery-phrase:${treasury}`,
        `recovery-next-index:${treasury}`,
        ...(await Promise.all([treasury, ...agents].map((wallet) => vault.evmWalletOf(wallet, treasury)))).flatMap((evm, i) => [
          `evm-wallet:${evm}`,
          `evm-wallet-of:${[treasury, ...agents][i]}`,
        ]),
      ].sort(),
    );
    expect(secrets[`wallet:${unrelated}`]).toBeUndefined();

    const elsewhere = memoryBackend();
    const restored = createKeyVault(elsewhere);
    await restored.importSecrets(secrets);
    for (const wallet of [treasury, ...agents, random]) expect((await restored.signer(wallet)).address).toBe(wallet);
    for (const wallet of [treasury, ...agents]) {
      const evm = await vault.evmWalletOf(wallet, treasury);
      expect(await restored.evmWalletOf(wallet, treasury)).toBe(evm);
      expect((await restored.evmAccount(evm)).address).toBe(evm);
    }
    expect(elsewhere.secrets.get(`recovery-phrase:${treasury}`)).toBe(backend.secrets.get(`recovery-phrase:${treasury}`));
    // The next agent is the phrase's next wallet, the one the first key store would have made.
    const next = await restored.createWallet({ kind: 'agent', treasury });
    expect(next).toBe(await vault.createWallet({ kind: 'agent', treasury }));
  });

  it("a wallet whose Base account's key is lost is named, as one whose own key is, and the rest exported: no backup is stopped by it", async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    const agents = [await vault.createWallet({ kind: 'agent', treasury }), await vault.createWallet({ kind: 'agent', treasury })];
    const lostEvm = await vault.evmWalletOf(agents[0]!, treasury);
    const keptEvm = await vault.evmWalletOf(agents[1]!, treasury);
    backend.secrets.delete(`evm-wallet:${lostEvm}`);

    const { secrets, walletsWithoutKey } = await vault.exportSecrets({ wallets: agents, treasuries: [treasury] });
    expect(walletsWithoutKey).toEqual([lostEvm]);
    // Its pointer is left out with its key (a backup naming an account without its key is refused on restore).
    expect(secrets[`evm-wallet-of:${agents[0]}`]).toBeUndefined();
    expect(secrets[`evm-wallet:${keptEvm}`]).toBe(backend.secrets.get(`evm-wallet:${keptEvm}`));
    expect(secrets[`wallet:${agents[0]}`]).toBe(backend.secrets.get(`wallet:${agents[0]}`));
    const restored = createKeyVault(memoryBackend());
    await restored.importSecrets(secrets);
    expect((await restored.evmAccount(keptEvm)).address).toBe(keptEvm);
  });

  it('a next index never goes back: an older backup filed over a key store that went on keeps the later index', async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    const { secrets } = await vault.exportSecrets({ wallets: [], treasuries: [treasury] });
    const later = await vault.createWallet({ kind: 'agent', treasury });
    await createKeyVault(backend).importSecrets(secrets);
    expect(backend.secrets.get(`recovery-next-index:${treasury}`)).toBe('2');
    expect(await createKeyVault(backend).createWallet({ kind: 'agent', treasury })).not.toBe(later);
  });

  it('refuses entries Coffer does not write, a key filed under another address and a phrase of another treasury, and then files nothing', async () => {
    const source = memoryBackend();
    const vault = createKeyVault(source);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    const other = await vault.createWallet({ kind: 'treasury' });
    const { secrets } = await vault.exportSecrets({ wallets: [], treasuries: [treasury, other] });
    const evmOf = (wallet: string) => secrets[`evm-wallet-of:${wallet}`]!;
    const cases: [string, Record<string, string>, RegExp][] = [
      ['an unknown name', { ...secrets, 'session:x': 'y' }, /not one Coffer writes/],
      ['a key under another address', { ...secrets, [`wallet:${treasury}`]: secrets[`wallet:${other}`]! }, /does not match its address/],
      ['a short key', { ...secrets, [`wallet:${treasury}`]: '1111' }, /64-byte keypair/],
      [
        'a phrase of another treasury',
        { ...secrets, [`recovery-phrase:${treasury}`]: secrets[`recovery-phrase:${other}`]! },
        /not its phrase/,
      ],
      ['an index that is none', { ...secrets, [`recovery-next-index:${treasury}`]: '-1' }, /not an index/],
      ['an owner key that is none', { ...secrets, [`owner-key:${treasury}`]: 'x' }, /not one Coffer writes/],
      [
        'an EVM key under another address',
        { ...secrets, [`evm-wallet:${evmOf(treasury)}`]: secrets[`evm-wallet:${evmOf(other)}`]! },
        /is not its key/,
      ],
      ['an EVM key that is none', { ...secrets, [`evm-wallet:${evmOf(treasury)}`]: '0x12' }, /is not a private key/],
      [
        'an EVM account without its key',
        { ...secrets, [`evm-wallet-of:${treasury}`]: privateKeyToAccount(bytesToHex(new Uint8Array(32).fill(7))).address },
        /without its key/,
      ],
      ['an EVM account that is no address', { ...secrets, [`evm-wallet-of:${treasury}`]: 'nope' }, /is not an address/],
    ];
    for (const [what, entries, refusal] of cases) {
      const target = memoryBackend();
      await expect(createKeyVault(target).importSecrets(entries), what).rejects.toThrow(refusal);
      expect(target.secrets.size, what).toBe(0);
    }
  });
});

describe("each wallet's EVM account", () => {
  const evmAddressAt = async (phrase: string, index: number) =>
    privateKeyToAccount(bytesToHex(evmWalletKeyAt(await seedOfPhrase(phrase), index))).address;

  it("is the phrase's at the wallet's own index (m/44'/60'/0'/0/i), the same every time, and signs as its address", async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    const agents = await Promise.all([1, 2, 3].map(() => vault.createWallet({ kind: 'agent', treasury })));
    const phrase = backend.secrets.get(`recovery-phrase:${treasury}`)!;
    for (const wallet of [treasury, ...agents]) {
      const index = [treasury, ...agents].indexOf(wallet);
      // Agents made at the same time take indices in any order: the Solana address says which.
      const solanaIndex = await Promise.all(
        [0, 1, 2, 3].map(async (i) => (await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(await seedOfPhrase(phrase), i))).address),
      );
      const at = solanaIndex.indexOf(wallet as Address);
      expect(at, `wallet ${index}`).toBeGreaterThanOrEqual(0);
      const evm = await vault.evmWalletOf(wallet, treasury);
      expect(evm).toBe(await evmAddressAt(phrase, at));
      expect(await createKeyVault(backend).evmWalletOf(wallet, treasury)).toBe(evm);
    }
    const evm = await vault.evmWalletOf(treasury, treasury);
    const account = await createKeyVault(backend).evmAccount(evm);
    const signature = await account.signMessage!({ message: 'a receipt' });
    expect(await verifyMessage({ address: evm as `0x${string}`, message: 'a receipt', signature })).toBe(true);
  });

  it("is found by the wallet's index for a wallet made before EVM accounts, and random (then kept) where no phrase derives the wallet", async () => {
    const backend = memoryBackend();
    const vault = createKeyVault(backend);
    const treasury = await vault.createWallet({ kind: 'treasury' });
    const agent = await vault.createWallet({ kind: 'agent', treasury });
    const phrase = backend.secrets.get(`recovery-phrase:${treasury}`)!;
    // A data dir from before: no EVM entries at all.
    for (const name of [...backend.secrets.keys()]) if (name.startsWith('evm-')) backend.secrets.delete(name);
    const older = createKeyVault(backend);
    const [first, again] = await Promise.all([older.evmWalletOf(agent, treasury), older.evmWalletOf(agent, treasury)]);
    expect(first).toBe(await evmAddressAt(phrase, 1));
    expect(again).toBe(first);

    const oldTreasury = await vault.createWallet({ kind: 'random' });
    const oldAgent = await vault.createWallet({ kind: 'agent', treasury: oldTreasury });
    const random = await Promise.all([vault.evmWalletOf(oldAgent, oldTreasury), vault.evmWalletOf(oldAgent, oldTreasury)]);
    expect(random[1]).toBe(random[0]);
    expect(await createKeyVault(backend).evmWalletOf(oldAgent, oldTreasury)).toBe(random[0]);
    expect((await createKeyVault(backend).evmAccount(random[0])).address).toBe(random[0]);
    expect(random[0]).not.toBe(await vault.evmWalletOf(oldTreasury, oldTreasury));
  });
});
