import { createWriteStream, existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { keyClient } from '../../client/coffer-client.js';
import { backupPassphraseSchema } from '../../wire/schemas.js';
import { formatByteSize } from '../../wire/byte-size.js';
import { publishFile } from '../../backup/backup-file.js';
import { writableFolderRefusal } from '../../backup/owner-paths.js';
import { resolveServeConfig } from '../../boot/serve-config.js';
import { shellWords } from '../../boot/cli-invocation.js';
import { CofferError } from '../../wire/errors.js';
import { readOwnerConnection } from '../owner-connection.js';
import { ownerCommandLine } from '../owner-command-line.js';
import { localTime } from '../local-time.js';
import { processIo, readSecret, type SecretIo } from '../read-secret.js';
import { keylessWalletWords } from '../../wire/rail-words.js';

type Out = NodeJS.WritableStream;

/**
 * `coffer backup phrase`: shows the treasury's recovery phrase (owner key, from this machine's data
 * dir) and asks for three of its words back, so the treasury counts as backed up only once the
 * phrase was written down. The phrase goes to this terminal only.
 */
export async function backupPhrase(
  args: { dataDir?: string },
  io: { input: NodeJS.ReadableStream; out: Out; err: Out } = { input: process.stdin, out: process.stdout, err: process.stderr },
): Promise<number> {
  // The phrase and its prompts on stdout, this terminal; a confirmation that failed on stderr, as
  // every command's failure (CLI.md, exit statuses).
  const { out, err } = io;
  const owner = readOwnerConnection(args.dataDir);
  const api = keyClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  const { words, confirm } = await api.revealRecoveryPhrase();
  // This very command, as this shell runs it, for this data dir.
  const again = ownerCommandLine(['backup', 'phrase'], args.dataDir);
  out.write('Your recovery phrase. Write these words down, in order, on paper; keep it where you keep what matters.\n');
  out.write('Anyone who reads them holds every wallet of this treasury, on any computer. Coffer never asks for them.\n\n');
  for (let row = 0; row < words.length; row += 4) {
    out.write(
      `${words
        .slice(row, row + 4)
        .map((word, i) => `${String(row + i + 1).padStart(2)}. ${word.padEnd(10)}`)
        .join('  ')}\n`,
    );
  }
  out.write(`\nTo check, type words ${confirm.map((position) => `#${position}`).join(', ')}.\n`);
  const prompt = createInterface({ input: io.input, output: out, terminal: false });
  // Lines read through the iterator, which keeps those that came together (pasted, or piped at once)
  // until they are asked for: a listener per line would miss all but the first of them.
  const lines = prompt[Symbol.asyncIterator]();
  const typed: { position: number; word: string }[] = [];
  // Words as they come: a line each, or several on one line (typed or pasted together), each taking
  // the next word asked for; a line left blank asks again.
  const waiting: string[] = [];
  try {
    for (const position of confirm) {
      while (waiting.length === 0) {
        out.write(`Word #${position}: `);
        const next = await lines.next();
        // From a pipe nothing echoes the line read: the prompt's line is ended here (a blank line asks
        // again on a line of its own, not beside the last prompt).
        if (!(io.input as { isTTY?: boolean }).isTTY && next.done !== true) out.write('\n');
        if (next.done === true) {
          out.write('\n');
          err.write(`coffer: not confirmed: the recovery phrase is not marked as written down; run ${again} again\n`);
          return 1;
        }
        waiting.push(...next.value.split(/\s+/).filter((word) => word !== ''));
      }
      typed.push({ position, word: waiting.shift()! });
    }
  } finally {
    prompt.close();
  }
  // More words on the line than asked (the whole phrase pasted, say): which were meant is not known.
  if (waiting.length > 0) {
    err.write(
      `coffer: not confirmed: more words came than the ${confirm.length} asked (${confirm.map((position) => `#${position}`).join(', ')}); nothing changed; run ${again} again\n`,
    );
    return 1;
  }
  const answer = await api.confirmRecoveryPhrase({ words: typed }).catch((error: { code?: string }) => {
    if (error.code === 'phrase_mismatch') return null;
    throw error;
  });
  if (answer === null) {
    err.write(`coffer: those words do not match the phrase: nothing changed; run ${again} again (phrase_mismatch)\n`);
    return 1;
  }
  out.write(
    answer.phraseRestores
      ? 'Backed up: the phrase restores this treasury and every agent wallet, here or in Phantom or Solflare.\n'
      : `Written down. On sim, the test money lives in this data dir, which no phrase brings back: back it up with ${ownerCommandLine(['backup', '--out', 'FILE'], args.dataDir)}\n`,
  );
  return 0;
}

/**
 * `coffer backup --out FILE`: an encrypted backup file of the ledger and every wallet's key, from the
 * running Coffer (owner key). The passphrase is asked twice at a terminal (once from a pipe) and
 * checked here before anything is asked of the server. FILE is never overwritten, and appears only
 * once it is whole.
 */
export async function backupFile(
  args: { dataDir?: string; out: string },
  io: SecretIo & { say: Out } = { ...processIo, say: process.stdout },
): Promise<number> {
  const file = resolve(args.out);
  if (existsSync(file)) throw new Error(`${file} exists: a backup never replaces a file, choose another name`);
  const owner = readOwnerConnection(args.dataDir);
  await refuseFolder(dirname(file), args.dataDir);
  const passphrase = await askNewPassphrase(io);
  if (passphrase === null) return 1;
  const api = keyClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  const { stream } = await api.backupFile({ passphrase });
  const partial = `${file}.${process.pid}.partial`;
  try {
    await pipeline(
      Readable.fromWeb(stream as import('node:stream/web').ReadableStream<Uint8Array>),
      createWriteStream(partial, { mode: 0o600, flags: 'wx' }),
    );
    await publishFile(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
  const { lastFile } = await api.backupStatus();
  io.say.write(
    `Wrote ${file} (${formatByteSize(lastFile?.bytes ?? 0)}): the ledger and every wallet's key (${lastFile?.wallets ?? 0}), encrypted with your passphrase.\n` +
      // Another computer's shell, where `coffer` is whatever runs it there: the word, the file quoted for a shell.
      `Keep it off this computer. Restore it anywhere with: ${shellWords(['coffer', 'restore', file])}\n`,
  );
  for (const wallet of lastFile?.walletsWithoutKey ?? []) {
    io.say.write(`warning: ${keylessWalletWords(wallet)} has no key in this key store: its money is not in this backup\n`);
  }
  return 0;
}

/** A new passphrase, checked by the same rule as the server's; typed twice at a terminal. Null when not given. */
async function askNewPassphrase(io: SecretIo): Promise<string | null> {
  const interactive = Boolean((io.input as { isTTY?: boolean }).isTTY);
  for (;;) {
    const typed = await readSecret('Passphrase for the backup file (12 characters or more; it cannot be recovered): ', io);
    if (typed === null) {
      io.out.write('No passphrase given: no backup written.\n');
      return null;
    }
    const checked = backupPassphraseSchema.safeParse(typed);
    if (!checked.success) {
      const why = `the passphrase ${checked.error.issues[0]?.message ?? 'is not usable'}`;
      // From a pipe there is no asking again: refused as the server would refuse it, with its code.
      if (!interactive) throw new CofferError('invalid_request', `${why}: no backup written`);
      io.out.write(`${why[0]!.toUpperCase()}${why.slice(1)}.\n`);
      continue;
    }
    if (!interactive) return typed;
    if ((await readSecret('The same passphrase again: ', io)) === typed) return typed;
    io.out.write('The two passphrases differ; once more.\n');
  }
}

/**
 * `coffer backup schedule --folder DIR [--every H] [--keep N]` (the first file is written now, with a
 * passphrase asked for here) and `coffer backup schedule --off`.
 */
export async function backupSchedule(
  args: { dataDir?: string; off: boolean; folder?: string; everyHours?: number; keep?: number },
  io: SecretIo & { say: Out } = { ...processIo, say: process.stdout },
): Promise<number> {
  const owner = readOwnerConnection(args.dataDir);
  const api = keyClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  if (args.off) {
    await api.clearBackupSchedule();
    io.say.write('Scheduled backups are off; the files written stay where they are.\n');
    return 0;
  }
  const folder = resolve(args.folder ?? '.');
  // The server judges it too (and at every file); said here first, before the passphrase is asked.
  await refuseFolder(folder, args.dataDir);
  const passphrase = await askNewPassphrase(io);
  if (passphrase === null) return 1;
  const { schedule } = await api.setBackupSchedule({
    folder,
    passphrase,
    ...(args.everyHours === undefined ? {} : { everyHours: args.everyHours }),
    ...(args.keep === undefined ? {} : { keep: args.keep }),
  });
  if (schedule === null) return 1;
  io.say.write(
    `A backup file every ${schedule.everyHours} h into ${schedule.folder}, the newest ${schedule.keep} kept; the first was written now, the next is due ${localTime(schedule.nextAt)}.\n`,
  );
  return 0;
}

/**
 * A folder for backup files, judged by backup/owner-paths.ts against the data dir the command speaks
 * to: outside every data dir, there, and writable (a schedule's writer's own check).
 */
async function refuseFolder(folder: string, dataDirFlag: string | undefined): Promise<void> {
  const refused = await writableFolderRefusal(folder, resolveServeConfig({ 'data-dir': dataDirFlag }).dataDir);
  if (refused !== null) throw new CofferError('backup_folder_unusable', `backups cannot go to ${folder}: ${refused}`);
}
