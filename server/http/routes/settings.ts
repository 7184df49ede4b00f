import { Router } from 'express';
import { settingsBodySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { parseWith, readTakesNoQuery } from '../validate.js';

/** The owner's settings: the time zone calendar budgets follow. */
export function settingsRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.get('/settings', readTakesNoQuery, (req, res) => {
    res.json(engine.readSettings(principal(req)));
  });
  router.post('/settings', (req, res) => {
    const p = principal(req);
    res.json(engine.updateSettings(p, parseWith(settingsBodySchema, req.body)));
  });
  return router;
}
