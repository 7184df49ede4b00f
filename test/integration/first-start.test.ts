import { existsSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFirstStart, startFirstStart, type RunningFirstStart } from '../../server/boot/first-start.js';
import { openCoffer } from '../../server/boot/open-coffer.js';
import type { ServeConfig } from '../../server/cli/config.js';
import { CofferApiError } from '../../server/client/client-error.js';
import { createFirstStartClient, type FirstStartClient } from '../../server/client/first-start-client.js';
import { readFileSync } from 'node:fs';
import { TestCluster } from '../fixtures/test-cluster.js';
import { fundedAgent, micro, startCoffer, tempDataDir, UNLISTED_API } from '../helpers/coffer.js';
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
    const response = await fetch(`${t.url}${t.withOwner('/v1/backup/file')}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ passphrase: PASSPHRASE }),
    });
    expect(response.status).toBe(200);
    backup = new Uint8Array(await response.arrayBuffer());
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
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
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
        message: expect.stringMatching(/holds a sim treasury, and Coffer was started for devnet/),
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
