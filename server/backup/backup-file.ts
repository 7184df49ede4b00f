import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { z } from 'zod';
import { CofferError } from '../wire/errors.js';
import {
  BACKUP_FORMAT_VERSION,
  damaged,
  headerBytesOf,
  readBackupHeader,
  TAG_BYTES,
  type BackupFacts,
  type BackupHeader,
} from './backup-header.js';

/**
 * The encrypted backup file. Its header (backup-header.ts) can be read without the passphrase; then
 *
 *   AES-256-GCM ciphertext of gzip(payload), then its 16-byte tag
 *
 * payload = 4-byte big-endian length of the manifest, the manifest (JSON: the wallets' keys and what
 * the ledger is), then the ledger (a SQLite file). The key is scrypt(passphrase NFKC, salt), memory-hard
 * (128 MiB); the header's lines are the cipher's associated data, so nothing in them can be changed
 * unnoticed. `check` (an HMAC under a second key from the same scrypt output) tells a wrong
 * passphrase apart from a damaged file before anything is decrypted; the header's own sum (format 2)
 * makes sure that what `check` and the key were derived from is what was written.
 *
 * Security invariant: no secret is written in clear; the decrypted payload is trusted only after the
 * tag verified (a damaged file leaves nothing behind, see openBackup).
 */

/** Files are named `….coffer`; the format is the same whatever the name. */
export const BACKUP_EXTENSION = '.coffer';

/** scrypt at N = 2^17, r = 8: 128 MiB and about half a second here, on libuv's thread pool. */
const WRITE_KDF = { logN: 17, r: 8, p: 1 } as const;
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

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
  const header: BackupHeader & { version: typeof BACKUP_FORMAT_VERSION } = {
    version: BACKUP_FORMAT_VERSION,
    ...input.facts,
    kdf,
    cipher: { name: 'aes-256-gcm', iv: randomBytes(12).toString('base64') },
    compression: 'gzip',
    check: check.toString('base64'),
  };
  const headerBytes = headerBytesOf(header);
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
    // Format 2's header sum held, so what the key came from is what was written; format 1 has none.
    const or = header.version === 1 ? ', or its header was changed (a file of backup format 1 cannot tell which)' : '';
    throw new CofferError('wrong_passphrase', `that is not the passphrase of this backup file${or}`);
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

/** How many wallets' keys a manifest's secrets hold (the key store names each `wallet:…`). */
export const walletKeysIn = (secrets: Record<string, string>): number =>
  Object.keys(secrets).filter((name) => name.startsWith('wallet:')).length;
