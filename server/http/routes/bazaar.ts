import { Router } from 'express';
import { bazaarBodySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { noBody, parseWith, readTakesNoQuery } from '../validate.js';

/** Bazaar discovery (the owner's): the facilitator whose discovery list the registry shows, and a read now. */
export function bazaarRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.get('/bazaar', readTakesNoQuery, (req, res) => {
    res.json(engine.bazaar(principal(req)));
  });
  router.post('/bazaar', async (req, res) => {
    const p = principal(req);
    res.json(await engine.setBazaar(p, parseWith(bazaarBodySchema, req.body)));
  });
  router.post('/bazaar/refresh', async (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(await engine.refreshBazaar(p));
  });
  return router;
}
