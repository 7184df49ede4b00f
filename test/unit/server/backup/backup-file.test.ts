import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackup, sealBackup, type BackupManifest } from '../../../../server/backup/backup-file.js';
import { readBackupHeader } from '../../../../server/backup/backup-header.js';
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

/** The character classes a header's values are written in: a one-bit change within one still reads as a header. */
const KINDS = [/^[0-9]$/, /^[A-Z]$/, /^[a-z]$/, /^[+/]$/];

/** Changes one bit of the character at `at` so it stays of its kind (a digit, a letter of its case, a base64 sign). */
function flipKeepingKind(bytes: Buffer, at: number): void {
  const was = String.fromCharCode(bytes.readUInt8(at));
  const kind = KINDS.find((pattern) => pattern.test(was));
  if (kind === undefined) throw new Error(`no kind for ${JSON.stringify(was)}`);
  for (let bit = 0; bit < 7; bit += 1) {
    if (!kind.test(String.fromCharCode(bytes.readUInt8(at) ^ (1 << bit)))) continue;
    flip(bytes, at, 1 << bit);
    return;
  }
  throw new Error(`no one-bit change keeps ${was} of its kind`);
}

/** Where the header ends: after the sum line of format 2 (after the JSON line in format 1). */
function headerEnd(bytes: Buffer): number {
  const json = bytes.indexOf(0x0a, 14) + 1;
  return bytes.subarray(json, json + 7).toString() === 'sha256:' ? bytes.indexOf(0x0a, json) + 1 : json;
}

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
    expect(opened.header).toMatchObject({ version: 2, ...facts, kdf: { name: 'scrypt', logN: 17, r: 8, p: 1 } });
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

  it('a file cut short within its header says so, not that its header was changed (helper 196)', async () => {
    const { file } = await sealed();
    const original = readFileSync(file);
    const jsonEnd = original.indexOf(0x0a, 14);
    for (const keep of [20, jsonEnd, jsonEnd + 1, jsonEnd + 10]) {
      const cut = fresh('cut-header.coffer');
      writeFileSync(cut, original.subarray(0, keep));
      await expectCofferError(readBackupHeader(cut), 'backup_damaged', /cut short/);
    }
  });

  it('a byte changed in the header, the ciphertext or the tag is refused as damaged', async () => {
    const { file, bytes } = await sealed();
    const original = readFileSync(file);
    const jsonEnd = original.indexOf(0x0a, 14);
    const networkAt = original.indexOf(Buffer.from('devnet'));
    const changes: [string, (copy: Buffer) => void, string][] = [
      ['the network in the header', (copy) => copy.write('mainn', networkAt), 'backup_damaged'],
      ['the ciphertext', (copy) => flip(copy, jsonEnd + 200, 1), 'backup_damaged'],
      ['the last ciphertext byte', (copy) => flip(copy, bytes - 17, 0x80), 'backup_damaged'],
      ['the tag', (copy) => flip(copy, bytes - 1, 1), 'backup_damaged'],
      ['the check', (copy) => copy.write('AAAA', original.indexOf(Buffer.from('"check":"')) + 9), 'backup_damaged'],
      ['the header sum', (copy) => flip(copy, headerEnd(original) - 2, 1), 'backup_damaged'],
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

  it('a one-bit change in any header field is refused as damaged with the right passphrase, before the passphrase is tried', async () => {
    const { file } = await sealed();
    const original = readFileSync(file);
    // Each field's value as written, and a one-bit change of it that still reads as a header would.
    const fields: [string, string][] = [
      ['version', '"version":'],
      ['network', '"network":"'],
      ['createdAt', '"createdAt":"'],
      ['kdf.name', '"kdf":{"name":"'],
      ['kdf.logN', '"logN":1'],
      ['kdf.r', '"r":'],
      ['kdf.p', '"p":'],
      ['kdf.salt', '"salt":"'],
      ['cipher.name', '"cipher":{"name":"'],
      ['cipher.iv', '"iv":"'],
      ['compression', '"compression":"'],
      ['check', '"check":"'],
    ];
    const refusals: Record<string, unknown> = {};
    for (const [field, before] of fields) {
      const copy = Buffer.from(original);
      const at = original.indexOf(Buffer.from(before)) + before.length;
      expect(at, field).toBeGreaterThan(before.length);
      flipKeepingKind(copy, at);
      expect(copy.equals(original), field).toBe(false);
      const changed = fresh('one-bit.coffer');
      writeFileSync(changed, copy);
      const out = fresh('one-bit.db');
      const refused = await openBackup(changed, PASSPHRASE, out).then(
        () => null,
        (error: { code?: string }) => error.code,
      );
      // Refused by the header alone, before any passphrase is asked for or tried.
      const header = await readBackupHeader(changed).then(
        () => 'read',
        (error: { code?: string }) => error.code,
      );
      refusals[field] = { refused, header, left: existsSync(out) };
    }
    expect(refusals).toEqual(
      Object.fromEntries(fields.map(([field]) => [field, { refused: 'backup_damaged', header: 'backup_damaged', left: false }])),
    );
  });

  it('every one-bit change of the header lines is refused (damaged, or not a backup in its first line), never as a wrong passphrase', async () => {
    const { file } = await sealed(4096);
    const original = readFileSync(file);
    const end = headerEnd(original);
    const seen = new Map<string, number>();
    for (let at = 0; at < end; at += 1) {
      for (let bit = 0; bit < 8; bit += 1) {
        const copy = Buffer.from(original);
        flip(copy, at, 1 << bit);
        const changed = join(dir, 'every-bit.coffer');
        writeFileSync(changed, copy);
        const refused = await openBackup(changed, PASSPHRASE, join(dir, 'every-bit.db')).then(
          () => 'opened',
          (error: { code?: string }) => error.code ?? 'thrown',
        );
        const expected = at < 14 ? 'backup_unreadable' : 'backup_damaged';
        if (refused !== expected) seen.set(`byte ${at} bit ${bit}: ${refused}`, at);
      }
    }
    expect([...seen.keys()]).toEqual([]);
    expect(existsSync(join(dir, 'every-bit.db'))).toBe(false);
  });

  it('a file of format 1 (written before the header had its own sum) still opens, and still tells a wrong passphrase and a changed IV', async () => {
    // Written by Coffer at commit 0328b4a (format 1); passphrase "written by format one".
    const fixture = fileURLToPath(new URL('../../../fixtures/backup-format-1.coffer', import.meta.url));
    const out = fresh('format-1.db');
    const opened = await openBackup(fixture, 'written by format one', out);
    expect(opened.header).toMatchObject({ version: 1, network: 'devnet', createdAt: '2026-11-23T10:00:00.000Z' });
    expect(opened.manifest.ledgerBytes).toBe(8192);
    expect(readFileSync(out).length).toBe(8192);
    await expectCofferError(openBackup(fixture, 'not the passphrase of it', fresh('format-1.db')), 'wrong_passphrase');
    const original = readFileSync(fixture);
    const withIv = Buffer.from(original);
    flipKeepingKind(withIv, original.indexOf(Buffer.from('"iv":"')) + 6);
    const changed = fresh('format-1-iv.coffer');
    writeFileSync(changed, withIv);
    await expectCofferError(openBackup(changed, 'written by format one', fresh('format-1.db')), 'backup_damaged');
    // What format 1 cannot tell: a changed salt derives another key, as a wrong passphrase does; the message says so.
    const withSalt = Buffer.from(original);
    flipKeepingKind(withSalt, original.indexOf(Buffer.from('"salt":"')) + 8);
    writeFileSync(changed, withSalt);
    await expectCofferError(openBackup(changed, 'written by format one', fresh('format-1.db')), 'wrong_passphrase', /format 1 cannot tell/);
  });

  it('refuses a file that is not a backup, a newer format, a header asking too much memory, and a missing file', async () => {
    const notBackup = fresh('photo.jpg');
    writeFileSync(notBackup, randomBytes(2000));
    await expectCofferError(readBackupHeader(notBackup), 'backup_unreadable', 'not a Coffer backup');

    const { file } = await sealed();
    const text = readFileSync(file);
    const header = JSON.parse(text.subarray(14, text.indexOf(0x0a, 14)).toString());
    // A header written anew, its sum with it (as a newer Coffer, or someone editing it on purpose, would).
    const withHeader = (changed: object) => {
      const out = fresh('edited.coffer');
      const lines = Buffer.from(`coffer-backup\n${JSON.stringify(changed)}\n`);
      const sum = `sha256:${createHash('sha256').update(lines).digest('hex')}\n`;
      writeFileSync(out, Buffer.concat([lines, Buffer.from(sum), text.subarray(headerEnd(text))]));
      return out;
    };
    const newer = await expectCofferError(readBackupHeader(withHeader({ ...header, version: 3 })), 'backup_unreadable');
    expect(newer.message).toMatch(/newer Coffer/);
    // A newer version without its sum is a changed header, not a newer file.
    const unsummed = fresh('unsummed.coffer');
    writeFileSync(unsummed, Buffer.from(text.toString('latin1').replace('"version":2', '"version":3'), 'latin1'));
    await expectCofferError(readBackupHeader(unsummed), 'backup_damaged', /changed after it was written/);
    // A header edited on purpose with its sum written again: the tag still refuses it.
    await expectCofferError(openBackup(withHeader({ ...header, network: 'mainnet' }), PASSPHRASE, fresh('edited.db')), 'backup_damaged');
    await expectCofferError(readBackupHeader(dir), 'backup_unreadable', /is a folder, not a backup file/);
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
