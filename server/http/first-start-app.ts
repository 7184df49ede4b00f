import { timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import express, { type Express, type RequestHandler } from 'express';
import { CofferError } from '../wire/errors.js';
import type { BackupFileReceived, FirstStartStatus } from '../wire/answers/first-start.js';
import { firstStartFileBodySchema, firstStartPhraseBodySchema } from '../wire/schemas.js';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import { DASHBOARD_DIR, noCacheForHtml, pageHeaders } from './dashboard.js';
import { errorHandler, notFound, sendError } from './errors.js';
import { localOnly, noOptions } from './guards.js';
import { jsonBody } from './json-body.js';
import { bearerOf } from './principal.js';
import { noBody, parseWith } from './validate.js';

/** What a first start can do (server/boot/first-start.ts does it); each answers the page's next step. */
export interface FirstStartActions {
  status(): FirstStartStatus;
  startNew(): FirstStartStatus;
  /** Keeps the bytes of a backup file (a stream) and answers what its header says of it. */
  receiveBackupFile(bytes: Readable): Promise<BackupFileReceived>;
  restoreFile(body: z.infer<typeof firstStartFileBodySchema>): Promise<FirstStartStatus>;
  restorePhrase(body: z.infer<typeof firstStartPhraseBodySchema>): Promise<FirstStartStatus>;
}

/**
 * The door of a first start, before any treasury exists: the page (`/setup`, the dashboard's bundle)
 * and `/v1/first-start/*`, for the owner to start a new treasury or restore one. Only the holder of
 * the setup token may call it (the desktop app puts it in the window's URL): a local process that
 * could restore a treasury of its own here would have the owner deposit into wallets it holds.
 */
export function createFirstStartApp(options: {
  firstStart: FirstStartActions;
  token: string;
  port: () => number;
  log: (message: string) => void;
}): Express {
  const { firstStart } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(localOnly(options.port));
  app.use(noOptions);
  app.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  const v1 = express.Router();
  v1.use(holdsToken(options.token));
  v1.get('/first-start', (_req, res) => {
    res.json(firstStart.status());
  });
  v1.post('/first-start/new', ...jsonBody(), (req, res) => {
    noBody(req.body);
    res.json(firstStart.startNew());
  });
  // The backup file's bytes as they are (Content-Type: application/octet-stream), kept until the
  // passphrase comes; answers what the file says of itself.
  v1.post('/first-start/backup-file', async (req, res) => {
    res.json(await firstStart.receiveBackupFile(req));
  });
  v1.post('/first-start/restore-file', ...jsonBody(), async (req, res) => {
    res.json(await firstStart.restoreFile(parseWith(firstStartFileBodySchema, req.body)));
  });
  v1.post('/first-start/restore-phrase', ...jsonBody(), async (req, res) => {
    res.json(await firstStart.restorePhrase(parseWith(firstStartPhraseBodySchema, req.body)));
  });
  v1.use(notFound);
  app.use('/v1', v1);

  app.use(pageHeaders);
  if (existsSync(DASHBOARD_DIR)) {
    app.get('/setup', (_req, res) => res.sendFile(join(DASHBOARD_DIR, 'index.html')));
    app.use('/assets', express.static(join(DASHBOARD_DIR, 'assets'), { maxAge: '1h', setHeaders: noCacheForHtml }));
  }
  app.use(notFound);
  app.use(errorHandler(options.log));
  return app;
}

/** Requests must carry the setup token as Bearer (401 unauthorized otherwise), compared in constant time. */
function holdsToken(token: string): RequestHandler {
  const expected = Buffer.from(token);
  return (req, res, next) => {
    const given = Buffer.from(bearerOf(req) ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return sendError(res, new CofferError('unauthorized', 'this is the first start of Coffer: only its own window may set it up'));
    }
    next();
  };
}
