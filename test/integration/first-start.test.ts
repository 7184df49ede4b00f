import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { openConnection } from '../../server/store/sqlite-driver.js';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFirstStart, startFirstStart, type RunningFirstStart } from '../../server/boot/first-start.js';
import { openCoffer } from '../../server/boot/open-coffer.js';
import type { ServeConfig } from '../../server/boot/serve-config.js';
import { CofferApiError } from '../../server/client/client-error.js';
import { createFirstStartClient, type FirstStartClient } from '../../server/client/first-start-client.js';
import { readFileSync } from 'node:fs';
import { TestCluster } from '../fixtures/test-cluster.js';
import { backupFileOf, fundedAgent, micro, startCoffer, tempDataDir, UNLISTED_API } from '../helpers/coffer.js';
import { payUsdc } from '../helpers/pay.js';

/**
 * The desktop app's first start (server/boot/first-start.ts): before a new treasury is made, the owner
 * may restore one from a backup file or the recovery phrase through the setup page's calls. Against
 * a real backup file of the embedded chain, the real restore and a real SQLite file and key files.
 */
const PASSPHRASE = 'restored on its first start';

const settingsFor = (dataDir: string, network: string | null = 'sim'): ServeConfig => ({
  dataDir,
  port: 0,
  network: network ?? undefined,
  keyStore: 'file',
  usdcMint: undefined,
  baseRpc: undefined,
  baseUsdc: undefined,
  imageProviderUrl: undefined,
  imageProviderKey: undefined,
});

/** A call the server refuses: its status and code. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  const error = await call.then(
    () => null,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(CofferApiError);
  const { status, code, message } = error as CofferApiError;
  return { status, code, message };
}

let backup: Uint8Array<ArrayBuffer>;
let original: { owner: string; treasury: string; agent: string; paid: number };

beforeAll(async () => {
  const t = await startCoffer();
  try {
    const agent = await fundedAgent(t, 'scout', '5.00');
    const paid = await payUsdc(t, 'scout', agent.apiKey, { ...UNLISTED_API, amount: '0.25', description: 'before the backup' });
    expect(paid.status).toBe(200);
    backup = await backupFileOf(t, PASSPHRASE);
    const dashboard = (await t.api('GET', t.withOwner('/v1/dashboard'))).body;
    original = { owner: t.owner, treasury: dashboard.treasury.balance, agent: dashboard.agents[0].balance, paid: 1 };
  } finally {
    await t.stop();
  }
});

describe('a first start, restoring from a backup file', () => {
  const dataDir = join(tempDataDir(), 'coffer');
  let running: RunningFirstStart;
  let client: FirstStartClient;
  let base: string;
  let token: string;
  beforeAll(async () => {
    expect(isFirstStart(dataDir)).toBe(true);
    running = await startFirstStart(settingsFor(dataDir), () => undefined);
    const url = new URL(running.setupUrl);
    base = url.origin;
    token = url.searchParams.get('token')!;
    client = createFirstStartClient(base, token);
  });
  afterAll(async () => {
    await running.stop();
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('answers only the holder of the setup token, at its own address', async () => {
    expect(await client.status()).toEqual({ network: 'sim', dataDir, state: 'waiting', restored: null });
    expect(await refusal(createFirstStartClient(base, 'not-the-token').status())).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(await refusal(createFirstStartClient(base, '').startNew())).toMatchObject({ status: 401, code: 'unauthorized' });
    // A page of another site that resolves its name to 127.0.0.1 (DNS rebinding) is refused by its Host.
    const elsewhere = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(base);
      request({ host: url.hostname, port: url.port, path: '/v1/first-start', headers: { host: 'evil.example' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
        .on('error', reject)
        .end();
    });
    expect(elsewhere.status).toBe(403);
    expect(JSON.parse(elsewhere.body)).toMatchObject({ code: 'bad_host' });
    const page = await fetch(`${base}/setup?token=x`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<div id="root">/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    // A page of another site may not call it, even holding the token.
    const crossSite = await fetch(`${base}/v1/first-start`, {
      headers: { authorization: `Bearer ${token}`, origin: 'http://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ code: 'bad_origin' });
  });

  it('refuses what is not a backup, a wrong passphrase and a phrase on the embedded chain, changing nothing', async () => {
    expect(await refusal(client.restoreFile({ passphrase: PASSPHRASE }))).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(await refusal(client.sendBackupFile(new TextEncoder().encode('not a backup at all')))).toMatchObject({
      status: 400,
      code: 'backup_unreadable',
    });
    expect(await refusal(client.restoreFile({ passphrase: PASSPHRASE }))).toMatchObject({ code: 'invalid_request' });
    const received = await client.sendBackupFile(backup);
    expect(received).toEqual({ network: 'sim', createdAt: expect.stringMatching(/^\d{4}-/), bytes: backup.length });
    expect(await refusal(client.restoreFile({ passphrase: 'not the passphrase' }))).toMatchObject({
      status: 400,
      code: 'wrong_passphrase',
    });
    expect(await refusal(client.restorePhrase({ phrase: 'abandon '.repeat(11) + 'about' }))).toMatchObject({
      status: 409,
      code: 'backup_wrong_network',
    });
    expect(await refusal(client.restorePhrase({ phrase: 'these are not the words' }))).toMatchObject({
      status: 400,
      code: 'invalid_recovery_phrase',
    });
    expect(await refusal(client.restoreFile({ passphrase: '' }))).toMatchObject({ status: 400, code: 'invalid_request' });
    // Bad input of any kind is a JSON refusal with a code, and the server goes on.
    const raw = async (path: string, body: string | Uint8Array<ArrayBuffer>, type = 'application/json') => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type },
        body,
      });
      return { status: response.status, body: (await response.json()) as { code: string; error: string } };
    };
    expect(await raw('/v1/first-start/restore-file', '{"passphrase":')).toMatchObject({ status: 400, body: { code: 'invalid_json' } });
    expect(await raw('/v1/first-start/restore-file', JSON.stringify({ passphrase: 'x', extra: 1 }))).toMatchObject({
      status: 400,
      body: { code: 'invalid_request' },
    });
    expect(await raw('/v1/first-start/restore-phrase', JSON.stringify({ phrase: 'x', network: 'sim' }))).toMatchObject({
      status: 400,
      body: { code: 'invalid_request' },
    });
    expect(await raw('/v1/first-start/restore-phrase', JSON.stringify({ phrase: 'x'.repeat(70_000) }))).toMatchObject({
      status: 413,
      body: { code: 'body_too_large' },
    });
    expect(await raw('/v1/first-start/new', '{"now": true}')).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect(await raw('/v1/first-start/backup-file', new Uint8Array(0), 'application/octet-stream')).toMatchObject({
      status: 400,
      body: { code: 'backup_unreadable' },
    });
    expect(await raw('/v1/first-start/nowhere', '{}')).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(isFirstStart(dataDir)).toBe(true);
    expect(existsSync(join(dataDir, 'keys')) ? readdirSync(join(dataDir, 'keys')) : []).toEqual([]);
    expect((await client.status()).state).toBe('waiting');
  });

  it('restores the ledger and keys with the right passphrase; Coffer then opens the treasury as it was', async () => {
    // The file sent last is the one restored (the empty one above replaced the first).
    await client.sendBackupFile(backup);
    const done = await client.restoreFile({ passphrase: PASSPHRASE });
    expect(done).toMatchObject({ state: 'restored', restored: expect.stringMatching(/^the sim treasury and its ledger as of /) });
    expect(await running.chosen).toBe('restored');
    // Nothing more is taken once the owner has chosen.
    expect(await refusal(client.startNew())).toMatchObject({ status: 409, code: 'data_dir_in_use' });
    await running.stop();
    expect(readdirSync(dataDir)).not.toContain('.first-start-upload.coffer');
    const coffer = await openCoffer({ dataDir, keyStore: 'file', log: () => undefined });
    try {
      expect(coffer.owner).toBe(original.owner);
      const dashboard = await coffer.engine.dashboard({ kind: 'owner', owner: coffer.owner });
      expect(dashboard.treasury.balance).toBe(original.treasury);
      expect(dashboard.agents.map((agent) => [agent.agentId, agent.balance])).toEqual([['scout', original.agent]]);
    } finally {
      await coffer.close();
    }
  });
});

describe('a first start, the owner choosing a new treasury or another network', () => {
  it('is still a first start after one cut short (a ledger with no owner yet), and a restore replaces that ledger', async () => {
    const dataDir = join(tempDataDir(), 'coffer');
    mkdirSync(dataDir, { recursive: true });
    const unfinished = openConnection(join(dataDir, 'coffer.db'));
    unfinished.exec('CREATE TABLE owners (address TEXT PRIMARY KEY)');
    unfinished.close();
    expect(isFirstStart(dataDir)).toBe(true);
    const running = await startFirstStart(settingsFor(dataDir), () => undefined);
    try {
      const url = new URL(running.setupUrl);
      const client = createFirstStartClient(url.origin, url.searchParams.get('token')!);
      await client.sendBackupFile(backup);
      expect(await client.restoreFile({ passphrase: PASSPHRASE })).toMatchObject({ state: 'restored' });
      expect(isFirstStart(dataDir)).toBe(false);
    } finally {
      expect(await running.stop()).toBe('restored');
    }
    // A ledger that cannot be read may hold a treasury: it is never a first start.
    writeFileSync(join(dataDir, 'coffer.db'), 'not a database');
    expect(isFirstStart(dataDir)).toBe(false);
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('takes one step at a time: a second call while a file is still arriving is refused', async () => {
    const dataDir = join(tempDataDir(), 'coffer');
    const running = await startFirstStart(settingsFor(dataDir), () => undefined);
    const url = new URL(running.setupUrl);
    const [base, token] = [url.origin, url.searchParams.get('token')!];
    const client = createFirstStartClient(base, token);
    let finish: () => void = () => undefined;
    const slow = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(backup.subarray(0, 100));
        finish = () => {
          controller.enqueue(backup.subarray(100));
          controller.close();
        };
      },
    });
    const arriving = fetch(`${base}/v1/first-start/backup-file`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: slow,
      duplex: 'half',
    } as RequestInit);
    // Wait until the server is reading it (the first bytes wrote the upload file).
    const deadline = Date.now() + 10_000;
    while (!existsSync(join(dataDir, '.first-start-upload.coffer')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await refusal(client.restoreFile({ passphrase: PASSPHRASE }))).toMatchObject({
      status: 409,
      code: 'data_dir_in_use',
      message: 'a restore is already under way',
    });
    expect(await refusal(client.startNew())).toMatchObject({ status: 409, code: 'data_dir_in_use' });
    finish();
    expect((await arriving).status).toBe(200);
    expect(await running.stop()).toBeNull();
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('a file sent and not restored is removed when the first start ends, and nothing was chosen', async () => {
    const dataDir = join(tempDataDir(), 'coffer');
    const running = await startFirstStart(settingsFor(dataDir), () => undefined);
    const url = new URL(running.setupUrl);
    await createFirstStartClient(url.origin, url.searchParams.get('token')!).sendBackupFile(backup);
    expect(readdirSync(dataDir)).toEqual(['.first-start-upload.coffer']);
    expect(await running.stop()).toBeNull();
    expect(readdirSync(dataDir)).toEqual([]);
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('with no network named, a backup of a localnet or custom cluster is refused: reopening it needs its RPC URL', async () => {
    // Its header only (the rest is never read before the passphrase): the same file, said to be of a
    // localnet, the header's sum line written again for it (backup format 2).
    const text = Buffer.from(backup);
    const jsonEnd = text.indexOf(0x0a, 14);
    const header = JSON.parse(text.subarray(14, jsonEnd).toString('utf8')) as { network: string };
    const lines = Buffer.concat([text.subarray(0, 14), Buffer.from(`${JSON.stringify({ ...header, network: 'localnet' })}\n`)]);
    const localnet = Buffer.concat([
      lines,
      Buffer.from(`sha256:${createHash('sha256').update(lines).digest('hex')}\n`),
      text.subarray(text.indexOf(0x0a, jsonEnd + 1) + 1),
    ]);
    const dataDir = join(tempDataDir(), 'coffer');
    const running = await startFirstStart(settingsFor(dataDir, null), () => undefined);
    try {
      const url = new URL(running.setupUrl);
      const client = createFirstStartClient(url.origin, url.searchParams.get('token')!);
      expect(await refusal(client.sendBackupFile(new Uint8Array(localnet)))).toMatchObject({
        status: 409,
        code: 'backup_wrong_network',
        message: expect.stringMatching(/COFFER_NETWORK set to that cluster's RPC URL/),
      });
      expect(await refusal(client.sendBackupFile(new TextEncoder().encode('PK\u0003\u0004 a zip file')))).toMatchObject({
        code: 'backup_unreadable',
        message: 'this file is not a Coffer backup',
      });
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      await running.stop();
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });

  it('a new treasury: chosen, and nothing is written before Coffer opens the data dir', async () => {
    const dataDir = join(tempDataDir(), 'coffer');
    const running = await startFirstStart(settingsFor(dataDir, null), () => undefined);
    try {
      const url = new URL(running.setupUrl);
      const client = createFirstStartClient(url.origin, url.searchParams.get('token')!);
      expect((await client.status()).network).toBeNull();
      expect(await client.startNew()).toMatchObject({ state: 'new' });
      expect(await running.chosen).toBe('new');
      expect(isFirstStart(dataDir)).toBe(true);
    } finally {
      await running.stop();
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });

  it('a backup of another network than the one Coffer was started for is refused when it arrives', async () => {
    const dataDir = join(tempDataDir(), 'coffer');
    const running = await startFirstStart(settingsFor(dataDir, 'devnet'), () => undefined);
    try {
      const url = new URL(running.setupUrl);
      const client = createFirstStartClient(url.origin, url.searchParams.get('token')!);
      expect(await refusal(client.sendBackupFile(backup))).toMatchObject({
        status: 409,
        code: 'backup_wrong_network',
        message: expect.stringMatching(/holds a sim treasury, not a devnet one/),
      });
      expect(await refusal(client.restorePhrase({ phrase: 'abandon '.repeat(11) + 'about', network: 'mainnet' }))).toMatchObject({
        code: 'backup_wrong_network',
      });
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      await running.stop();
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });
});

describe('a first start, restoring from the recovery phrase on an RPC cluster', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await new TestCluster().start();
  });
  afterAll(async () => cluster.stop());

  it('finds the treasury and the used agent wallet, and Coffer then opens them with their balances, nothing sent', async () => {
    const network = { network: cluster.url, usdcMint: cluster.mint.address };
    const t = await startCoffer({ ...network, keepDataDir: true });
    const phrase = readFileSync(join(t.dataDir, 'keys', `recovery-phrase_${t.owner}.key`), 'utf8');
    const owner = t.owner;
    try {
      cluster.airdrop(t.owner);
      await cluster.depositFromOutside(t.owner, micro('20'));
      await fundedAgent(t, 'alpha', '4.00');
    } finally {
      await t.stop();
      rmSync(t.dataDir, { recursive: true, force: true });
    }
    const dataDir = join(tempDataDir(), 'coffer');
    const settings = { ...settingsFor(dataDir), network: cluster.url, usdcMint: cluster.mint.address };
    const running = await startFirstStart(settings, () => undefined);
    try {
      const url = new URL(running.setupUrl);
      const client = createFirstStartClient(url.origin, url.searchParams.get('token')!);
      expect((await client.status()).network).toBe('localnet');
      const sendsBefore = cluster.calls.get('sendTransaction') ?? 0;
      expect(await client.restorePhrase({ phrase })).toMatchObject({
        state: 'restored',
        restored: expect.stringMatching(/^the localnet treasury and 1 agent wallet\(s\) from the recovery phrase/),
      });
      expect(await running.chosen).toBe('restored');
      await running.stop();
      expect(cluster.calls.get('sendTransaction') ?? 0).toBe(sendsBefore);
      const coffer = await openCoffer({ dataDir, ...network, keyStore: 'file', log: () => undefined });
      try {
        expect(coffer.owner).toBe(owner);
        const dashboard = await coffer.engine.dashboard({ kind: 'owner', owner });
        expect(dashboard.treasury.balance).toBe('16.00');
        expect(dashboard.agents.map((agent) => [agent.agentId, agent.status, agent.balance])).toEqual([['wallet-1', 'suspended', '4.00']]);
      } finally {
        await coffer.close();
      }
    } finally {
      await running.stop();
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });
});
