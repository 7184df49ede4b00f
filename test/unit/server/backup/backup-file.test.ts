import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackup, readBackupHeader, sealBackup, type BackupManifest } from '../../../../server/backup/backup-file.js';
import { expectCofferError } from '../../../helpers/expect-error.js';

const dir = mkdtempSync(join(tmpdir(), 'coffer-backup-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PASSPHRASE = 'correct horse battery staple';
const SECRET = 'wallet-secret-5J3mBbAH58CpQ3Y5RNJpUKPE62SQ5tfcvU2JpbnkeyhfsYB1Jcn';
const manifest: Omit<BackupManifest, 'ledgerBytes'> = {
  coffer: '0.1.0',
  schemaVersion: 20,
  owners: ['Fw2V9hSbmLBVvYB5jeWq5CqTmG9aGsyBpVjyb7jkUFWW'],
  secrets: { 'wallet:Fw2V9hSbmLBVvYB5jeWq5CqTmG9aGsyBpVjyb7jkUFWW': SECRET },
};
const facts = { network: 'devnet', createdAt: '2026-11-23T10:00:00.000Z' };

let files = 0;
const fresh = (name: string) => join(dir, `${files++}-${name}`);

/** A ledger-like file: repetitive (so it compresses) with random parts. */
function ledgerOf(bytes: number): string {
  const file = fresh('ledger.db');
  const content = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i += 4096) randomBytes(64).copy(content, i);
  writeFileSync(file, content);
  return file;
}

const flip = (bytes: Buffer, at: number, mask: number) => bytes.writeUInt8(bytes.readUInt8(at) ^ mask, at);

async function sealed(ledgerBytes = 300_000) {
  const ledgerFile = ledgerOf(ledgerBytes);
  const file = fresh('backup.coffer');
  const { bytes } = await sealBackup(file, { passphrase: PASSPHRASE, facts, manifest, ledgerFile });
  return { file, ledgerFile, bytes };
}

describe('the encrypted backup file', () => {
  it('opens with its passphrase to the same manifest and the same ledger, byte for byte', async () => {
    const { file, ledgerFile, bytes } = await sealed(1_500_000);
    expect(bytes).toBe(readFileSync(file).length);
    // Compressed: the ledger's zero pages cost next to nothing.
    expect(bytes).toBeLessThan(300_000);
    const out = fresh('restored.db');
    const opened = await openBackup(file, ` ${PASSPHRASE} `.trim(), out);
    expect(opened.manifest).toEqual({ ...manifest, ledgerBytes: 1_500_000 });
    expect(opened.header).toMatchObject({ version: 1, ...facts, kdf: { name: 'scrypt', logN: 17, r: 8, p: 1 } });
    expect(readFileSync(out).equals(readFileSync(ledgerFile))).toBe(true);
  });

  it('says what it is in its first line and its network and date without the passphrase, and holds no secret in clear', async () => {
    const { file } = await sealed();
    const bytes = readFileSync(file);
    expect(bytes.subarray(0, 14).toString()).toBe('coffer-backup\n');
    const { header } = await readBackupHeader(file);
    expect({ network: header.network, createdAt: header.createdAt }).toEqual(facts);
    expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
    expect(bytes.includes(Buffer.from(PASSPHRASE))).toBe(false);
    expect(bytes.includes(Buffer.from(manifest.owners[0]!))).toBe(false);
    expect(bytes.includes(gzipSync(Buffer.from(SECRET)).subarray(10, 30))).toBe(false);
  });

  it('the same passphrase typed in another Unicode form opens it (NFKC)', async () => {
    const ledgerFile = ledgerOf(10_000);
    const file = fresh('accents.coffer');
    await sealBackup(file, { passphrase: 'caf\u00e9 au lait, deux sucres', facts, manifest, ledgerFile });
    await expect(openBackup(file, 'cafe\u0301 au lait, deux sucres', fresh('out.db'))).resolves.toBeTruthy();
  });

  it('a wrong passphrase is refused as such, and leaves nothing behind', async () => {
    const { file } = await sealed();
    const out = fresh('wrong.db');
    await expectCofferError(openBackup(file, 'correct horse battery stapler', out), 'wrong_passphrase');
    expect(existsSync(out)).toBe(false);
  });

  it('a file cut short anywhere is refused as damaged, and leaves nothing behind', async () => {
    const { file, bytes } = await sealed();
    for (const keep of [bytes - 1, bytes - 16, Math.floor(bytes / 2), 300, 40, 14]) {
      const cut = fresh('cut.coffer');
      writeFileSync(cut, readFileSync(file));
      truncateSync(cut, keep);
      const out = fresh('cut.db');
      await expectCofferError(openBackup(cut, PASSPHRASE, out), 'backup_damaged');
      expect(existsSync(out)).toBe(false);
    }
  });

  it('a byte changed in the header, the ciphertext or the tag is refused as damaged', async () => {
    const { file, bytes } = await sealed();
    const original = readFileSync(file);
    const headerEnd = original.indexOf(0x0a, 14);
    const networkAt = original.indexOf(Buffer.from('devnet'));
    const changes: [string, (copy: Buffer) => void, string][] = [
      ['the network in the header', (copy) => copy.write('mainn', networkAt), 'backup_damaged'],
      ['the ciphertext', (copy) => flip(copy, headerEnd + 200, 1), 'backup_damaged'],
      ['the last ciphertext byte', (copy) => flip(copy, bytes - 17, 0x80), 'backup_damaged'],
      ['the tag', (copy) => flip(copy, bytes - 1, 1), 'backup_damaged'],
      ['the check', (copy) => copy.write('AAAA', original.indexOf(Buffer.from('"check":"')) + 9), 'wrong_passphrase'],
      ['the first line', (copy) => copy.write('C', 0), 'backup_unreadable'],
    ];
    for (const [what, change, code] of changes) {
      const copy = Buffer.from(original);
      change(copy);
      const changed = fresh('changed.coffer');
      writeFileSync(changed, copy);
      const out = fresh('changed.db');
      const refused = await openBackup(changed, PASSPHRASE, out).then(
        () => null,
        (error: { code?: string }) => error.code,
      );
      expect({ what, refused, left: existsSync(out) }).toEqual({ what, refused: code, left: false });
    }
  });

  it('refuses a file that is not a backup, a newer format, a header asking too much memory, and a missing file', async () => {
    const notBackup = fresh('photo.jpg');
    writeFileSync(notBackup, randomBytes(2000));
    await expectCofferError(readBackupHeader(notBackup), 'backup_unreadable', 'not a Coffer backup');

    const { file } = await sealed();
    const text = readFileSync(file);
    const headerEnd = text.indexOf(0x0a, 14);
    const header = JSON.parse(text.subarray(14, headerEnd).toString());
    const withHeader = (changed: object) => {
      const out = fresh('edited.coffer');
      writeFileSync(out, Buffer.concat([Buffer.from(`coffer-backup\n${JSON.stringify(changed)}`), text.subarray(headerEnd)]));
      return out;
    };
    const newer = await expectCofferError(readBackupHeader(withHeader({ ...header, version: 2 })), 'backup_unreadable');
    expect(newer.message).toMatch(/newer Coffer/);
    await expectCofferError(readBackupHeader(withHeader({ ...header, kdf: { ...header.kdf, logN: 22 } })), 'backup_damaged');
    await expectCofferError(readBackupHeader(withHeader({ ...header, extra: 1 })), 'backup_damaged');
    await expectCofferError(readBackupHeader(join(dir, 'nowhere.coffer')), 'backup_unreadable', 'no such file');
  });

  it('never overwrites a file that exists, and leaves no partial file when it fails', async () => {
    const { file, ledgerFile } = await sealed();
    const before = readFileSync(file);
    await expect(sealBackup(file, { passphrase: PASSPHRASE, facts, manifest, ledgerFile })).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(file).equals(before)).toBe(true);
    const target = fresh('never.coffer');
    await expect(sealBackup(target, { passphrase: PASSPHRASE, facts, manifest, ledgerFile: join(dir, 'missing.db') })).rejects.toThrow();
    expect(existsSync(target)).toBe(false);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
