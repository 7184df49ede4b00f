import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CofferError, isCofferError } from '../core/errors.js';
import { readBackupHeader } from '../backup/backup-file.js';
import { restoreBackupFile } from '../backup/restore-file.js';
import { restoreFromPhrase } from '../backup/restore-phrase.js';
import type { ServeConfig } from '../cli/config.js';
import type { FirstStartStatus } from '../core/views.js';
import { createFirstStartApp, type FirstStartActions } from '../http/first-start-app.js';
import { chooseNetwork } from './open-coffer.js';

/** Where the backup file sent by the first-start page waits for its passphrase (inside the data dir, 0600). */
const UPLOAD = '.first-start-upload.coffer';
/** A backup file larger than this is no Coffer's (its ledger would be past any real one's size). */
const MAX_UPLOAD_BYTES = 4 * 1024 ** 3;

/** A data dir with no ledger yet: starting Coffer there makes a new treasury, unless the owner restores one. */
export const isFirstStart = (dataDir: string): boolean => !existsSync(join(dataDir, 'coffer.db'));

export interface RunningFirstStart {
  /** The page, with the setup token: only what is opened at this URL can set Coffer up. */
  setupUrl: string;
  /** Settles once the owner chose (a new treasury, or one restored) and was told. */
  chosen: Promise<'new' | 'restored'>;
  stop(): Promise<void>;
}

/**
 * The first start of a data dir with no ledger: before a new treasury is made, the owner may restore
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
  let busy = false;
  let uploaded: { network: string } | null = null;

  const status = (): FirstStartStatus => ({ network: askedNetwork, dataDir: settings.dataDir, state, restored });
  /** One step at a time, and none once the owner has chosen. */
  const step = async <T>(run: () => Promise<T>): Promise<T> => {
    if (state !== 'waiting') throw new CofferError('data_dir_in_use', 'Coffer is already starting with the treasury chosen');
    if (busy) throw new CofferError('data_dir_in_use', 'a restore is already under way');
    busy = true;
    try {
      return await run();
    } catch (error) {
      if (isCofferError(error)) throw error;
      log(`first start: ${(error as Error).message}`);
      throw new CofferError('restore_failed', `the restore stopped: ${(error as Error).message}. Nothing was started; try again`, {
        cause: error,
      });
    } finally {
      busy = false;
    }
  };

  const actions: FirstStartActions = {
    status,
    startNew: () => {
      if (state !== 'waiting' || busy) throw new CofferError('data_dir_in_use', 'a restore is under way or done');
      state = 'new';
      return status();
    },
    receiveBackupFile: (bytes: Readable) =>
      step(async () => {
        mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
        uploaded = null;
        let size = 0;
        const limit = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            size += chunk.length;
            done(
              size > MAX_UPLOAD_BYTES ? new CofferError('backup_unreadable', 'this file is too large to be a Coffer backup') : null,
              chunk,
            );
          },
        });
        try {
          await pipeline(bytes, limit, createWriteStream(upload, { mode: 0o600 }));
          const { header } = await readBackupHeader(upload);
          if (askedNetwork !== null && header.network !== askedNetwork) {
            throw new CofferError(
              'backup_wrong_network',
              `this backup holds a ${header.network} treasury, and Coffer was started for ${askedNetwork}: start it for ${header.network} to restore it`,
            );
          }
          uploaded = { network: header.network };
          return { network: header.network, createdAt: header.createdAt, bytes: size };
        } catch (error) {
          await rm(upload, { force: true });
          throw error;
        }
      }),
    restoreFile: ({ passphrase }) =>
      step(async () => {
        if (uploaded === null) throw new CofferError('invalid_request', 'send the backup file first (POST /v1/first-start/backup-file)');
        const facts = await restoreBackupFile({
          file: upload,
          dataDir: settings.dataDir,
          network: askedNetwork,
          keyStore: settings.keyStore,
          passphrase: async () => passphrase,
          log,
        });
        if (facts === null) throw new CofferError('wrong_passphrase', 'no passphrase was given');
        await rm(upload, { force: true });
        state = 'restored';
        restored = `the ${facts.network} treasury and its ledger as of ${facts.createdAt}`;
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
          keyStore: settings.keyStore,
          log,
        });
        await coffer.close();
        state = 'restored';
        restored =
          `the ${coffer.chain.network} treasury and ${found.agents.length} agent wallet(s) from the recovery phrase ` +
          `(${found.scanned} looked at); the agents are stopped until you set their policies`;
        return status();
      }),
  };

  let port = settings.port;
  let settle: (choice: 'new' | 'restored') => void = () => undefined;
  const chosen = new Promise<'new' | 'restored'>((resolve) => (settle = resolve));
  const app = createFirstStartApp({
    firstStart: actions,
    token,
    port: () => port,
    log,
    answered: () => {
      if (state !== 'waiting') settle(state);
    },
  });
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${settings.port} on 127.0.0.1 is already in use (use --port)`) : error);
    server.once('error', onError);
    server.listen(settings.port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    setupUrl: `http://127.0.0.1:${port}/setup?token=${token}`,
    chosen,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1_000).unref();
      });
      await rm(upload, { force: true });
    },
  };
}
