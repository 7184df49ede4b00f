import { readdirSync, readFileSync, statSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncEntry, findCredentialsAsync } from '@napi-rs/keyring';
import { createKeyPairSignerFromPrivateKeyBytes, getBase58Encoder } from '@solana/kit';
import { describe, expect, it, vi } from 'vitest';
import { openKeychainBackend } from '../../server/keys/keychain-backend.js';
import { createKeyVault } from '../../server/keys/key-vault.js';
import { KEYCHAIN_SERVICE } from '../../server/keys/secret-backend.js';
import { seedOfPhrase, walletKeyAt } from '../../server/keys/recovery-phrase.js';
import { startCoffer, fundedAgent, type TestCoffer, UNLISTED_API } from '../helpers/coffer.js';
import { pay } from '../helpers/pay.js';
import { runCoffer, spawnServe } from '../helpers/serve-process.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * Every encoding of a secret that could leak: the base58 text, the 64 raw bytes, the 32-byte seed (raw,
 * hex, base64); of an EVM account's key (0x and hex), its bytes, its hex in either case, base64.
 */
function needles(secretBase58: string): Buffer[] {
  if (/^0x[0-9a-f]{64}$/.test(secretBase58)) {
    const key = Buffer.from(secretBase58.slice(2), 'hex');
    return [
      Buffer.from(secretBase58),
      key,
      Buffer.from(secretBase58.slice(2)),
      Buffer.from(secretBase58.slice(2).toUpperCase()),
      Buffer.from(key.toString('base64')),
    ];
  }
  const bytes = Buffer.from(getBase58Encoder().encode(secretBase58));
  const seed = bytes.subarray(0, 32);
  return [
    Buffer.from(secretBase58),
    bytes,
    seed,
    Buffer.from(seed.toString('hex')),
    Buffer.from(seed.toString('base64')),
    Buffer.from(JSON.stringify([...bytes])),
  ];
}

function assertNoSecretIn(dir: string, secrets: string[], exceptFiles: string[] = []) {
  const files = filesUnder(dir).filter((f) => !exceptFiles.includes(f));
  expect(files.some((f) => f.endsWith('coffer.db'))).toBe(true);
  for (const file of files) {
    const content = readFileSync(file);
    for (const secret of secrets) {
      for (const needle of needles(secret)) {
        expect(content.includes(needle), `${file} holds key material`).toBe(false);
      }
    }
  }
}

async function exercise(t: TestCoffer) {
  const agent = await fundedAgent(t, 'worker', '2.00');
  const paid = await pay(t, 'worker', agent.apiKey, { ...UNLISTED_API, amount: '0.50', currency: 'USDC' });
  expect(paid.status).toBe(200);
  // Force the WAL into the main file too, so both are scanned with data in them.
  t.coffer.db.pragma('wal_checkpoint(PASSIVE)');
  return agent;
}

describe('keys at rest', () => {
  it('the OS keychain (a real Secret Service) stores, reads and deletes a wallet key', async () => {
    const opened = await openKeychainBackend();
    if (!('backend' in opened)) throw new Error(`no keychain answered: ${opened.reason}, ${opened.cause} (run the suite through npm test)`);
    const { backend } = opened;
    expect(backend.kind).toBe('keychain');
    const vault = createKeyVault(backend);
    const address = await vault.createWallet({ kind: 'random' });
    const stored = await backend.get(`wallet:${address}`);
    expect(stored).not.toBeNull();
    expect(getBase58Encoder().encode(stored!).length).toBe(64);
    // A fresh vault (no cache) reads the key back from the keychain and derives the same address.
    expect((await createKeyVault(backend).signer(address)).address).toBe(address);
    expect(await backend.delete(`wallet:${address}`)).toBe(true);
    expect(await backend.get(`wallet:${address}`)).toBeNull();
    await expect(createKeyVault(backend).signer(address)).rejects.toThrow(`no key stored for ${address}`);
  });

  it('with the keychain, neither the data dir nor SQLite holds key material or API keys', async () => {
    const t = await startCoffer({ keyStore: 'keychain' });
    const wallets = [t.owner];
    try {
      expect(t.coffer.keyStoreKind).toBe('keychain');
      const agent = await exercise(t);
      expect(existsSync(join(t.dataDir, 'keys'))).toBe(false);
      wallets.push(agent.walletAddress);
      const secrets: string[] = [];
      const credentials = await findCredentialsAsync(KEYCHAIN_SERVICE);
      for (const wallet of [...wallets]) {
        const found = credentials.find((c) => c.account === `wallet:${wallet}`);
        expect(found, `keychain entry for ${wallet}`).toBeDefined();
        secrets.push(found!.password);
        const evm = credentials.find((c) => c.account === `evm-wallet-of:${wallet}`)?.password;
        const evmKey = credentials.find((c) => c.account === `evm-wallet:${evm}`);
        expect(evmKey, `keychain entry for the EVM account of ${wallet}`).toBeDefined();
        secrets.push(evmKey!.password);
        // Its entries are left out of the keyring afterwards with this Coffer's others.
        wallets.push(evm!);
      }
      assertNoSecretIn(t.dataDir, secrets);
      for (const file of filesUnder(t.dataDir)) {
        const content = readFileSync(file, 'latin1');
        expect(content.includes(agent.apiKey), `${file} holds the agent key`).toBe(false);
        expect(content.includes(t.ownerKey), `${file} holds the owner key`).toBe(false);
      }
    } finally {
      await t.stop();
      // Leave the keyring as it was: only this Coffer's entries (each names its wallet), not those
      // of tests running beside this one in the same keyring.
      for (const { account } of await findCredentialsAsync(KEYCHAIN_SERVICE)) {
        if (wallets.some((wallet) => account.endsWith(wallet))) await new AsyncEntry(KEYCHAIN_SERVICE, account).deletePassword();
      }
    }
  });

  it('with no Secret Service answering, serve refuses the keychain (never the kernel keyring, lost at logout) and keeps keys in files with a warning', async () => {
    // The binding's own default on Linux falls back to keyutils here; Coffer pins the Secret Service.
    const noBus = { COFFER_KEYSTORE: '', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/coffer-no-bus' };
    const dataDir = mkdtempSync(join(tmpdir(), 'coffer-no-keychain-'));
    try {
      const serve = await spawnServe(dataDir, noBus);
      try {
        await vi.waitFor(() => expect(serve.lines.join('\n')).toContain(`keys in ${join(dataDir, 'keys')}`), { timeout: 10_000 });
        // One short line: where the keys are and why; not the keychain library's D-Bus words.
        expect(serve.stderr.filter((line) => line.startsWith('warning:'))).toEqual([
          `warning: no OS keychain answered, so keys are kept in files only you can read, in ${join(dataDir, 'keys')}`,
        ]);
        expect(serve.stderr.join('\n')).not.toMatch(/DBus|Platform failure/i);
        expect(readdirSync(join(dataDir, 'keys')).length).toBeGreaterThanOrEqual(2);
      } finally {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
      const forced = await runCoffer(['serve', '--data-dir', join(dataDir, 'forced'), '--port', '0'], {
        ...noBus,
        COFFER_KEYSTORE: 'keychain',
      });
      expect(forced.code).not.toBe(0);
      expect(forced.stderr).toMatch(/COFFER_KEYSTORE=keychain but no OS keychain answered/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('without a keychain, keys are 0600 files in a 0700 folder and nowhere else', async () => {
    const t = await startCoffer({ keyStore: 'file' });
    try {
      const agent = await exercise(t);
      const keysDir = join(t.dataDir, 'keys');
      expect(statSync(keysDir).mode & 0o777).toBe(0o700);
      const keyFiles = readdirSync(keysDir).map((name) => join(keysDir, name));
      expect(keyFiles.length).toBeGreaterThanOrEqual(3);
      for (const file of keyFiles) expect(statSync(file).mode & 0o777).toBe(0o600);
      const walletSecrets = [t.owner, agent.walletAddress].map((wallet) => readFileSync(join(keysDir, `wallet_${wallet}.key`), 'utf8'));
      const evmSecrets = keyFiles.filter((file) => /evm-wallet_0x/.test(file)).map((file) => readFileSync(file, 'utf8'));
      // The treasury's and the agent's EVM accounts, and the embedded EVM chain's faucet's.
      expect(evmSecrets).toHaveLength(3);
      assertNoSecretIn(t.dataDir, [...walletSecrets, ...evmSecrets], keyFiles);
    } finally {
      await t.stop();
    }
  });

  it("derives a new treasury and its agents from one recovery phrase (m/44'/501'/i'/0'), kept only where keys are", async () => {
    const t = await startCoffer({ keyStore: 'file' });
    try {
      const agent = await exercise(t);
      const second = await fundedAgent(t, 'second', '1.00');
      const keysDir = join(t.dataDir, 'keys');
      const phrase = readFileSync(join(keysDir, `recovery-phrase_${t.owner}.key`), 'utf8');
      const seed = await seedOfPhrase(phrase);
      const at = async (index: number) => (await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(seed, index))).address;
      expect([await at(0), await at(1), await at(2)]).toEqual([t.owner, agent.walletAddress, second.walletAddress]);
      // The phrase is nowhere but its key file: not in SQLite, the WAL or any other file.
      const keyFiles = readdirSync(keysDir).map((name) => join(keysDir, name));
      for (const file of filesUnder(t.dataDir).filter((f) => !keyFiles.includes(f))) {
        expect(readFileSync(file).includes(Buffer.from(phrase)), `${file} holds the recovery phrase`).toBe(false);
      }
    } finally {
      await t.stop();
    }
  });
});
