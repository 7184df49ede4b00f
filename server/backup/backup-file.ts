import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { z } from 'zod';
import { CofferError } from '../wire/errors.js';

/**
 * The encrypted backup file, version 1. A person can tell what it is from its first lines:
 *
 *   coffer-backup\n
 *   {"version":1,"network":"devnet","createdAt":"…","kdf":{…},"cipher":{…},"compression":"gzip","check":"…"}\n
 *   AES-256-GCM ciphertext of gzip(payload), then its 16-byte tag
 *
 * payload = 4-byte big-endian length of the manifest, the manifest (JSON: the wallets' keys and what
 * the ledger is), then the ledger (a SQLite file). The key is scrypt(passphrase NFKC, salt), memory-hard
 * (128 MiB); the two header lines are the cipher's associated data, so nothing in them can be changed
 * unnoticed. `check` (an HMAC under a second key from the same scrypt output) tells a wrong
 * passphrase apart from a damaged file before anything is decrypted.
 *
 * Security invariant: no secret is written in clear; the decrypted payload is trusted only after the
 * tag verified (a damaged file leaves nothing behind, see openBackup).
 */

const MAGIC = 'coffer-backup\n';
/** The first bytes of every backup file. */
export const BACKUP_MAGIC = Buffer.from(MAGIC);
export const BACKUP_FORMAT_VERSION = 1;
/** Files are named `….coffer`; the format is the same whatever the name. */
export const BACKUP_EXTENSION = '.coffer';

/** scrypt at N = 2^17, r = 8: 128 MiB and about half a second here, on libuv's thread pool. */
const WRITE_KDF = { logN: 17, r: 8, p: 1 } as const;
/** What a file may ask of this machine when read: at most 512 MiB of scrypt memory. */
const MAX_KDF_MEMORY = 512 * 1024 * 1024;
const HEADER_MAX_BYTES = 4096;
const TAG_BYTES = 16;
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

const base64Of = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9+/]+=*$/)
    .refine((text) => Buffer.from(text, 'base64').length === bytes, `${bytes} bytes in base64`);

const headerSchema = z
  .object({
    version: z.literal(BACKUP_FORMAT_VERSION),
    network: z.string().min(1).max(200),
    createdAt: z.iso.datetime(),
    kdf: z
      .object({
        name: z.literal('scrypt'),
        logN: z.number().int().min(14).max(22),
        r: z.number().int().min(1).max(32),
        p: z.number().int().min(1).max(4),
        salt: base64Of(16),
      })
      .strict()
      .refine((kdf) => 128 * 2 ** kdf.logN * kdf.r <= MAX_KDF_MEMORY, 'asks for more scrypt memory than a backup may'),
    cipher: z.object({ name: z.literal('aes-256-gcm'), iv: base64Of(12) }).strict(),
    compression: z.literal('gzip'),
    check: base64Of(16),
  })
  .strict();

export type BackupHeader = z.infer<typeof headerSchema>;

/** What the encrypted payload says of itself, ahead of the ledger. */
const manifestSchema = z
  .object({
    /** The Coffer version that wrote it. */
    coffer: z.string().max(100),
    /** The ledger's schema version (a newer one than this build knows is refused when it opens). */
    schemaVersion: z.number().int().positive(),
    /** The treasuries the ledger holds. */
    owners: z.array(z.string().max(64)).min(1),
    /** Every key the ledger's wallets need, by its name in the key store. */
    secrets: z.record(z.string().regex(/^[A-Za-z0-9:_-]{1,128}$/), z.string().min(1).max(4096)),
    ledgerBytes: z.number().int().positive(),
  })
  .strict();

export type BackupManifest = z.infer<typeof manifestSchema>;

/** What a backup says of itself before its passphrase is known. */
export type BackupFacts = Pick<BackupHeader, 'network' | 'createdAt'>;

function damaged(file: string, why: string, cause?: unknown): CofferError {
  return new CofferError(
    'backup_damaged',
    `the backup file ${file} is damaged or incomplete (${why}): it cannot be restored; use another copy`,
    { cause },
  );
}

async function deriveKeys(passphrase: string, kdf: BackupHeader['kdf']) {
  const N = 2 ** kdf.logN;
  const options: ScryptOptions = { N, r: kdf.r, p: kdf.p, maxmem: 2 * 128 * N * kdf.r };
  const derived = await new Promise<Buffer>((resolve, reject) =>
    scrypt(passphrase.normalize('NFKC'), Buffer.from(kdf.salt, 'base64'), 64, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
  const check = createHmac('sha256', derived.subarray(32)).update('coffer-backup passphrase check').digest().subarray(0, 16);
  return { key: derived.subarray(0, 32), check };
}

/**
 * Writes a backup file: the manifest and the ledger file, compressed and encrypted under the
 * passphrase. Written beside `file` under a temporary name, flushed, then renamed, so a file named
 * `file` is always whole; an existing `file` is never overwritten.
 */
export async function sealBackup(
  file: string,
  input: { passphrase: string; facts: BackupFacts; manifest: Omit<BackupManifest, 'ledgerBytes'>; ledgerFile: string },
): Promise<{ bytes: number }> {
  const kdf = { name: 'scrypt' as const, ...WRITE_KDF, salt: randomBytes(16).toString('base64') };
  const { key, check } = await deriveKeys(input.passphrase, kdf);
  const header: BackupHeader = {
    version: BACKUP_FORMAT_VERSION,
    ...input.facts,
    kdf,
    cipher: { name: 'aes-256-gcm', iv: randomBytes(12).toString('base64') },
    compression: 'gzip',
    check: check.toString('base64'),
  };
  const headerBytes = Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`);
  const cipher = createCipheriv('aes-256-gcm', key, Buffer.from(header.cipher.iv, 'base64'));
  cipher.setAAD(headerBytes);
  const manifest = Buffer.from(JSON.stringify({ ...input.manifest, ledgerBytes: (await stat(input.ledgerFile)).size }));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(manifest.length);

  const partial = `${file}.${process.pid}.partial`;
  const out = await open(partial, 'wx', 0o600);
  try {
    await out.write(headerBytes);
    await pipeline(
      async function* () {
        yield length;
        yield manifest;
        yield* createReadStream(input.ledgerFile);
      },
      createGzip(),
      cipher,
      async (encrypted: AsyncIterable<Buffer>) => {
        for await (const chunk of encrypted) await out.write(chunk);
      },
    );
    await out.write(cipher.getAuthTag());
    await out.sync();
    await out.close();
    await publishFile(partial, file);
  } catch (error) {
    await out.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
  return { bytes: (await stat(file)).size };
}

/**
 * Gives a finished file its name, never replacing a file of that name (EEXIST instead): a hard link
 * then the partial name removed, or, where the filesystem has no hard links (FAT on a USB stick), a
 * check then a rename.
 */
export async function publishFile(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM' && (error as NodeJS.ErrnoException).code !== 'ENOTSUP') throw error;
    if (
      await stat(to).then(
        () => true,
        () => false,
      )
    )
      throw Object.assign(new Error(`${to} exists`), { code: 'EEXIST' });
    await rename(from, to);
    return;
  }
  await unlink(from);
}

/**
 * Reads what a file says of itself (its network and date) without the passphrase. Refuses a file
 * that is not a Coffer backup, one made by a newer Coffer, and one cut short.
 */
export async function readBackupHeader(file: string): Promise<{ header: BackupHeader; headerBytes: Buffer; size: number }> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CofferError('backup_unreadable', `cannot read ${file} (${code === 'ENOENT' ? 'no such file' : code})`, { cause: error });
  }
  try {
    const { size } = await handle.stat();
    const start = Buffer.alloc(Math.min(size, HEADER_MAX_BYTES));
    await handle.read(start, 0, start.length, 0);
    if (!start.subarray(0, MAGIC.length).equals(BACKUP_MAGIC)) {
      throw new CofferError('backup_unreadable', `${file} is not a Coffer backup file`);
    }
    const end = start.indexOf(0x0a, MAGIC.length);
    if (end === -1) throw damaged(file, 'its header is cut short');
    const headerBytes = start.subarray(0, end + 1);
    let parsed: unknown;
    try {
      parsed = JSON.parse(headerBytes.subarray(MAGIC.length).toString('utf8'));
    } catch (error) {
      throw damaged(file, 'its header is not readable', error);
    }
    const version = (parsed as { version?: unknown } | null)?.version;
    if (typeof version === 'number' && version > BACKUP_FORMAT_VERSION) {
      throw new CofferError(
        'backup_unreadable',
        `${file} was made by a newer Coffer (backup format ${version}; this one reads ${BACKUP_FORMAT_VERSION}): update Coffer to restore it`,
      );
    }
    const header = headerSchema.safeParse(parsed);
    if (!header.success) throw damaged(file, `its header does not hold: ${header.error.issues[0]?.message ?? 'invalid'}`);
    if (size < headerBytes.length + TAG_BYTES) throw damaged(file, 'it is cut short');
    return { header: header.data, headerBytes: Buffer.from(headerBytes), size };
  } finally {
    await handle.close();
  }
}

/**
 * Decrypts a backup: its manifest, and the ledger written to `ledgerFile` (a new file). A wrong
 * passphrase is told apart from a damaged file; on any refusal `ledgerFile` is removed, so nothing of
 * an unauthenticated payload is left to be used.
 */
export async function openBackup(
  file: string,
  passphrase: string,
  ledgerFile: string,
): Promise<{ header: BackupHeader; manifest: BackupManifest }> {
  const { header, headerBytes, size } = await readBackupHeader(file);
  const { key, check } = await deriveKeys(passphrase, header.kdf);
  if (!timingSafeEqual(check, Buffer.from(header.check, 'base64'))) {
    throw new CofferError('wrong_passphrase', 'that is not the passphrase of this backup file');
  }
  const handle = await open(file, 'r');
  const tag = Buffer.alloc(TAG_BYTES);
  try {
    await handle.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
  } finally {
    await handle.close();
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(header.cipher.iv, 'base64'));
  decipher.setAAD(headerBytes);
  decipher.setAuthTag(tag);

  let manifestText: string | null = null;
  let ledgerBytes = 0;
  const ledger = await open(ledgerFile, 'wx', 0o600);
  try {
    await pipeline(
      createReadStream(file, { start: headerBytes.length, end: size - TAG_BYTES - 1 }),
      decipher,
      createGunzip(),
      async (payload: AsyncIterable<Buffer>) => {
        let pending = Buffer.alloc(0);
        for await (const chunk of payload) {
          if (manifestText !== null) {
            await ledger.write(chunk);
            ledgerBytes += chunk.length;
            continue;
          }
          pending = Buffer.concat([pending, chunk]);
          if (pending.length < 4) continue;
          const length = pending.readUInt32BE(0);
          if (length > MANIFEST_MAX_BYTES) throw new Error('the manifest is larger than any backup writes');
          if (pending.length < 4 + length) continue;
          manifestText = pending.subarray(4, 4 + length).toString('utf8');
          await ledger.write(pending.subarray(4 + length));
          ledgerBytes += pending.length - 4 - length;
        }
      },
    );
    await ledger.sync();
    await ledger.close();
  } catch (error) {
    await ledger.close().catch(() => undefined);
    await rm(ledgerFile, { force: true });
    throw damaged(file, 'it does not authenticate: cut short or changed after it was written', error);
  }
  const manifest = manifestSchema.safeParse(parseJson(manifestText));
  if (!manifest.success || manifest.data.ledgerBytes !== ledgerBytes) {
    await rm(ledgerFile, { force: true });
    throw damaged(file, 'its contents are not those of a Coffer backup');
  }
  return { header, manifest: manifest.data };
}

function parseJson(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
