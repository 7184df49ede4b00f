import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CofferError, isCofferError } from '../wire/errors.js';
import type { FirstStartStatus } from '../wire/answers/first-start.js';
import { BACKUP_MAGIC, readBackupHeader } from '../backup/backup-header.js';
import { refuseOtherNetwork, restoreBackupFile, schedulesLeftWords } from '../backup/restore-file.js';
import { restoreFromPhrase } from '../backup/restore-phrase.js';
import type { ServeConfig } from './serve-config.js';
import { createFirstStartApp, type FirstStartActions } from '../http/first-start-app.js';
import { ledgerState } from '../store/ledger-snapshot.js';
import { closeServer, listenOnLoopback } from './loopback-server.js';
import { chooseNetwork } from './open-coffer.js';

/** Where the backup file sent by the first-start page waits for its passphrase (inside the data dir, 0600). */
const UPLOAD = '.first-start-upload.coffer';
/** A backup file larger than this is no Coffer's (its ledger would be past any real one's size). */
const MAX_UPLOAD_BYTES = 4 * 1024 ** 3;
/** The networks a data dir reopens on by name alone: a localnet or custom cluster needs its RPC URL named. */
const NAMED_NETWORKS = new Set(['sim', 'devnet', 'mainnet']);

/**
 * A data dir that records no treasury yet (no ledger, or one a first start or a restore left without
 * an owner): starting Coffer there makes a new treasury, unless the owner restores one.
 */
export const isFirstStart = (dataDir: string): boolean => ledgerState(join(dataDir, 'coffer.db')) !== 'treasury';

type Choice = 'new' | 'restored';

export interface RunningFirstStart {
  /** The page, with the setup token: only what is opened at this URL can set Coffer up. */
  setupUrl: string;
  /** Settles once the owner chose (a new treasury, or one restored); stop() still lets the answer saying so go out. */
  chosen: Promise<Choice>;
  /** Waits for a step under way (a restore is never cut), stops serving, and answers what was chosen, if anything. */
  stop(): Promise<Choice | null>;
}

/**
 * The first start of a data dir with no treasury: before a new one is made, the owner may restore
 * one from a backup file or the recovery phrase (the same restores as `coffer restore`, with the same
 * refusals). Serves the page and its calls on the port Coffer will use, until the owner has chosen;
 * the caller then stops it and opens the data dir as usual.
 */
export async function startFirstStart(settings: ServeConfig, log: (message: string) => void): Promise<RunningFirstStart> {
  const token = randomBytes(32).toString('base64url');
  const upload = join(settings.dataDir, UPLOAD);
  const askedNetwork = settings.network === undefined ? null : (await chooseNetwork(settings.network, settings.usdcMint)).name;
  let state: FirstStartStatus['state'] = 'waiting';
  let restored: string | null = null;
  let inFlight: Promise<unknown> | null = null;
  let stopping = false;
  let uploaded = false;

  let settle: (choice: Choice) => void = () => undefined;
  const chosen = new Promise<Choice>((resolve) => (settle = resolve));
  const choose = (choice: Choice, what: string | null) => {
    state = choice;
    restored = what;
    settle(choice);
  };
  const status = (): FirstStartStatus => ({ network: askedNetwork, dataDir: settings.dataDir, state, restored });
  const discardUpload = () => rm(upload, { force: true }).catch((error: Error) => log(`first start: ${upload}: ${error.message}`));
  /** One step at a time, and none once the owner has chosen. */
  const step = <T>(run: () => Promise<T>): Promise<T> => {
    if (state !== 'waiting' || stopping) throw new CofferError('data_dir_in_use', 'Coffer is already starting with the treasury chosen');
    if (inFlight !== null) throw new CofferError('data_dir_in_use', 'a restore is already under way');
    const running = run().catch((error: unknown) => {
      if (isCofferError(error)) throw error;
      log(`first start: ${(error as Error).message}`);
      throw new CofferError('restore_failed', `the restore stopped: ${(error as Error).message}. Nothing was started; try again`, {
        cause: error,
      });
    });
    inFlight = running.finally(() => (inFlight = null)).catch(() => undefined);
    return running;
  };

  const actions: FirstStartActions = {
    status,
    startNew: () => {
      if (state !== 'waiting' || inFlight !== null || stopping) throw new CofferError('data_dir_in_use', 'a restore is under way or done');
      choose('new', null);
      return status();
    },
    receiveBackupFile: (bytes: Readable) =>
      step(async () => {
        mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
        uploaded = false;
        await rm(upload, { force: true });
        try {
          const size = await receive(bytes, upload);
          const { header } = await readBackupHeader(upload);
          refuseOtherNetwork(header.network, askedNetwork);
          if (askedNetwork === null && !NAMED_NETWORKS.has(header.network)) {
            throw new CofferError(
              'backup_wrong_network',
              `this backup holds a ${header.network} treasury: start Coffer with COFFER_NETWORK set to that cluster's RPC URL to restore it`,
            );
          }
          uploaded = true;
          return { network: header.network, createdAt: header.createdAt, bytes: size };
        } catch (error) {
          await discardUpload();
          throw error;
        }
      }),
    restoreFile: ({ passphrase }) =>
      step(async () => {
        if (!uploaded) throw new CofferError('invalid_request', 'send the backup file first (POST /v1/first-start/backup-file)');
        const facts = await restoreBackupFile({
          file: upload,
          dataDir: settings.dataDir,
          network: askedNetwork,
          keyStore: settings.keyStore,
          passphrase: async () => passphrase,
          log,
        });
        if (facts === null) throw new CofferError('wrong_passphrase', 'no passphrase was given');
        const scheduleLeft = schedulesLeftWords(facts.schedulesLeft);
        choose(
          'restored',
          `the ${facts.network} treasury and its ledger as of ${facts.createdAt}${scheduleLeft === null ? '' : `. ${scheduleLeft}`}`,
        );
        await discardUpload();
        return status();
      }),
    restorePhrase: ({ phrase, network }) =>
      step(async () => {
        if (askedNetwork !== null && network !== undefined && network !== askedNetwork) {
          throw new CofferError('backup_wrong_network', `Coffer was started for ${askedNetwork}, not ${network}`);
        }
        const on = settings.network ?? network;
        if (on === undefined) throw new CofferError('invalid_request', 'network: which chain holds the wallets, devnet or mainnet?');
        const { coffer, found } = await restoreFromPhrase({
          phrase,
          dataDir: settings.dataDir,
          network: on,
          usdcMint: settings.usdcMint,
          // Its Base accounts are looked for on the Base rail this Coffer was started with (off: none).
          baseRpc: settings.baseRpc,
          baseUsdc: settings.baseUsdc,
          keyStore: settings.keyStore,
          log,
        });
        choose(
          'restored',
          `the ${coffer.chain.network} treasury and ${found.agents.length} agent wallet(s) from the recovery phrase ` +
            `(${found.scanned} looked at); the agents are stopped until you set their policies`,
        );
        await coffer.close().catch((error: Error) => log(`first start: closing the restored data dir: ${error.message}`));
        return status();
      }),
  };

  let port = settings.port;
  const app = createFirstStartApp({ firstStart: actions, token, port: () => port, log });
  // A phrase restore asks the chain about many wallets, and a backup file may be large: no 2-minute limit here.
  const listening = await listenOnLoopback(app, settings.port, { requestTimeoutMs: 30 * 60_000 });
  port = listening.port;

  return {
    setupUrl: `http://127.0.0.1:${port}/setup?token=${token}`,
    chosen,
    stop: async () => {
      // No step starts from here on (one sent just before the window closed is refused).
      stopping = true;
      await inFlight;
      // The answer that says what was chosen is still being written: closing waits for it (a second at most).
      await closeServer(listening.server, 1_000);
      await discardUpload();
      return state === 'waiting' ? null : state;
    },
  };
}

/**
 * Writes an uploaded file to `file` (a new file: a link or file someone put there is not followed),
 * refusing at its first bytes what is no Coffer backup, and past MAX_UPLOAD_BYTES. Answers its size.
 */
async function receive(bytes: Readable, file: string): Promise<number> {
  let size = 0;
  let head = Buffer.alloc(0);
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (head.length < BACKUP_MAGIC.length) head = Buffer.concat([head, chunk]).subarray(0, BACKUP_MAGIC.length);
      const notABackup = head.length > 0 && !BACKUP_MAGIC.subarray(0, head.length).equals(head);
      if (notABackup || size > MAX_UPLOAD_BYTES) {
        done(
          new CofferError(
            'backup_unreadable',
            notABackup ? 'this file is not a Coffer backup' : 'this file is too large to be a Coffer backup',
          ),
        );
        return;
      }
      done(null, chunk);
    },
  });
  const written = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  try {
    await pipeline(bytes, check, written);
  } catch (error) {
    // Refused at its first bytes, the file may still be opening: it would be made after the removal
    // that follows (the data dir keeping it). Its stream closes once it is.
    if (!written.closed) await new Promise<void>((resolve) => written.once('close', () => resolve()));
    throw error;
  }
  return size;
}
