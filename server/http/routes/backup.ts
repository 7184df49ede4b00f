import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { backupFileBodySchema, backupScheduleBodySchema, phraseConfirmBodySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { noBody, parseWith, readTakesNoQuery } from '../validate.js';

/**
 * The owner's backup: where it stands, the recovery phrase shown (fresh sign-in) and confirmed, the
 * encrypted backup file handed over as a download, and scheduled backup files into a folder.
 */
export function backupRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.get('/backup', readTakesNoQuery, (req, res) => {
    res.json(engine.backupStatus(principal(req)));
  });
  router.post('/backup/phrase', async (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(await engine.revealRecoveryPhrase(p));
  });
  router.post('/backup/phrase/confirm', async (req, res) => {
    const p = principal(req);
    res.json(await engine.confirmRecoveryPhrase(p, parseWith(phraseConfirmBodySchema, req.body)));
  });
  router.post('/backup/file', async (req, res) => {
    const p = principal(req);
    const body = parseWith(backupFileBodySchema, req.body);
    // Written whole before the first byte goes out: a failure is a JSON error, never half a file.
    const folder = await mkdtemp(join(tmpdir(), 'coffer-backup-'));
    try {
      const written = await engine.writeBackupFile(p, body, folder);
      res.attachment(basename(written.file));
      res.type('application/octet-stream');
      res.setHeader('content-length', String(written.bytes));
      res.setHeader('cache-control', 'no-store');
      await pipeline(createReadStream(written.file), res);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
  router.post('/backup/schedule', async (req, res) => {
    const p = principal(req);
    res.json({ schedule: await engine.setBackupSchedule(p, parseWith(backupScheduleBodySchema, req.body)) });
  });
  router.delete('/backup/schedule', async (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(await engine.clearBackupSchedule(p));
  });
  return router;
}
