/* eslint-disable @typescript-eslint/no-explicit-any -- answers are untyped on purpose: the tests assert their shape */
import { mkdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKeyPairSignerFromPrivateKeyBytes, getBase58Encoder } from '@solana/kit';
import { seedOfPhrase, walletKeyAt } from '../../server/keys/recovery-phrase.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKeychainBackend } from '../../server/keys/keychain-backend.js';
import type { SecretBackend } from '../../server/keys/secret-backend.js';
import { restoreBackupFile } from '../../server/backup/restore-file.js';
import { openSecretBackend } from '../../server/keys/open-secret-backend.js';
import { lockDataDir } from '../../server/boot/data-dir-lock.js';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { shellCommand } from '../../server/boot/cli-invocation.js';
import { TestCluster } from '../fixtures/test-cluster.js';
import { FakeImageProvider } from '../fixtures/fake-image-provider.js';
import {
  backupFileOf,
  deployAgent,
  fundedAgent,
  manualClock,
  micro,
  signIn,
  startCoffer,
  tempDataDir,
  UNLISTED_API,
  type TestCoffer,
} from '../helpers/coffer.js';
import { expectCofferError, expectError } from '../helpers/expect-error.js';
import { pay, payUsdc } from '../helpers/pay.js';
import { runCoffer, spawnServe } from '../helpers/serve-process.js';

const PASSPHRASE = 'four words make a passphrase';

/** A sim backup file restored into `dataDir` with its keys in files, as `coffer restore` does. */
const restoredOnSim = (file: string, dataDir: string) =>
  restoreBackupFile({ file, dataDir, network: 'sim', keyStore: 'file', passphrase: async () => PASSPHRASE, log: () => undefined });

/** POST /v1/backup/file as the owner (or with `key`): the status and, for a 200, the file's bytes and name. */
async function downloadBackup(t: TestCoffer, body: unknown = { passphrase: PASSPHRASE }, key = t.ownerKey) {
  const response = await fetch(`${t.url}${t.withOwner('/v1/backup/file')}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { response, bytes, fileName: /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') ?? '')?.[1] };
}

/** Everything the owner sees of money and rules: treasury, each agent's balance, status, policy and history. */
async function ownerView(t: TestCoffer) {
  const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
  const agents = [...dashboard.agents, ...dashboard.archivedAgents].map((agent: any) => agent.agentId as string).sort();
  const perAgent = [];
  for (const agentId of agents) {
    const policy = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/policy`))).body;
    const history = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/spend-history`))).body;
    const balance = (await t.api('GET', t.withOwner(`/v1/agents/${agentId}/balance`))).body;
    perAgent.push({ agentId, policy, history, balance });
  }
  const wallets = [dashboard.treasury, ...dashboard.agents, ...dashboard.archivedAgents].map((shown: any) => shown.wallets);
  return { treasury: dashboard.treasury.balance, refusals: dashboard.recentRefusals, perAgent, wallets };
}

/** The ledger's confirmed sums against the chain, per agent wallet and for the treasury. */
async function assertLedgerMatchesChain(t: TestCoffer) {
  const sum = (sql: string, ...params: unknown[]) =>
    BigInt(
      (t.coffer.db
        .prepare(sql)
        .safeIntegers(true)
        .pluck()
        .get(...params) as bigint | null) ?? 0n,
    );
  expect(
    sum("SELECT COUNT(*) FROM payments WHERE status = 'pending'") + sum("SELECT COUNT(*) FROM allocations WHERE status = 'pending'"),
  ).toBe(0n);
  const agents = t.coffer.db.prepare('SELECT agent_id, wallet_address FROM agents').all() as { agent_id: string; wallet_address: string }[];
  for (const { agent_id: agentId, wallet_address: wallet } of agents) {
    const inflow =
      sum("SELECT SUM(amount) FROM allocations WHERE agent_id = ? AND status = 'confirmed' AND direction = 'to_agent'", agentId) -
      sum("SELECT SUM(amount) FROM allocations WHERE agent_id = ? AND status = 'confirmed' AND direction = 'to_treasury'", agentId);
    const paid = sum("SELECT SUM(amount) FROM payments WHERE agent_id = ? AND status = 'confirmed'", agentId);
    expect(await t.coffer.chain.usdcBalance(wallet), `wallet of ${agentId}`).toBe(inflow - paid);
  }
}

/** Every encoding of a key a file could hold it in. */
function needlesOf(secret: string): Buffer[] {
  const needles = [Buffer.from(secret)];
  if (/^0x[0-9a-f]{64}$/.test(secret)) {
    // An EVM account's private key: its bytes, its hex without 0x (either case), base64.
    const bytes = Buffer.from(secret.slice(2), 'hex');
    needles.push(bytes, Buffer.from(secret.slice(2)), Buffer.from(secret.slice(2).toUpperCase()), Buffer.from(bytes.toString('base64')));
  }
  if (/^[1-9A-HJ-NP-Za-km-z]{80,90}$/.test(secret)) {
    const bytes = Buffer.from(getBase58Encoder().encode(secret));
    needles.push(
      bytes,
      bytes.subarray(0, 32),
      Buffer.from(bytes.subarray(0, 32).toString('hex')),
      Buffer.from(bytes.subarray(0, 32).toString('base64')),
    );
  }
  return needles;
}

async function keychain(): Promise<SecretBackend> {
  const opened = await openKeychainBackend();
  if (!('backend' in opened)) throw new Error(`no keychain answered: ${opened.reason}, ${opened.cause} (run the suite through npm test)`);
  return opened.backend;
}

describe('a backup file restores the ledger and every key exactly (the embedded chain, the OS keychain)', () => {
  const clock = manualClock();
  let t: TestCoffer;
  let backupFile = '';
  let before: Awaited<ReturnType<typeof ownerView>>;
  let names: string[] = [];
  const scratch = tempDataDir();
  let alphaKey = '';
  afterAll(async () => {
    await t?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  beforeAll(async () => {
    t = await startCoffer({ keyStore: 'keychain', clock });
    const alpha = await fundedAgent(t, 'alpha', '20.00', { dailyBudget: '6.00', maxPerPayment: '2.50', cooldownSeconds: 0 });
    alphaKey = alpha.apiKey;
    const beta = await fundedAgent(t, 'beta', '5.00');
    await fundedAgent(t, 'gamma', '1.00');
    for (const amount of ['1.25', '2.00', '0.75'])
      expect((await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount, currency: 'USDC' })).status).toBe(200);
    expectError(await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '2.40', currency: 'USDC' }), 402, 'daily_budget_exceeded');
    expect((await pay(t, 'beta', beta.apiKey, { service: 'demo-weather', amount: '0.01', currency: 'USDC' })).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/beta/kill'))).status).toBe(200);
    expect((await t.api('POST', t.withOwner('/v1/agents/gamma/return'), { body: {} })).status).toBe(200);
    const archived = await t.api('POST', t.withOwner('/v1/agents/gamma/archive'));
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
  });

  it('is handed to the owner only, from a fresh sign-in, under a passphrase of 12 characters or more, and refusals write nothing', async () => {
    const agent = await deployAgent(t, 'curious');
    const byAgent = await t.api('POST', t.withOwner('/v1/backup/file'), { key: agent.apiKey, body: { passphrase: PASSPHRASE } });
    expectError(byAgent, 403, 'owner_only');
    const stale = await signIn(t);
    clock.advance(10 * 60 * 1000 + 1);
    expectError(
      await t.api('POST', t.withOwner('/v1/backup/file'), { key: stale, body: { passphrase: PASSPHRASE } }),
      403,
      'confirmation_required',
      /backup file/,
    );
    for (const body of [{}, { passphrase: 'too short' }, { passphrase: PASSPHRASE, folder: '/tmp' }, { passphrase: 12345678901234 }]) {
      expectError(await t.api('POST', t.withOwner('/v1/backup/file'), { body }), 400, 'invalid_request');
    }
    expect((await t.api('GET', t.withOwner('/v1/backup'))).body.lastFile).toBeNull();
    expect(readdirSync(t.dataDir).filter((name) => name.startsWith('.backup-'))).toEqual([]);
    // The agent it deployed for the check is archived: it is not part of what the restore compares.
    expect((await t.api('POST', t.withOwner('/v1/agents/curious/archive'))).status).toBe(200);
  });

  it('is written whole with a fresh session, named for its network and time, and the status says so', async () => {
    const session = await signIn(t);
    const { response, bytes, fileName } = await downloadBackup(t, { passphrase: PASSPHRASE }, session);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    expect(fileName).toMatch(/^coffer-backup-sim-\d{4}-\d{2}-\d{2}-\d{6}\.coffer$/);
    expect(bytes.subarray(0, 14).toString()).toBe('coffer-backup\n');
    backupFile = join(scratch, fileName!);
    writeFileSync(backupFile, bytes);
    const status = (await t.api('GET', t.withOwner('/v1/backup'))).body;
    // Treasury, alpha, beta, gamma, curious, the embedded Solana chain's mint and its authority, and
    // the embedded EVM chain's faucet.
    expect(status.lastFile).toEqual({ at: new Date(clock.now()).toISOString(), bytes: bytes.length, wallets: 8, walletsWithoutKey: [] });
    const audit = t.coffer.db.prepare("SELECT actor, detail FROM audit_log WHERE action = 'backup.file_written'").all() as any[];
    expect(audit).toHaveLength(1);
    expect(audit[0].actor).toBe('owner');
    expect(audit[0].detail.includes(PASSPHRASE)).toBe(false);
    // Nothing of the copy it was made from is left in the data dir, or in the server's temporary folder.
    expect(readdirSync(t.dataDir).filter((name) => name.startsWith('.backup-'))).toEqual([]);
  });

  it('holds no key, phrase, owner key or passphrase in clear', async () => {
    const backend = await keychain();
    // The chains' own wallets: the embedded Solana chain's mint, the embedded EVM chain's faucet.
    const own = [...t.coffer.chain.ownWallets(), ...(t.coffer.base?.chain.ownWallets() ?? [])];
    expect(own.length).toBeGreaterThan(t.coffer.chain.ownWallets().length);
    const wallets = (t.coffer.db.prepare('SELECT wallet_address FROM agents').pluck().all() as string[]).concat(t.owner, own);
    const evmAccounts = t.coffer.db.prepare('SELECT wallet, address FROM rail_wallets').all() as { wallet: string; address: string }[];
    // The treasury and every agent have an EVM account, and its key is in the key store.
    expect(evmAccounts.map((row) => row.wallet).sort()).toEqual(wallets.filter((wallet) => !own.includes(wallet)).sort());
    // The faucet's EVM account, as the key store files it (the wallet's pointer names its address).
    const faucets = await Promise.all(
      (t.coffer.base?.chain.ownWallets() ?? []).map(async (wallet) => ({
        wallet,
        address: (await backend.get(`evm-wallet-of:${wallet}`))!,
      })),
    );
    names = [
      ...wallets.map((wallet) => `wallet:${wallet}`),
      ...[...evmAccounts, ...faucets].flatMap((row) => [`evm-wallet:${row.address}`, `evm-wallet-of:${row.wallet}`]),
      `owner-key:${t.owner}`,
      `recovery-phrase:${t.owner}`,
      `recovery-next-index:${t.owner}`,
    ];
    const bytes = readFileSync(backupFile);
    const phrase = (await backend.get(`recovery-phrase:${t.owner}`))!;
    expect(phrase.split(' ')).toHaveLength(24);
    for (const name of names.filter((name) => !name.startsWith('recovery-next-index') && !name.startsWith('evm-wallet-of'))) {
      const secret = await backend.get(name);
      expect(secret, name).not.toBeNull();
      for (const needle of needlesOf(secret!)) expect(bytes.includes(needle), `${name} in the backup file`).toBe(false);
    }
    for (const words of [phrase, phrase.split(' ').slice(0, 3).join(' '), PASSPHRASE, t.ownerKey]) {
      expect(bytes.includes(Buffer.from(words))).toBe(false);
    }
  });

  it('restores into an empty data dir after the data dir and the keychain were wiped: same balances, policies and history, ledger == chain, and it pays at once', async () => {
    before = await ownerView(t);
    await t.stop();
    rmSync(t.dataDir, { recursive: true, force: true });
    const backend = await keychain();
    for (const name of names) await backend.delete(name);
    for (const name of names) expect(await backend.get(name), name).toBeNull();

    const dataDir = join(scratch, 'restored');
    const restored = await restoreBackupFile({
      file: backupFile,
      dataDir,
      network: 'sim',
      keyStore: 'keychain',
      passphrase: async (facts) => {
        expect(facts.network).toBe('sim');
        return PASSPHRASE;
      },
      log: () => undefined,
    });
    expect(restored?.owners).toEqual([t.owner]);
    t = await startCoffer({ dataDir, keyStore: 'keychain', clock });
    expect(t.coffer.ownerCreated).toBe(false);
    expect(t.owner).toBe(restored?.owners[0]);
    expect(await ownerView(t)).toEqual(before);
    await assertLedgerMatchesChain(t);
    expect(t.coffer.reconciled).toMatchObject({ confirmed: 0, failed: 0, stillPending: 0 });
    // The agent's own key (its hash is in the ledger) still works, within the same policy and budget.
    const paid = await pay(t, 'alpha', alphaKey, { ...UNLISTED_API, amount: '0.50', currency: 'USDC' });
    expect(paid.status).toBe(200);
    expect((await t.api('GET', t.withOwner('/v1/agents/alpha/balance'))).body.balance).toBe('15.50');
    expectError(await pay(t, 'alpha', alphaKey, { ...UNLISTED_API, amount: '2.00', currency: 'USDC' }), 402, 'daily_budget_exceeded');
    // The phrase came back with it: new agents take the next wallets, and the treasury still says where it stands.
    const status = (await t.api('GET', t.withOwner('/v1/backup'))).body;
    expect(status.recoveryPhrase).toBe('not_confirmed');
    // Backed up by the file it was restored from, which holds every wallet it has (helper 196: "NOT
    // BACKED UP" right after a restore); a wallet made since is in no file.
    expect(status).toMatchObject({
      backedUp: true,
      lastFile: { at: restored!.createdAt, bytes: statSync(backupFile).size, walletsWithoutKey: [] },
    });
    expect(status.lastFile.wallets).toBeGreaterThan(0);
    clock.advance(1000);
    await deployAgent(t, 'after-restore');
    expect((await t.api('GET', t.withOwner('/v1/backup'))).body.backedUp).toBe(false);
    await assertLedgerMatchesChain(t);
    // The embedded chains' own wallets came back too: test money is minted on each rail as before
    // (the Base faucet's key was left out of the file, and its mints failed insufficient_funds).
    for (const rail of ['sol', 'base']) {
      const minted = await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '5', rail } });
      expect(minted.status, `${rail}: ${JSON.stringify(minted.body)}`).toBe(200);
    }
  });

  it('refuses a data dir in use, another network, a wrong passphrase and a damaged file, each changing nothing', async () => {
    const restoreInto = (dataDir: string, file = backupFile, passphrase = PASSPHRASE, network: string | null = null) =>
      restoreBackupFile({ file, dataDir, network, keyStore: 'file', passphrase: async () => passphrase, log: () => undefined });
    // The data dir the restored Coffer runs on, and one that holds a ledger while nothing runs on it.
    await expectCofferError(restoreInto(t.dataDir), 'data_dir_in_use', /already using/);
    const stopped = await startCoffer({ keyStore: 'file', keepDataDir: true });
    const stoppedDir = stopped.dataDir;
    await stopped.stop();
    await expectCofferError(
      restoreInto(join(scratch, 'unused-1'), backupFile, PASSPHRASE, 'devnet'),
      'backup_wrong_network',
      /sim treasury/,
    );
    const target = join(scratch, 'unused-2');
    await expectCofferError(restoreInto(target, backupFile, 'not the passphrase at all'), 'wrong_passphrase');
    const cut = join(scratch, 'cut.coffer');
    writeFileSync(cut, readFileSync(backupFile));
    truncateSync(cut, readFileSync(backupFile).length - 100);
    await expectCofferError(restoreInto(target, cut), 'backup_damaged');
    await expectCofferError(restoreInto(target, join(scratch, 'nowhere.coffer')), 'backup_unreadable');
    // Nothing was left where a restore was refused: no data dir it made, nothing in one there before
    // (its lock left behind said the refusal had changed something).
    for (const dir of [join(scratch, 'unused-1'), target]) expect(existsSync(dir), dir).toBe(false);
    // Nor the folders above a data dir it made.
    await expectCofferError(restoreInto(join(scratch, 'deep', 'er', 'data'), backupFile, 'not the passphrase at all'), 'wrong_passphrase');
    expect(existsSync(join(scratch, 'deep')), 'deep').toBe(false);
    const premade = join(scratch, 'premade');
    mkdirSync(premade);
    await expectCofferError(restoreInto(premade, backupFile, 'not the passphrase at all'), 'wrong_passphrase');
    await expectCofferError(restoreInto(premade, cut), 'backup_damaged');
    expect(readdirSync(premade)).toEqual([]);
    await expectCofferError(restoreInto(stoppedDir), 'data_dir_in_use', /already holds a treasury/);
    rmSync(stoppedDir, { recursive: true, force: true });
  });
});

describe('a backup taken while payments run on the embedded chain', () => {
  it('is the ledger and the chain of one moment: restored, every wallet equals the ledger, and nothing is pending', async () => {
    const scratch = tempDataDir();
    let t = await startCoffer({ keyStore: 'file', keepDataDir: true });
    try {
      const agents = await Promise.all(
        ['a1', 'a2', 'a3'].map((id) => fundedAgent(t, id, '50.00', { dailyBudget: '100.00', maxPerPayment: '1.00' })),
      );
      // Payments run before, during and after the backup, one after another per agent.
      let running = true;
      const statuses: number[] = [];
      const paying = agents.map(async (agent) => {
        while (running)
          statuses.push((await pay(t, agent.agentId, agent.apiKey, { ...UNLISTED_API, amount: '0.10', currency: 'USDC' })).status);
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { response, bytes, fileName } = await downloadBackup(t);
      await new Promise((resolve) => setTimeout(resolve, 200));
      running = false;
      await Promise.all(paying);
      expect(response.status).toBe(200);
      expect(new Set(statuses)).toEqual(new Set([200]));
      const file = join(scratch, fileName!);
      writeFileSync(file, bytes);
      await t.stop();
      const dataDir = join(scratch, 'restored');
      await restoredOnSim(file, dataDir);
      t = await startCoffer({ dataDir, keyStore: 'file', keepDataDir: true });
      await assertLedgerMatchesChain(t);
      // The copy holds the payments committed before it was done, each whole, and none of the later ones.
      const copied = t.coffer.db.prepare("SELECT COUNT(*) FROM payments WHERE status = 'confirmed'").pluck().get() as number;
      expect(copied).toBeGreaterThan(0);
      expect(copied).toBeLessThan(statuses.length);
    } finally {
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('a backup taken while money moves on an RPC cluster restores, and reconciliation pays nothing twice', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await new TestCluster().start();
  });
  afterAll(async () => cluster.stop());

  it('a payment and an allocation in flight at the backup are settled from the chain after the restore, once', async () => {
    const scratch = tempDataDir();
    let t = await cofferOnCluster(cluster);
    try {
      const alpha = await fundedAgent(t, 'alpha', '10.00', { dailyBudget: '50.00', maxPerPayment: '5.00' });
      await deployAgent(t, 'beta');
      expect((await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '1.00', currency: 'USDC' })).status).toBe(200);

      // Both sends are held by the cluster while the backup is taken: the ledger copies them pending, signed.
      cluster.delays.set('sendTransaction', 1500);
      const paying = pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '2.00', currency: 'USDC' });
      const allocating = t.api('POST', t.withOwner('/v1/agents/beta/allocate'), { body: { amount: '3.00' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { response, bytes, fileName } = await downloadBackup(t);
      expect(response.status, bytes.toString().slice(0, 300)).toBe(200);
      expect(fileName, String(response.headers.get('content-disposition'))).toBeDefined();
      expect((await paying).status).toBe(200);
      expect((await allocating).status).toBe(200);
      cluster.delays.clear();
      const file = join(scratch, fileName!);
      writeFileSync(file, bytes);
      const balances = {
        alpha: (await t.api('GET', t.withOwner('/v1/agents/alpha/balance'))).body.balance,
        beta: (await t.api('GET', t.withOwner('/v1/agents/beta/balance'))).body.balance,
      };
      expect(balances).toEqual({ alpha: '7.00', beta: '3.00' });
      let pendingInCopy = {};
      let sendsBefore = 0;
      t = await restoredOnCluster(t, file, scratch, cluster, {}, (dataDir) => {
        const copied = openConnection(join(dataDir, 'coffer.db'), { readonly: true });
        pendingInCopy = {
          payments: copied.prepare("SELECT COUNT(*) FROM payments WHERE status = 'pending'").pluck().get(),
          allocations: copied.prepare("SELECT COUNT(*) FROM allocations WHERE status = 'pending'").pluck().get(),
        };
        copied.close();
        sendsBefore = cluster.calls.get('sendTransaction') ?? 0;
      });
      expect(pendingInCopy).toEqual({ payments: 1, allocations: 1 });
      expect(t.coffer.reconciled).toMatchObject({ confirmed: 2, failed: 0, stillPending: 0 });
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
      expect({
        alpha: (await t.api('GET', t.withOwner('/v1/agents/alpha/balance'))).body.balance,
        beta: (await t.api('GET', t.withOwner('/v1/agents/beta/balance'))).body.balance,
      }).toEqual(balances);
      await assertLedgerMatchesChain(t);
      expect((await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '0.50', currency: 'USDC' })).status).toBe(200);
      expect((await t.api('GET', t.withOwner('/v1/agents/alpha/balance'))).body.balance).toBe('6.50');
      await assertLedgerMatchesChain(t);
    } finally {
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

/** A Coffer on `cluster`, its treasury holding 100 USDC and SOL for fees, the unlisted seller an account. */
async function cofferOnCluster(cluster: TestCluster, more: Partial<Parameters<typeof startCoffer>[0]> = {}): Promise<TestCoffer> {
  const t = await startCoffer({ network: cluster.url, usdcMint: cluster.mint.address, ...more });
  cluster.airdrop(t.owner);
  await cluster.depositFromOutside(t.owner, micro('100'));
  await cluster.depositFromOutside(UNLISTED_API.recipient, 1n);
  return t;
}

/** A backup file of `t` written into `scratch`: its path. */
async function backupInto(t: TestCoffer, scratch: string): Promise<string> {
  const { response, bytes, fileName } = await downloadBackup(t);
  expect(response.status, bytes.toString().slice(0, 300)).toBe(200);
  const file = join(scratch, fileName!);
  writeFileSync(file, bytes);
  return file;
}

/**
 * `t` stopped and its data dir gone (the old computer), then `file` restored into a new data dir in
 * `scratch` (`beforeStart` may change its ledger first) and started on `cluster`.
 */
async function restoredOnCluster(
  t: TestCoffer,
  file: string,
  scratch: string,
  cluster: TestCluster,
  more: Partial<Parameters<typeof startCoffer>[0]> = {},
  beforeStart?: (dataDir: string) => void,
): Promise<TestCoffer> {
  await t.stop();
  rmSync(t.dataDir, { recursive: true, force: true });
  const dataDir = join(scratch, 'restored');
  await restoreBackupFile({
    file,
    dataDir,
    network: 'localnet',
    keyStore: 'file',
    passphrase: async () => PASSPHRASE,
    log: () => undefined,
  });
  beforeStart?.(dataDir);
  return startCoffer({ dataDir, network: cluster.url, usdcMint: cluster.mint.address, ...more });
}

describe('a held payment the old Coffer paid after its backup, approved again on the restored Coffer (an RPC cluster)', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await new TestCluster().start();
  });
  afterAll(async () => cluster.stop());

  it('is recorded with the transaction that paid it, not paid again; one the old Coffer never paid is paid once', async () => {
    const scratch = tempDataDir();
    let t = await cofferOnCluster(cluster);
    try {
      const alpha = await fundedAgent(t, 'alpha', '10.00', { dailyBudget: '50.00', maxPerPayment: '5.00', askAbove: '1.00' });
      const paidThere = await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '2.00', currency: 'USDC' });
      const leftWaiting = await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '1.50', currency: 'USDC' });
      const readLate = await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '1.25', currency: 'USDC' });
      expect([paidThere.status, leftWaiting.status, readLate.status]).toEqual([202, 202, 202]);
      const file = await backupInto(t, scratch);
      // The old Coffer goes on after the file: the owner's yes there pays the first request.
      const yesThere = await t.api('POST', t.withOwner(`/v1/approvals/${paidThere.body.approvalId}/approve`));
      expect(yesThere.status, JSON.stringify(yesThere.body)).toBe(200);
      const firstTx = (await t.api('GET', t.withOwner(`/v1/approvals/${paidThere.body.approvalId}`))).body.result.txSignature as string;
      expect(typeof firstTx).toBe('string');
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${readLate.body.approvalId}/approve`))).status).toBe(200);
      const lateTx = (await t.api('GET', t.withOwner(`/v1/approvals/${readLate.body.approvalId}`))).body.result.txSignature as string;
      expect((await t.api('GET', t.withOwner('/v1/agents/alpha/balance'))).body.balance).toBe('6.75');
      t = await restoredOnCluster(t, file, scratch, cluster);
      const sendsBefore = cluster.calls.get('sendTransaction') ?? 0;
      // Restored, both requests wait again; the owner approves the first again.
      const yesHere = await t.api('POST', t.withOwner(`/v1/approvals/${paidThere.body.approvalId}/approve`));
      expect(yesHere.status, JSON.stringify(yesHere.body)).toBe(200);
      const again = (await t.api('GET', t.withOwner(`/v1/approvals/${paidThere.body.approvalId}`))).body;
      expect(again).toMatchObject({
        status: 'approved',
        result: { paymentId: paidThere.body.paymentId, status: 'confirmed', txSignature: firstTx },
      });
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
      expect((await t.api('GET', t.withOwner('/v1/agents/alpha/balance'))).body.balance).toBe('6.75');
      // The cluster unreachable, or one whose transaction it cannot return yet: not paid, not ended;
      // the request still waits.
      cluster.offline = true;
      const offline = await t.api('POST', t.withOwner(`/v1/approvals/${readLate.body.approvalId}/approve`));
      cluster.offline = false;
      expect([offline.status, offline.body.code], JSON.stringify(offline.body)).toEqual([502, 'chain_unavailable']);
      expect(offline.body.error).toMatch(/could not be read from the chain; nothing was paid, and the request still waits/);
      cluster.unreadable.add(lateTx);
      const unsure = await t.api('POST', t.withOwner(`/v1/approvals/${readLate.body.approvalId}/approve`));
      expect([unsure.status, unsure.body.code], JSON.stringify(unsure.body)).toEqual([502, 'chain_unavailable']);
      expect(unsure.body.error).toMatch(/could not be read from the chain; nothing was paid, and the request still waits/);
      expect((await t.api('GET', t.withOwner(`/v1/approvals/${readLate.body.approvalId}`))).body.status).toBe('pending');
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
      cluster.unreadable.clear();
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${readLate.body.approvalId}/approve`))).status).toBe(200);
      expect((await t.api('GET', t.withOwner(`/v1/approvals/${readLate.body.approvalId}`))).body.result).toMatchObject({
        status: 'confirmed',
        txSignature: lateTx,
      });
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
      // The second the old Coffer never paid: paid once, now.
      const yesToSecond = await t.api('POST', t.withOwner(`/v1/approvals/${leftWaiting.body.approvalId}/approve`));
      expect(yesToSecond.status, JSON.stringify(yesToSecond.body)).toBe(200);
      const second = (await t.api('GET', t.withOwner(`/v1/approvals/${leftWaiting.body.approvalId}`))).body;
      expect(second).toMatchObject({ status: 'approved', result: { status: 'confirmed' } });
      expect(second.result.txSignature).not.toBe(firstTx);
      expect((await t.api('GET', t.withOwner('/v1/agents/alpha/balance'))).body.balance).toBe('5.25');
      await assertLedgerMatchesChain(t);
    } finally {
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('is found past a provider that caps its pages and a hold dated by a clock minutes ahead (helper 205)', async () => {
    const scratch = tempDataDir();
    let t = await cofferOnCluster(cluster);
    try {
      const gamma = await fundedAgent(t, 'gamma', '10.00', { dailyBudget: '50.00', maxPerPayment: '5.00', askAbove: '1.00' });
      const held = await pay(t, 'gamma', gamma.apiKey, { ...UNLISTED_API, amount: '2.00', currency: 'USDC' });
      const file = await backupInto(t, scratch);
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${held.body.approvalId}/approve`))).status).toBe(200);
      const paidTx = (await t.api('GET', t.withOwner(`/v1/approvals/${held.body.approvalId}`))).body.result.txSignature as string;
      // Newer history in the wallet's account, past a page of two.
      await cluster.depositFromOutside(gamma.walletAddress, 1_000n);
      await cluster.depositFromOutside(gamma.walletAddress, 1_000n);
      t = await restoredOnCluster(t, file, scratch, cluster, {}, (dataDir) => {
        // The old Coffer's clock was five minutes ahead of the cluster's when it held the payment.
        const ledger = openConnection(join(dataDir, 'coffer.db'), { fileMustExist: true });
        ledger.prepare('UPDATE transfers SET created_at = created_at + 300000 WHERE id = ?').run(held.body.paymentId);
        ledger.close();
      });
      const sendsBefore = cluster.calls.get('sendTransaction') ?? 0;
      cluster.listingCap = 2;
      const yes = await t.api('POST', t.withOwner(`/v1/approvals/${held.body.approvalId}/approve`));
      cluster.listingCap = null;
      expect(yes.status, JSON.stringify(yes.body)).toBe(200);
      expect((await t.api('GET', t.withOwner(`/v1/approvals/${held.body.approvalId}`))).body.result).toMatchObject({
        status: 'confirmed',
        txSignature: paidTx,
      });
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
    } finally {
      cluster.listingCap = null;
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('an image bought on the old Coffer is recorded with its task, not bought again', async () => {
    const scratch = tempDataDir();
    const provider = await new FakeImageProvider().start();
    let t = await cofferOnCluster(cluster, { imageProviderUrl: provider.url });
    try {
      const delta = await fundedAgent(t, 'delta', '10.00', { dailyBudget: '50.00', maxPerPayment: '5.00', askAbove: '0.01' });
      const held = await t.api('POST', t.withOwner('/v1/agents/delta/generate'), {
        key: delta.apiKey,
        body: { prompt: 'a lighthouse', modelId: 'flux-pro', resolution: '2k' },
      });
      expect(held.status, JSON.stringify(held.body)).toBe(202);
      const file = await backupInto(t, scratch);
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${held.body.approvalId}/approve`))).status).toBe(200);
      const paymentId = (await t.api('GET', t.withOwner(`/v1/approvals/${held.body.approvalId}`))).body.paymentId as string;
      const paidTx = t.coffer.db.prepare('SELECT tx_signature FROM transfers WHERE id = ?').pluck().get(paymentId) as string;
      expect(typeof paidTx).toBe('string');
      t = await restoredOnCluster(t, file, scratch, cluster, { imageProviderUrl: provider.url });
      // The image's price went to the treasury: the deposit watcher sees it first.
      await t.coffer.engine.pollDeposits(t.owner);
      const sendsBefore = cluster.calls.get('sendTransaction') ?? 0;
      const yes = await t.api('POST', t.withOwner(`/v1/approvals/${held.body.approvalId}/approve`));
      expect(yes.body, JSON.stringify(yes.body)).toMatchObject({ status: 'approved' });
      expect(t.coffer.db.prepare('SELECT kind, status FROM transfers WHERE tx_signature = ?').all(paidTx)).toEqual([
        { kind: 'payment', status: 'confirmed' },
      ]);
      expect(t.coffer.db.prepare('SELECT COUNT(*) FROM generation_tasks WHERE payment_id = ?').pluck().get(paymentId)).toBe(1);
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
    } finally {
      await t.stop();
      await provider.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('paid to the treasury and seen first as a deposit, it is the payment, once; a payment naming it in its memo is not it', async () => {
    const scratch = tempDataDir();
    let t = await cofferOnCluster(cluster);
    try {
      const beta = await fundedAgent(t, 'beta', '10.00', { dailyBudget: '50.00', maxPerPayment: '5.00', askAbove: '1.00' });
      const toTreasury = await pay(t, 'beta', beta.apiKey, { service: 'test-api', recipient: t.owner, amount: '2.00', currency: 'USDC' });
      const named = await pay(t, 'beta', beta.apiKey, { ...UNLISTED_API, amount: '1.50', currency: 'USDC' });
      expect([toTreasury.status, named.status], JSON.stringify(toTreasury.body)).toEqual([202, 202]);
      const file = await backupInto(t, scratch);
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${toTreasury.body.approvalId}/approve`))).status).toBe(200);
      const treasuryTx = (await t.api('GET', t.withOwner(`/v1/approvals/${toTreasury.body.approvalId}`))).body.result.txSignature as string;
      // Another payment of the same amount to the same recipient, its memo the held one's reference.
      expect((await t.api('POST', t.withOwner('/v1/agents/beta/policy'), { body: { askAbove: '5' } })).status).toBe(200);
      const decoy = await pay(t, 'beta', beta.apiKey, {
        ...UNLISTED_API,
        amount: '1.50',
        currency: 'USDC',
        nonce: `coffer:${named.body.paymentId}`,
      });
      expect(decoy.status, JSON.stringify(decoy.body)).toBe(200);
      t = await restoredOnCluster(t, file, scratch, cluster);
      const recordedAs = () => t.coffer.db.prepare('SELECT kind FROM transfers WHERE tx_signature = ?').pluck().all(treasuryTx) as string[];
      // The deposit watcher reads the treasury's account before the owner says yes again.
      await t.coffer.engine.pollDeposits(t.owner);
      expect(recordedAs()).toEqual(['deposit']);
      const sendsBefore = cluster.calls.get('sendTransaction') ?? 0;
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${toTreasury.body.approvalId}/approve`))).status).toBe(200);
      expect((await t.api('GET', t.withOwner(`/v1/approvals/${toTreasury.body.approvalId}`))).body).toMatchObject({
        status: 'approved',
        result: { status: 'confirmed', txSignature: treasuryTx },
      });
      expect(recordedAs()).toEqual(['payment']);
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
      // The payment that only names the held one in its memo is another: the held one is paid now.
      expect((await t.api('POST', t.withOwner(`/v1/approvals/${named.body.approvalId}/approve`))).status).toBe(200);
      const paidNow = (await t.api('GET', t.withOwner(`/v1/approvals/${named.body.approvalId}`))).body;
      expect(paidNow).toMatchObject({ status: 'approved', result: { status: 'confirmed' } });
      expect(paidNow.result.txSignature).not.toBe(decoy.body.txSignature);
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore + 1);
      expect((await t.api('GET', t.withOwner('/v1/agents/beta/balance'))).body.balance).toBe('5.00');
    } finally {
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('coffer backup --out and coffer restore, as a person runs them', () => {
  it('writes the file from the running Coffer, restores it into a new data dir that serves the same treasury, and refuses what it must', async () => {
    const scratch = tempDataDir();
    const dataDir = join(scratch, 'first');
    const server = await spawnServe(dataDir);
    try {
      const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
      const deployed = await fetch(`${server.url}/v1/agents/deploy?owner=${owner}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agentId: 'alpha', dailyBudget: '10.00', maxPerPayment: '1.00' }),
      });
      expect(deployed.status).toBe(200);
      // A stopped agent, and a request waiting for the owner when the file is written: the restore says
      // both (helper 196: "suspended", and nothing of what waits again for a yes given since).
      const owned = (path: string, body: unknown) =>
        fetch(`${server.url}${path}?owner=${owner}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await owned('/v1/agents/deploy', { agentId: 'beta', dailyBudget: '10.00', maxPerPayment: '1.00' })).status).toBe(200);
      expect((await owned('/v1/agents/beta/kill', {})).status).toBe(200);
      const { apiKey } = (await deployed.json()) as { apiKey: string };
      const asked = await fetch(`${server.url}/v1/agents/alpha/policy?owner=${owner}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ maxPerPayment: '5.00' }),
      });
      expect(asked.status).toBe(202);
      // A name a shell splits: the restore line quotes it.
      const file = join(scratch, 'treasury one.coffer');
      const env = { COFFER_KEYSTORE: 'file' };

      const short = await runCoffer(['backup', '--out', file, '--data-dir', dataDir], env, 'too short\n');
      // From a pipe there is no asking again: refused as every refusal is, its code named.
      expect({ code: short.code, said: short.stderr }).toMatchObject({
        code: 1,
        said: expect.stringMatching(/^coffer: the passphrase must be at least 12 characters .*: no backup written \(invalid_request\)$/m),
      });
      expect(existsSync(file)).toBe(false);
      const written = await runCoffer(['backup', '--out', file, '--data-dir', dataDir], env, `${PASSPHRASE}\n`);
      expect(written.code, written.stderr).toBe(0);
      expect(written.stdout).toMatch(/^Wrote .*treasury one\.coffer \(\d+ kB\): the ledger and every wallet's key \(6\)/);
      expect(written.stdout).toContain(`Restore it anywhere with: coffer restore '${file}'\n`);
      const again = await runCoffer(['backup', '--out', file, '--data-dir', dataDir], env, `${PASSPHRASE}\n`);
      expect({ code: again.code, said: again.stderr }).toMatchObject({
        code: 1,
        said: expect.stringMatching(/exists: a backup never replaces a file/),
      });
      // Into the data dir by any path (a link, a relative one): refused before the passphrase is asked, nothing written.
      symlinkSync(dataDir, join(scratch, 'to-data-dir'));
      for (const out of [join(scratch, 'to-data-dir', 'keys', 'in-keys.coffer'), relative(process.cwd(), join(dataDir, 'here.coffer'))]) {
        const inside = await runCoffer(['backup', '--out', out, '--data-dir', dataDir], env, `${PASSPHRASE}\n`);
        expect({ out, code: inside.code, asked: /Passphrase for the backup file/.test(inside.stderr) }).toEqual({
          out,
          code: 1,
          asked: false,
        });
        expect(inside.stderr).toMatch(/inside Coffer's data dir .*\(backup_folder_unusable\)/);
      }
      expect(readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).filter((name) => /\.coffer|partial/.test(name))).toEqual([]);
      // Into a folder that is not there: refused before the passphrase is asked, and the last backup
      // file the dashboard shows is still the one written (a file that exists).
      const lastFile = async () =>
        (
          (await (await fetch(`${server.url}/v1/backup?owner=${owner}`, { headers: { authorization: `Bearer ${ownerKey}` } })).json()) as {
            lastFile: unknown;
          }
        ).lastFile;
      const before = await lastFile();
      const nowhere = await runCoffer(
        ['backup', '--out', join(scratch, 'no-such-folder', 'f.coffer'), '--data-dir', dataDir],
        env,
        `${PASSPHRASE}\n`,
      );
      expect({ code: nowhere.code, asked: /Passphrase for the backup file/.test(nowhere.stderr) }).toEqual({ code: 1, asked: false });
      expect(nowhere.stderr).toMatch(/no-such-folder: no such folder \(backup_folder_unusable\)/);
      expect(await lastFile()).toEqual(before);

      const running = await runCoffer(['restore', file, '--data-dir', dataDir], env, `${PASSPHRASE}\n`);
      expect({ code: running.code, said: running.stderr }).toMatchObject({
        code: 1,
        said: expect.stringMatching(/already using.*\(data_dir_in_use\)/s),
      });
      const second = join(scratch, 'second');
      const wrong = await runCoffer(['restore', file, '--data-dir', second], env, 'not the passphrase\n');
      expect({ code: wrong.code, said: wrong.stderr }).toMatchObject({ code: 1, said: expect.stringMatching(/\(wrong_passphrase\)/) });
      const none = await runCoffer(['restore', file, '--data-dir', second], env, '');
      expect({ code: none.code, said: none.stderr }).toMatchObject({ code: 1, said: expect.stringMatching(/nothing was restored/) });
      expect(existsSync(join(second, 'coffer.db'))).toBe(false);

      // Piped as printf '%s' sends it, without a final newline: read all the same.
      const restored = await runCoffer(['restore', file, '--data-dir', second], env, PASSPHRASE);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stderr).toMatch(/a backup of a sim treasury, made \d{4}-/);
      // What it holds on each rail (Base is open on sim).
      expect(restored.stdout).toContain(`Treasury ${owner}: 1000.00 USDC on Solana, 1000.00 USDC on Base\n`);
      expect(restored.stdout).toContain('  alpha: 0.00 USDC on Solana, 0.00 USDC on Base, active\n');
      expect(restored.stdout).toContain('  beta: 0.00 USDC on Solana, 0.00 USDC on Base, stopped\n');
      expect(restored.stdout).toContain(
        `1 request waits for your yes, as when the file was written: deny any the old Coffer answered since (${shellCommand(['approvals', '--data-dir', second])})\n`,
      );
      expect(restored.stdout).toContain('0 move(s) in flight at the backup confirmed, 0 failed, 0 still pending');
      // The command that starts it, as this shell runs coffer (pasted, it starts the restored Coffer).
      expect(restored.stdout).toContain(`Start it with: ${shellCommand(['serve', '--data-dir', second])} (or the desktop app)\n`);
      // Where no keychain answers, a restore (which opens the key store twice) says so once, in one short
      // line that names the folder and why, without the keychain library's own words.
      const noKeychain = { COFFER_KEYSTORE: '', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/coffer-no-bus' };
      const third = join(scratch, 'third');
      const keyless = await runCoffer(['restore', file, '--data-dir', third], noKeychain, PASSPHRASE);
      expect(keyless.code, keyless.stderr).toBe(0);
      expect(keyless.stderr.match(/warning: [^\n]*/g)).toEqual([
        `warning: no OS keychain answered, so keys are kept in files only you can read, in ${join(third, 'keys')}`,
      ]);
      expect(keyless.stderr).not.toMatch(/DBus|Platform failure/i);
      // A secret read from a pipe ends its prompt's line, so what follows starts a line of its own.
      expect(keyless.stderr).toMatch(/Its passphrase: \nwarning: /);
      const restoredServer = await spawnServe(second);
      try {
        expect(restoredServer.lines.join('\n')).toBeTruthy();
        const agents = await fetch(`${restoredServer.url}/v1/agents?owner=${owner}`, { headers: { authorization: `Bearer ${ownerKey}` } });
        expect(((await agents.json()) as any).agents.map((agent: any) => agent.agentId)).toEqual(['alpha', 'beta']);
      } finally {
        restoredServer.child.kill('SIGTERM');
        await restoredServer.exited;
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('coffer restore --phrase refuses before it asks', () => {
  it('the embedded chain (--network sim) is refused before the words are asked for, and nothing is written', async () => {
    const scratch = tempDataDir();
    try {
      const dataDir = join(scratch, 'restored');
      // No input at all: a refusal that came after the question would say "No phrase given" instead.
      const sim = await runCoffer(['restore', '--phrase', '--network', 'sim', '--data-dir', dataDir], { COFFER_KEYSTORE: 'file' }, '');
      expect({ code: sim.code, said: sim.stderr }).toMatchObject({
        code: 1,
        said: expect.stringMatching(/restore a backup file instead \(backup_wrong_network\)\n$/),
      });
      expect(sim.stderr).not.toMatch(/Recovery phrase|No phrase given/);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('coffer restore judges the paths it is given before it asks for a passphrase', () => {
  // A backup file of format 1 (devnet), written by an earlier Coffer: its header is all these refusals read.
  const fixture = fileURLToPath(new URL('../fixtures/backup-format-1.coffer', import.meta.url));
  const env = { COFFER_KEYSTORE: 'file' };
  const asked = /Its passphrase|Recovery phrase/;

  it('a folder given as the backup file, and a data dir that is a plain file: a message and a code, nothing asked, nothing changed', async () => {
    const scratch = tempDataDir();
    try {
      const folder = await runCoffer(['restore', scratch, '--data-dir', join(scratch, 'new')], env, 'a passphrase\n');
      expect({ code: folder.code, said: folder.stderr }).toEqual({
        code: 1,
        said: `coffer: ${scratch} is a folder, not a backup file: name the .coffer file in it (backup_unreadable)\n`,
      });
      const plain = join(scratch, 'plain-file');
      writeFileSync(plain, 'not a folder');
      const onFile = await runCoffer(['restore', fixture, '--data-dir', plain], env, 'a passphrase\n');
      expect({ code: onFile.code, asked: asked.test(onFile.stderr) }).toEqual({ code: 1, asked: false });
      expect(onFile.stderr).toMatch(new RegExp(`^coffer: the data dir ${plain} is a file, not a folder: .*\\(data_dir_unusable\\)\n$`));
      const phrase = await runCoffer(['restore', '--phrase', '--network', 'devnet', '--data-dir', plain], env, 'words\n');
      expect({ code: phrase.code, asked: asked.test(phrase.stderr) }).toEqual({ code: 1, asked: false });
      expect(phrase.stderr).toMatch(/is a file, not a folder: .*\(data_dir_unusable\)/);
      expect(readFileSync(plain, 'utf8')).toBe('not a folder');
      expect(readdirSync(scratch).sort()).toEqual(['plain-file']);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("a data dir inside another Coffer's data dir (its keys, through a link or not) is refused, nothing asked or made", async () => {
    const scratch = tempDataDir();
    const other = join(scratch, 'other');
    try {
      mkdirSync(join(other, 'keys'), { recursive: true });
      lockDataDir(other).release();
      symlinkSync(other, join(scratch, 'link'));
      const before = readdirSync(other, { recursive: true, encoding: 'utf8' }).sort();
      for (const target of [join(other, 'keys'), join(scratch, 'link', 'keys', 'restored'), `/proc/self/root${join(other, 'keys')}`]) {
        if (target.startsWith('/proc') && process.platform !== 'linux') continue;
        const refused = await runCoffer(['restore', fixture, '--data-dir', target], env, 'a passphrase\n');
        expect({ target, code: refused.code, asked: asked.test(refused.stderr) }).toEqual({ target, code: 1, asked: false });
        expect(refused.stderr).toMatch(new RegExp(`lies inside another Coffer's data dir, ${other}.*\\(data_dir_unusable\\)`));
      }
      expect(readdirSync(other, { recursive: true, encoding: 'utf8' }).sort()).toEqual(before);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('coffer restore --phrase finds the treasury and every used agent wallet on the chain', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await new TestCluster().start();
  });
  afterAll(async () => cluster.stop());

  it('after the data dir and its keys are gone: the same balances, agents stopped and keyless, the next agent past them, and it pays once set up', async () => {
    const scratch = tempDataDir();
    const network = { network: cluster.url, usdcMint: cluster.mint.address };
    const env = { COFFER_KEYSTORE: 'file', COFFER_USDC_MINT: cluster.mint.address };
    let t = await startCoffer({ ...network, keepDataDir: true });
    try {
      cluster.airdrop(t.owner);
      await cluster.depositFromOutside(t.owner, micro('100'));
      await cluster.depositFromOutside(UNLISTED_API.recipient, 1n);
      const alpha = await fundedAgent(t, 'alpha', '10.00'); // index 1
      await deployAgent(t, 'idle'); // index 2: never funded, never used
      await fundedAgent(t, 'gamma', '5.00'); // index 3
      await fundedAgent(t, 'delta', '2.00'); // index 4: emptied and archived, but it has a history
      expect((await pay(t, 'alpha', alpha.apiKey, { ...UNLISTED_API, amount: '1.00', currency: 'USDC' })).status).toBe(200);
      expect((await t.api('POST', t.withOwner('/v1/agents/delta/return'), { body: {} })).status).toBe(200);
      expect((await t.api('POST', t.withOwner('/v1/agents/delta/archive'))).status).toBe(200);
      const wallets = Object.fromEntries(
        (t.coffer.db.prepare('SELECT agent_id, wallet_address FROM agents').all() as { agent_id: string; wallet_address: string }[]).map(
          (row) => [row.agent_id, row.wallet_address],
        ),
      );
      const phrase = readFileSync(join(t.dataDir, 'keys', `recovery-phrase_${t.owner}.key`), 'utf8');
      const owner = t.owner;
      const treasury = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.balance as string;
      expect(treasury).toBe('85.00');
      await t.stop();
      rmSync(t.dataDir, { recursive: true, force: true });

      const dataDir = join(scratch, 'restored');
      const restore = (input: string, args: string[] = ['--network', cluster.url]) =>
        runCoffer(['restore', '--phrase', '--data-dir', dataDir, ...args], env, input);
      // Refused, each changing nothing: no network, the embedded chain, words that are no phrase, a
      // phrase never used on this chain.
      const noNetwork = await restore(`${phrase}\n`, []);
      expect({ code: noNetwork.code, said: noNetwork.stderr }).toMatchObject({ code: 1, said: expect.stringMatching(/--network devnet/) });
      const sim = await restore(`${phrase}\n`, ['--network', 'sim']);
      expect(sim.stderr).toMatch(/restore a backup file instead \(backup_wrong_network\)/);
      // Piped without a final newline: read, and judged as words.
      const mistyped = await restore(phrase.replace(/^\S+/, 'zebra'));
      expect(mistyped.stderr).toMatch(/\(invalid_recovery_phrase\)/);
      const unused = await restore(`${'abandon '.repeat(11)}about\n`);
      expect(unused.stderr).toMatch(/was ever used on localnet.*nothing was restored \(nothing_to_recover\)/);
      expect(existsSync(join(dataDir, 'coffer.db')) || existsSync(join(dataDir, 'keys'))).toBe(false);

      const sendsBefore = cluster.calls.get('sendTransaction') ?? 0;
      // Typed as a person may: other case, extra spaces.
      const restored = await restore(`  ${phrase.toUpperCase().replaceAll(' ', '   ')}  \n`);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toContain(`Treasury ${owner}: ${treasury} USDC on Solana\n`);
      expect(restored.stdout).toContain(`wallet-1 (${wallets.alpha}): 9.00 USDC on Solana\n`);
      expect(restored.stdout).toContain(`wallet-3 (${wallets.gamma}): 5.00 USDC`);
      expect(restored.stdout).toContain(`wallet-4 (${wallets.delta}): 0.00 USDC`);
      expect(restored.stdout).not.toContain(wallets.idle);
      expect(restored.stdout).toContain('(localnet; 25 wallets looked at)');
      expect(restored.stderr).not.toContain(phrase.split(' ').slice(0, 3).join(' '));
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);

      t = await startCoffer({ ...network, dataDir, keepDataDir: true });
      expect(t.owner).toBe(owner);
      const agents = (await t.api('GET', t.withOwner('/v1/agents'))).body.agents as any[];
      expect(agents.map((agent) => [agent.agentId, agent.status, agent.balance])).toEqual([
        ['wallet-1', 'suspended', '9.00'],
        ['wallet-3', 'suspended', '5.00'],
        ['wallet-4', 'suspended', '0.00'],
      ]);
      expect((await t.api('GET', t.withOwner('/v1/backup'))).body).toMatchObject({ recoveryPhrase: 'confirmed', backedUp: true });
      // The next agent takes the index after the last one found, never a found one.
      const next = await deployAgent(t, 'after-restore');
      const seed = await seedOfPhrase(phrase);
      expect(next.walletAddress).toBe((await createKeyPairSignerFromPrivateKeyBytes(walletKeyAt(seed, 5))).address);
      // Set up by the owner (a policy, a key, resumed), the restored wallet pays at once.
      expect(
        (await t.api('POST', t.withOwner('/v1/agents/wallet-1/policy'), { body: { dailyBudget: '5.00', maxPerPayment: '2.00' } })).status,
      ).toBe(200);
      const key = (await t.api('POST', t.withOwner('/v1/agents/wallet-1/key'))).body.apiKey as string;
      expect((await t.api('POST', t.withOwner('/v1/agents/wallet-1/resume'))).status).toBe(200);
      expect((await pay(t, 'wallet-1', key, { ...UNLISTED_API, amount: '1.50', currency: 'USDC' })).status).toBe(200);
      expect((await t.api('GET', t.withOwner('/v1/agents/wallet-1/balance'))).body.balance).toBe('7.50');
      // The chain agrees: the wallets hold what the dashboard says.
      expect(await t.coffer.chain.usdcBalance(wallets.alpha!)).toBe(micro('7.50'));
      expect(await t.coffer.chain.usdcBalance(owner)).toBe(micro(treasury));
    } finally {
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('a backup file that lacks a wallet’s key, restored', () => {
  // Helper 197: a file written after a wallet's key was lost (said then: "its money is not in this
  // backup") restored as "Backed up.", the warning gone with the key.
  it('names those wallets (a Solana wallet, a Base account) as the last file’s without a key, and is not backed up', async () => {
    const scratch = tempDataDir();
    let t = await startCoffer({ dataDir: join(scratch, 'first'), keyStore: 'file' });
    try {
      const { walletAddress, apiKey: keylessKey } = await fundedAgent(t, 'keyless', '1');
      const backend = await openSecretBackend(t.dataDir, 'file', () => undefined);
      await backend.delete(`wallet:${walletAddress}`);
      // Another's Base account without its key (helper 199: restored as "Backed up.").
      const { apiKey: baselessKey } = await deployAgent(t, 'baseless');
      expect((await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '2', rail: 'base' } })).status).toBe(200);
      expect((await t.api('POST', t.withOwner('/v1/agents/baseless/allocate'), { body: { amount: '1', rail: 'base' } })).status).toBe(200);
      const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body as {
        agents: { agentId: string; wallets: { base: string } }[];
      };
      const baseAccount = dashboard.agents.find((shown) => shown.agentId === 'baseless')!.wallets.base;
      expect(await backend.get(`evm-wallet:${baseAccount}`)).not.toBeNull();
      await backend.delete(`evm-wallet:${baseAccount}`);
      const file = join(scratch, 'without-a-key.coffer');
      writeFileSync(file, await backupFileOf(t, PASSPHRASE));
      await t.stop();
      const dataDir = join(scratch, 'restored');
      // Helper 200: `coffer restore` said both agents' balances as any other's, and nothing of the keys.
      const restored = await runCoffer(['restore', file, '--data-dir', dataDir], { COFFER_KEYSTORE: 'file' }, PASSPHRASE);
      expect(restored.code).toBe(0);
      const warnings = restored.stdout.split('\n').filter((line) => line.startsWith('warning: '));
      expect(warnings.sort()).toEqual(
        [
          `warning: the file holds no key for agent "keyless"'s Solana wallet ${walletAddress}: its money was not restored with it, and this Coffer cannot move it`,
          `warning: the file holds no key for agent "baseless"'s Base account ${baseAccount}: its money was not restored with it, and this Coffer cannot move it`,
        ].sort(),
      );
      const createdAt = /the ledger and keys as of (\S+) \(sim\)/.exec(restored.stdout)?.[1];
      t = await startCoffer({ dataDir, keyStore: 'file' });
      const status = (await t.api('GET', t.withOwner('/v1/backup'))).body;
      expect(status).toMatchObject({ backedUp: false, lastFile: { at: createdAt } });
      expect([...status.lastFile.walletsWithoutKey].sort()).toEqual([walletAddress, baseAccount].sort());
      // Their agents' payments say the key is missing, and nothing is paid (helper 199: "the chain
      // could not be reached: no EVM key stored for 0x…", chain_unavailable).
      const asked = { service: 'demo-weather', amount: '0.01' };
      expectError(
        await payUsdc(t, 'keyless', keylessKey, asked),
        409,
        'wallet_key_missing',
        `the key of the Solana wallet ${walletAddress} is not in this Coffer's key store (lost, or not in the backup file it was restored from): nothing can be paid from it, and nothing was`,
      );
      expectError(await payUsdc(t, 'baseless', baselessKey, { ...asked, rail: 'base' }), 409, 'wallet_key_missing', /Base account 0x/);
      // The owner's return from it: said of moving, and of what that means for archiving it (helper 201).
      expectError(
        await t.api('POST', t.withOwner('/v1/agents/keyless/return'), { body: { amount: '0.5' } }),
        409,
        'wallet_key_missing',
        /: nothing can be moved from it, and nothing was: its money stays there, and its agent cannot be archived while it holds some$/,
      );
      // Nor is money allocated to them, where nothing could pay or return it (helper 202).
      expectError(
        await t.api('POST', t.withOwner('/v1/agents/keyless/allocate'), { body: { amount: '0.5' } }),
        409,
        'wallet_key_missing',
        `the key of agent "keyless"'s Solana wallet ${walletAddress} is not in this Coffer's key store (lost, or not in the backup file it was restored from): money allocated there could be neither paid nor returned until it is back, and nothing was allocated`,
      );
      expectError(
        await t.api('POST', t.withOwner('/v1/agents/baseless/allocate'), { body: { amount: '0.5', rail: 'base' } }),
        409,
        'wallet_key_missing',
        /agent "baseless"'s Base account 0x/,
      );
      expect((await t.api('POST', t.withOwner('/v1/agents/baseless/allocate'), { body: { amount: '0.5' } })).status).toBe(200);
      const paid = (await t.api('GET', t.withOwner('/v1/agents/baseless/spend-history'))).body.payments as unknown[];
      expect(paid).toEqual([]);
    } finally {
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  // Helper 202: with the treasury's keys gone, an agent's payment named the treasury's Solana wallet as
  // the one paying, and on Base (the treasury's account sends every move there) the move was written,
  // never sent, pending until its end, "the chain could not be reached".
  it("refuses every move while the treasury's key is missing, naming the treasury, and writes none", async () => {
    const scratch = tempDataDir();
    const dataDir = join(scratch, 'treasury-keyless');
    let t = await startCoffer({ dataDir, keyStore: 'file' });
    try {
      const { apiKey } = await fundedAgent(t, 'payer', '1');
      expect((await t.api('POST', t.withOwner('/v1/treasury/faucet'), { body: { amount: '2', rail: 'base' } })).status).toBe(200);
      expect((await t.api('POST', t.withOwner('/v1/agents/payer/allocate'), { body: { amount: '1', rail: 'base' } })).status).toBe(200);
      const treasuryOnBase = (await t.api('GET', t.withOwner('/v1/dashboard'))).body.treasury.wallets.base as string;
      const owner = t.owner;
      await t.stop();
      const backend = await openSecretBackend(dataDir, 'file', () => undefined);
      await backend.delete(`wallet:${owner}`);
      await backend.delete(`evm-wallet:${treasuryOnBase}`);
      t = await startCoffer({ dataDir, keyStore: 'file' });
      const asked = { service: 'demo-weather', amount: '0.01' };
      expectError(
        await payUsdc(t, 'payer', apiKey, asked),
        409,
        'wallet_key_missing',
        `the key of the treasury's Solana wallet ${owner}, which pays the fee of every move on Solana, is not in this Coffer's key store (lost, or not in the backup file it was restored from): nothing can be moved on Solana until it is back, and nothing was`,
      );
      expectError(
        await payUsdc(t, 'payer', apiKey, { ...asked, rail: 'base' }),
        409,
        'wallet_key_missing',
        `the key of the treasury's Base account ${treasuryOnBase}, which sends every move on Base, is not in this Coffer's key store (lost, or not in the backup file it was restored from): nothing can be moved on Base until it is back, and nothing was`,
      );
      expectError(
        await t.api('POST', t.withOwner('/v1/agents/payer/return'), { body: { amount: '0.5', rail: 'base' } }),
        409,
        'wallet_key_missing',
        /treasury's Base account/,
      );
      const pending = t.coffer.db.prepare("SELECT COUNT(*) FROM transfers WHERE status = 'pending'").pluck().get();
      expect(pending).toBe(0);
      expect((await t.api('GET', t.withOwner('/v1/agents/payer/spend-history'))).body.payments).toEqual([]);
    } finally {
      await t.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
