import { Router } from 'express';
import { phraseConfirmBodySchema } from '../../core/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { noBody, parseWith } from '../validate.js';

/** The owner's backup: where it stands, the recovery phrase shown (fresh sign-in) and confirmed. */
export function backupRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.get('/backup', (req, res) => {
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
  return router;
}
