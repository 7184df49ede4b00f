import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { z } from 'zod';
import { CofferError } from '../wire/errors.js';

/**
 * The readable header of an encrypted backup file (backup-file.ts has the rest), format 2:
 *
 *   coffer-backup\n
 *   {"version":2,"network":"devnet","createdAt":"…","kdf":{…},"cipher":{…},"compression":"gzip","check":"…"}\n
 *   sha256:<the SHA-256 of the two lines above, 64 lowercase hex digits>\n
 *
 * The third line is what tells a header changed after it was written (`backup_damaged`) apart from a
 * wrong passphrase: the key and `check` come from the passphrase and the header's kdf, so a changed
 * salt, logN or check read exactly as a wrong passphrase in format 1, which had no third line. The
 * sum is a checksum, not a signature: whoever edits the header on purpose can write its sum again,
 * and then learns only what a wrong passphrase says; the header stays the cipher's associated data,
 * so no edit gets past the tag. From format 2 on, every format starts with these three lines,
 * whatever else it changes: a newer file is told apart from a damaged one by its sum too.
 *
 * Format 1 (two lines, no sum) is still read: files written before open as they did.
 */

const MAGIC = 'coffer-backup\n';
/** The first bytes of every backup file. */
export const BACKUP_MAGIC = Buffer.from(MAGIC);
/** The format this Coffer writes; it reads it and format 1. */
export const BACKUP_FORMAT_VERSION = 2;
/** The first format whose third line is the header's sum. */
const FIRST_SUMMED_VERSION = 2;

/** What a file may ask of this machine when read: at most 512 MiB of scrypt memory. */
const MAX_KDF_MEMORY = 512 * 1024 * 1024;
const HEADER_MAX_BYTES = 4096;
export const TAG_BYTES = 16;

const base64Of = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9+/]+=*$/)
    .refine((text) => Buffer.from(text, 'base64').length === bytes, `${bytes} bytes in base64`);

const headerSchema = z
  .object({
    version: z.union([z.literal(1), z.literal(BACKUP_FORMAT_VERSION)]),
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

/** What a backup says of itself before its passphrase is known. */
export type BackupFacts = Pick<BackupHeader, 'network' | 'createdAt'>;

export function damaged(file: string, why: string, cause?: unknown): CofferError {
  return new CofferError(
    'backup_damaged',
    `the backup file ${file} is damaged or incomplete (${why}): it cannot be restored; use another copy`,
    { cause },
  );
}

const sumLineOf = (lines: Buffer) => `sha256:${createHash('sha256').update(lines).digest('hex')}`;

/** The header lines of a new file (format 2), which are also the cipher's associated data. */
export function headerBytesOf(header: BackupHeader & { version: typeof BACKUP_FORMAT_VERSION }): Buffer {
  const lines = Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`);
  return Buffer.concat([lines, Buffer.from(`${sumLineOf(lines)}\n`)]);
}

/**
 * Reads what a file says of itself (its network and date) without the passphrase. Refuses a path
 * that is not a file (a folder), a file that is not a Coffer backup, one made by a newer Coffer,
 * one cut short, and one whose header was changed (its sum, from format 2 on).
 */
export async function readBackupHeader(file: string): Promise<{ header: BackupHeader; headerBytes: Buffer; size: number }> {
  const start = await readStart(file);
  if (!start.bytes.subarray(0, MAGIC.length).equals(BACKUP_MAGIC)) {
    throw new CofferError('backup_unreadable', `${file} is not a Coffer backup file`);
  }
  const jsonEnd = start.bytes.indexOf(0x0a, MAGIC.length);
  if (jsonEnd === -1) throw damaged(file, 'its header is cut short');
  let headerBytes = start.bytes.subarray(0, jsonEnd + 1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(headerBytes.subarray(MAGIC.length).toString('utf8'));
  } catch (error) {
    throw damaged(file, 'its header is not readable', error);
  }
  const version = (parsed as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version >= FIRST_SUMMED_VERSION) {
    // Judged before the version, so a changed version is damage, not "a newer Coffer".
    const sumEnd = start.bytes.indexOf(0x0a, jsonEnd + 1);
    // The file ends before its sum line does: cut short, not changed (helper 196).
    if (sumEnd === -1 && start.bytes.length >= start.size) throw damaged(file, 'its header is cut short');
    const sum = sumEnd === -1 ? null : start.bytes.subarray(jsonEnd + 1, sumEnd).toString('latin1');
    if (sum !== sumLineOf(headerBytes)) throw damaged(file, 'its header was changed after it was written');
    headerBytes = start.bytes.subarray(0, sumEnd + 1);
  }
  if (typeof version === 'number' && version > BACKUP_FORMAT_VERSION) {
    throw new CofferError(
      'backup_unreadable',
      `${file} was made by a newer Coffer (backup format ${version}; this one reads ${BACKUP_FORMAT_VERSION}): update Coffer to restore it`,
    );
  }
  const header = headerSchema.safeParse(parsed);
  if (!header.success) throw damaged(file, `its header does not hold: ${header.error.issues[0]?.message ?? 'invalid'}`);
  if (start.size < headerBytes.length + TAG_BYTES) throw damaged(file, 'it is cut short');
  return { header: header.data, headerBytes: Buffer.from(headerBytes), size: start.size };
}

/** The first bytes of a file (a header's most) and its size; a path that is no file is refused, never opened. */
async function readStart(file: string): Promise<{ bytes: Buffer; size: number }> {
  const unreadable = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    return new CofferError('backup_unreadable', `cannot read ${file} (${code === 'ENOENT' ? 'no such file' : code})`, { cause: error });
  };
  // A folder opens on Linux and fails at its first read (EISDIR); a FIFO would block the open.
  const found = await stat(file).catch((error: unknown) => {
    throw unreadable(error);
  });
  if (found.isDirectory())
    throw new CofferError('backup_unreadable', `${file} is a folder, not a backup file: name the .coffer file in it`);
  if (!found.isFile()) throw new CofferError('backup_unreadable', `${file} is not a file: name a backup file (.coffer)`);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw unreadable(error);
  }
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.alloc(Math.min(size, HEADER_MAX_BYTES));
    await handle.read(bytes, 0, bytes.length, 0);
    return { bytes, size };
  } finally {
    await handle.close();
  }
}
