import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBackupHeader } from '../../server/backup/backup-header.js';
import { lockDataDir } from '../../server/boot/data-dir-lock.js';
import type { CofferEventWithTime } from '../../server/core/events.js';
import { deployAgent, manualClock, signIn, startCoffer, tempDataDir } from '../helpers/coffer.js';
import { restoreBackupFile } from '../../server/backup/restore-file.js';
import { expectError } from '../helpers/expect-error.js';
import { useCoffer } from '../helpers/server-fixture.js';
import { runCoffer, spawnServe } from '../helpers/serve-process.js';

const PASSPHRASE = 'every hour a fresh copy';
const HOUR = 60 * 60 * 1000;

describe('scheduled backup files into a folder the owner picks', () => {
  const clock = manualClock();
  const t = useCoffer({ clock });
  const folder = tempDataDir();
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const schedule = (body: unknown, key?: string) =>
    t.api('POST', t.withOwner('/v1/backup/schedule'), key === undefined ? { body } : { body, key });
  const status = async () => (await t.api('GET', t.withOwner('/v1/backup'))).body;
  const files = () =>
    readdirSync(folder)
      .filter((name) => name.endsWith('.coffer'))
      .sort();

  it('is refused, saving nothing, for an agent, a stale session, a short passphrase and a folder it cannot use', async () => {
    const agent = await deployAgent(t, 'curious');
    expectError(await schedule({ folder, passphrase: PASSPHRASE }, agent.apiKey), 403, 'owner_only');
    const stale = await signIn(t);
    clock.advance(10 * 60 * 1000 + 1);
    expectError(await schedule({ folder, passphrase: PASSPHRASE }, stale), 403, 'confirmation_required');
    expectError(await schedule({ folder, passphrase: 'short' }), 400, 'invalid_request');
    expectError(await schedule({ folder, passphrase: PASSPHRASE, everyHours: 0 }), 400, 'invalid_request');
    expectError(await schedule({ folder, passphrase: PASSPHRASE, keep: 101 }), 400, 'invalid_request');
    const aFile = join(folder, 'not-a-folder.txt');
    writeFileSync(aFile, 'x');
    for (const [where, why] of [
      ['backups', /whole path/],
      [join(folder, 'missing'), /no such folder/],
      [aFile, /not a folder/],
      [join(t.dataDir, 'backups'), /inside Coffer's data dir/],
      [t.dataDir, /inside Coffer's data dir/],
    ] as const) {
      if (where.startsWith(t.dataDir)) mkdirSync(where, { recursive: true });
      expectError(await schedule({ folder: where, passphrase: PASSPHRASE }), 400, 'backup_folder_unusable', why);
    }
    rmSync(aFile);
    expect(await status()).toMatchObject({ schedule: null, lastFile: null });
    expect(files()).toEqual([]);
  });

  it('writes the first file at once, then one each period, keeping the newest `keep` of its own files only', async () => {
    writeFileSync(join(folder, 'mine.coffer'), 'the owner keeps this one');
    const set = await schedule({ folder, passphrase: PASSPHRASE, everyHours: 1, keep: 2 });
    expect(set.status).toBe(200);
    const first = files().filter((name) => name !== 'mine.coffer');
    expect(first).toHaveLength(1);
    expect((await readBackupHeader(join(folder, first[0]!))).header.network).toBe('sim');
    expect((await status()).schedule).toEqual({
      folder,
      everyHours: 1,
      keep: 2,
      lastAt: new Date(clock.now()).toISOString(),
      nextAt: new Date(clock.now() + HOUR).toISOString(),
      lastError: null,
    });
    expect(set.body.schedule).toEqual((await status()).schedule);

    clock.advance(HOUR - 1000);
    expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 0, failed: 0 });
    clock.advance(1000);
    expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 1, failed: 0 });
    expect(files()).toHaveLength(3);
    clock.advance(HOUR);
    expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 1, failed: 0 });
    // The oldest of its own is gone; the owner's file stays.
    const now = files();
    expect(now).toHaveLength(3);
    expect(now).toContain('mine.coffer');
    expect(now).not.toContain(first[0]);
    expect((await status()).lastFile.at).toBe(new Date(clock.now()).toISOString());
    // The passphrase is in the key store, never in the ledger.
    expect(existsSync(join(t.dataDir, 'keys', `backup-passphrase_${t.owner}.key`))).toBe(true);
    t.coffer.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(join(t.dataDir, 'coffer.db')).includes(Buffer.from(PASSPHRASE))).toBe(false);
  });

  it('a failed run is said (status, event stream) and tried again within the hour; it changes nothing else', async () => {
    const events: CofferEventWithTime[] = [];
    const unsubscribe = t.coffer.engine.ctx.events.subscribe((event) => events.push(event));
    try {
      const kept = files();
      rmSync(folder, { recursive: true, force: true });
      clock.advance(HOUR);
      expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 0, failed: 1 });
      const failing = (await status()).schedule;
      expect(failing.lastError).toMatch(/cannot be written into .* \(ENOENT\)/);
      expect(failing.nextAt).toBe(new Date(clock.now() + HOUR).toISOString());
      expect(events).toContainEqual(expect.objectContaining({ type: 'backup', owner: t.owner, file: 'failed', error: failing.lastError }));
      const audit = t.coffer.db.prepare("SELECT COUNT(*) FROM audit_log WHERE action = 'backup.scheduled_failed'").pluck().get();
      expect(audit).toBe(1);
      // Not again before the hour.
      clock.advance(HOUR / 2);
      expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 0, failed: 0 });
      mkdirSync(folder, { recursive: true });
      clock.advance(HOUR / 2);
      expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 1, failed: 0 });
      expect((await status()).schedule.lastError).toBeNull();
      expect(files()).toHaveLength(1);
      expect(kept).toHaveLength(3);
    } finally {
      unsubscribe();
    }
  });

  it('turned off, it forgets its passphrase, writes nothing more and leaves the files where they are', async () => {
    const off = await t.api('DELETE', t.withOwner('/v1/backup/schedule'));
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ schedule: null });
    expect((await status()).schedule).toBeNull();
    expect(existsSync(join(t.dataDir, 'keys', `backup-passphrase_${t.owner}.key`))).toBe(false);
    clock.advance(10 * HOUR);
    expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 0, failed: 0 });
    expect(files()).toHaveLength(1);
    expectError(await t.api('DELETE', t.withOwner('/v1/backup/schedule'), { body: { folder } }), 400, 'invalid_request');
    const actions = t.coffer.db.prepare("SELECT action FROM audit_log WHERE action LIKE 'backup.schedule%' ORDER BY id").pluck().all();
    expect(actions).toEqual(['backup.schedule_set', 'backup.scheduled_failed', 'backup.schedule_cleared']);
  });

  it('judges the folder by where it really is: a link into the data dir, or into another data dir, is refused and nothing is written', async () => {
    const links = tempDataDir();
    const other = tempDataDir();
    try {
      symlinkSync(t.dataDir, join(links, 'to-data-dir'));
      symlinkSync(dirname(t.dataDir), join(links, 'to-its-parent'));
      // Another Coffer's data dir: every data dir Coffer opens holds its lock file.
      lockDataDir(other).release();
      mkdirSync(join(other, 'keys'));
      const before = await status();
      const through: [string, RegExp][] = [
        [join(links, 'to-data-dir'), /inside Coffer's data dir .*\(it resolves to /],
        [join(links, 'to-data-dir', 'keys'), /inside Coffer's data dir .*\(it resolves to /],
        [join(links, 'to-data-dir', 'not-made-yet'), /inside Coffer's data dir/],
        [`${join(links, 'to-data-dir', 'keys')}/..`, /inside Coffer's data dir/],
        [join(links, 'to-its-parent', basename(t.dataDir), 'keys'), /inside Coffer's data dir/],
        [join(other, 'keys'), new RegExp(`inside Coffer's data dir ${other}`)],
        [relative(process.cwd(), t.dataDir), /whole path/],
        [`./${relative(process.cwd(), join(t.dataDir, 'keys'))}`, /whole path/],
      ];
      if (process.platform === 'linux') through.push([`/proc/self/root${t.dataDir}`, /inside Coffer's data dir/]);
      for (const [where, why] of through) {
        expectError(await schedule({ folder: where, passphrase: PASSPHRASE }), 400, 'backup_folder_unusable', why);
      }
      const written = [t.dataDir, other].flatMap((dir) =>
        readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => /\.coffer|partial/.test(name)),
      );
      expect(written).toEqual([]);
      expect(await status()).toEqual(before);
    } finally {
      rmSync(links, { recursive: true, force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('a folder that became a link into the data dir after the schedule was set gets no file: the run fails and says why', async () => {
    const moving = join(folder, 'moving');
    mkdirSync(moving);
    expect((await schedule({ folder: moving, passphrase: PASSPHRASE, everyHours: 1 })).status).toBe(200);
    rmSync(moving, { recursive: true, force: true });
    symlinkSync(join(t.dataDir, 'keys'), moving);
    const before = readdirSync(t.dataDir, { recursive: true, encoding: 'utf8' }).sort();
    clock.advance(HOUR);
    expect(await t.coffer.engine.runDueBackups()).toEqual({ written: 0, failed: 1 });
    expect((await status()).schedule.lastError).toMatch(/cannot be written into .*moving: it is inside Coffer's data dir/);
    expect(readdirSync(t.dataDir, { recursive: true, encoding: 'utf8' }).sort()).toEqual(before);
    expect((await t.api('DELETE', t.withOwner('/v1/backup/schedule'))).status).toBe(200);
  });

  it('two runs at once (the minute timer beside another caller) write a due file once', async () => {
    const once = join(folder, 'once');
    mkdirSync(once);
    expect((await schedule({ folder: once, passphrase: PASSPHRASE, everyHours: 1 })).status).toBe(200);
    clock.advance(HOUR);
    const runs = await Promise.all([t.coffer.engine.runDueBackups(), t.coffer.engine.runDueBackups()]);
    expect(runs).toEqual([
      { written: 1, failed: 0 },
      { written: 0, failed: 0 },
    ]);
    expect(readdirSync(once)).toHaveLength(2);
    expect((await t.api('DELETE', t.withOwner('/v1/backup/schedule'))).status).toBe(200);
  });
});

describe('a restored Coffer and the schedule of the one its backup came from', () => {
  it("carries no schedule (its passphrase is not in the file), so the other Coffer's files are never its to remove", async () => {
    const scratch = tempDataDir();
    const folder = join(scratch, 'backups');
    mkdirSync(folder);
    const files = () => readdirSync(folder).sort();
    const first = await startCoffer({});
    let restored: Awaited<ReturnType<typeof startCoffer>> | null = null;
    try {
      expect(
        (await first.api('POST', first.withOwner('/v1/backup/schedule'), { body: { folder, passphrase: PASSPHRASE, keep: 2 } })).status,
      ).toBe(200);
      const written = files();
      expect(written).toHaveLength(1);
      // A backup written once the schedule is set (its first file is written before it is saved).
      const backup = await fetch(`${first.url}${first.withOwner('/v1/backup/file')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.ownerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ passphrase: PASSPHRASE }),
      });
      expect(backup.status).toBe(200);
      writeFileSync(join(scratch, 'taken-away.coffer'), Buffer.from(await backup.arrayBuffer()));
      await first.stop();
      const facts = await restoreBackupFile({
        file: join(scratch, 'taken-away.coffer'),
        dataDir: join(scratch, 'restored'),
        network: null,
        keyStore: 'file',
        passphrase: async () => PASSPHRASE,
        log: () => undefined,
      });
      // Said, for the restore to tell the owner: where it wrote, and that it is set again by hand.
      expect(facts?.schedulesLeft).toEqual([folder]);
      restored = await startCoffer({ dataDir: join(scratch, 'restored') });
      expect((await restored.api('GET', restored.withOwner('/v1/backup'))).body.schedule).toBeNull();
      // A schedule of its own into the same folder keeps one file: its own. The first Coffer's stays.
      const own = await restored.api('POST', restored.withOwner('/v1/backup/schedule'), {
        body: { folder, passphrase: `${PASSPHRASE}!`, keep: 1 },
      });
      expect(own.status).toBe(200);
      expect(files()).toHaveLength(2);
      expect(files()).toContain(written[0]);
      // A schedule turned off (kept empty in the ledger) is none to leave behind: its backup restores.
      expect((await restored.api('DELETE', restored.withOwner('/v1/backup/schedule'))).status).toBe(200);
      const offFile = await fetch(`${restored.url}${restored.withOwner('/v1/backup/file')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${restored.ownerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ passphrase: PASSPHRASE }),
      });
      writeFileSync(join(scratch, 'after-off.coffer'), Buffer.from(await offFile.arrayBuffer()));
      const again = await restoreBackupFile({
        file: join(scratch, 'after-off.coffer'),
        dataDir: join(scratch, 'again'),
        network: null,
        keyStore: 'file',
        passphrase: async () => PASSPHRASE,
        log: () => undefined,
      });
      expect(again?.schedulesLeft).toEqual([]);
    } finally {
      await first.stop().catch(() => undefined);
      await restored?.stop();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('coffer backup schedule', () => {
  it('sets a schedule from the terminal (the first file written at once), refuses what it must, and turns it off', async () => {
    const scratch = tempDataDir();
    const dataDir = join(scratch, 'coffer');
    const folder = join(scratch, 'backups');
    mkdirSync(folder);
    const server = await spawnServe(dataDir);
    try {
      const env = { COFFER_KEYSTORE: 'file' };
      const usage = await runCoffer(['backup', 'schedule', '--data-dir', dataDir], env, `${PASSPHRASE}\n`);
      expect({ code: usage.code, said: usage.stderr }).toMatchObject({ code: 2, said: expect.stringMatching(/--folder DIR/) });
      const badCount = await runCoffer(['backup', 'schedule', '--folder', folder, '--every', 'daily', '--data-dir', dataDir], env, '');
      expect(badCount.stderr).toMatch(/--every takes a whole number/);
      // Past the schedule's bounds: said before the passphrase is asked, as the server would refuse it.
      const tooRare = await runCoffer(['backup', 'schedule', '--folder', folder, '--every', '1000', '--data-dir', dataDir], env, '');
      expect({ code: tooRare.code, said: tooRare.stderr }).toMatchObject({
        code: 2,
        said: expect.stringMatching(/^coffer: --every takes a whole number of hours from 1 to 720 \(got "1000"\)\n/),
      });
      expect(tooRare.stderr).not.toMatch(/Passphrase/);
      const missing = await runCoffer(
        ['backup', 'schedule', '--folder', join(scratch, 'nowhere'), '--data-dir', dataDir],
        env,
        `${PASSPHRASE}\n`,
      );
      expect({ code: missing.code, said: missing.stderr }).toMatchObject({
        code: 1,
        said: expect.stringMatching(/no such folder \(backup_folder_unusable\)/),
      });
      // Said before the passphrase is asked (it was asked twice, then refused).
      expect(missing.stderr).not.toMatch(/Passphrase for the backup file/);
      // A link to the data dir is judged where it leads, before the passphrase is asked.
      symlinkSync(dataDir, join(scratch, 'to-data-dir'));
      const linked = await runCoffer(
        ['backup', 'schedule', '--folder', join(scratch, 'to-data-dir'), '--data-dir', dataDir],
        env,
        `${PASSPHRASE}\n`,
      );
      expect({ code: linked.code, asked: /Passphrase for the backup file/.test(linked.stderr) }).toEqual({ code: 1, asked: false });
      expect(linked.stderr).toMatch(/inside Coffer's data dir .*\(it resolves to .*\(backup_folder_unusable\)/);
      expect(readdirSync(dataDir).filter((name) => name.endsWith('.coffer'))).toEqual([]);

      const set = await runCoffer(
        ['backup', 'schedule', '--folder', folder, '--every', '12', '--keep', '3', '--data-dir', dataDir],
        env,
        `${PASSPHRASE}\n`,
      );
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toMatch(new RegExp(`^A backup file every 12 h into ${folder}, the newest 3 kept; the first was written now`));
      // When the next is due, as a clock shows it (as coffer backup says it), not an ISO string.
      expect(set.stdout).not.toMatch(/\d{4}-\d\d-\d\dT/);
      expect(readdirSync(folder)).toEqual([expect.stringMatching(/^coffer-backup-sim-.*\.coffer$/)]);
      const off = await runCoffer(['backup', 'schedule', '--off', '--data-dir', dataDir], env);
      expect(off.code, off.stderr).toBe(0);
      const { owner, ownerKey } = JSON.parse(readFileSync(join(dataDir, 'connection.json'), 'utf8'));
      const status = await (
        await fetch(`${server.url}/v1/backup?owner=${owner}`, { headers: { authorization: `Bearer ${ownerKey}` } })
      ).json();
      expect((status as { schedule: unknown }).schedule).toBeNull();
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
