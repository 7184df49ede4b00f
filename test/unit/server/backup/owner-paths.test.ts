import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backupFolderRefusal, dataDirHolding, realPathOf, refuseRestoreTarget } from '../../../../server/backup/owner-paths.js';
import { expectCofferError } from '../../../helpers/expect-error.js';

// Real paths throughout: tmpdir itself may be a link (macOS).
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'coffer-owner-paths-')));
const dataDir = join(dir, 'data');
const elsewhere = join(dir, 'elsewhere');
mkdirSync(join(dataDir, 'keys'), { recursive: true });
mkdirSync(elsewhere);
writeFileSync(join(dataDir, 'coffer.lock'), '');
symlinkSync(dataDir, join(dir, 'to-data'));
symlinkSync(join(dataDir, 'keys'), join(elsewhere, 'to-keys'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('where a path the owner names really is', () => {
  it('is the real path of the path, or of its nearest existing parent with the rest after it', async () => {
    expect(await realPathOf(join(dir, 'to-data', 'keys'))).toBe(join(dataDir, 'keys'));
    expect(await realPathOf(join(dir, 'to-data', 'not', 'yet'))).toBe(join(dataDir, 'not', 'yet'));
    // `<link>/..` is the parent of where the link leads, as the system reads it, not the link's own folder.
    expect(await realPathOf(`${join(elsewhere, 'to-keys')}/..`)).toBe(dataDir);
    if (process.platform === 'linux') expect(await realPathOf(`/proc/self/root${dataDir}`)).toBe(dataDir);
  });

  it('lies in a data dir when it is one named, is inside one, or is inside a folder holding a Coffer lock', async () => {
    expect(await dataDirHolding(join(dir, 'to-data'), { dataDirs: [dataDir] })).toEqual({ dataDir, real: dataDir });
    expect(await dataDirHolding(join(elsewhere, 'to-keys'))).toEqual({ dataDir, real: join(dataDir, 'keys') });
    expect(await dataDirHolding(elsewhere, { dataDirs: [dataDir] })).toBeNull();
    // A folder that holds the data dir is not in it: a file written there touches nothing of it.
    expect(await dataDirHolding(dir, { dataDirs: [dataDir] })).toBeNull();
    // Only above it, for a data dir to restore into: it may be one itself.
    expect(await dataDirHolding(dataDir, { below: true })).toBeNull();
    expect(await dataDirHolding(join(dataDir, 'keys', 'new'), { below: true })).toEqual({ dataDir, real: join(dataDir, 'keys', 'new') });
  });

  it('backup folders: a whole path outside every data dir; restore targets: a folder, in no other data dir', async () => {
    expect(await backupFolderRefusal(elsewhere, dataDir)).toBeNull();
    expect(await backupFolderRefusal('elsewhere', dataDir)).toMatch(/whole path/);
    expect(await backupFolderRefusal(join(elsewhere, 'to-keys'), join(dir, 'to-data'))).toMatch(
      new RegExp(`inside Coffer's data dir ${dataDir} \\(it resolves to ${join(dataDir, 'keys')}\\)`),
    );
    await refuseRestoreTarget(join(dir, 'new-data-dir'));
    await refuseRestoreTarget(dataDir);
    await expectCofferError(
      refuseRestoreTarget(join(elsewhere, 'to-keys', 'restored')),
      'data_dir_unusable',
      /inside another Coffer's data dir/,
    );
    await expectCofferError(refuseRestoreTarget(join(dataDir, 'coffer.lock')), 'data_dir_unusable', /is a file, not a folder/);
  });
});
