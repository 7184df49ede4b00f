import { Router } from 'express';
import { linkClientSchema, linkCompleteBodySchema } from '../../core/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { parseWith } from '../validate.js';

/**
 * Link sessions: a terminal creates one and polls it (no auth: the token is the credential); the
 * signed-in owner reads who is asking and completes it (owner auth).
 */
export function linkSessionRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.post('/link-sessions', (req, res) => {
    const client = parseWith(linkClientSchema, req.body ?? {});
    res.json(engine.createLinkSession(Object.fromEntries(Object.entries(client).filter(([, v]) => v !== undefined)) as Record<string, string>));
  });
  router.get('/link-sessions/:token', (req, res) => {
    res.json(engine.pollLinkSession(String(req.params.token)));
  });
  router.get('/link-sessions/:token/details', (req, res) => {
    res.json(engine.describeLinkSession(principal(req), String(req.params.token)));
  });
  router.post('/link-sessions/:token/complete', async (req, res) => {
    const p = principal(req);
    res.json(await engine.completeLinkSession(p, String(req.params.token), parseWith(linkCompleteBodySchema, req.body)));
  });
  return router;
}
