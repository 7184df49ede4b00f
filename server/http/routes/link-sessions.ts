import { Router } from 'express';
import { linkClearBodySchema, linkClientSchema, linkCompleteBodySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { noBody, parseWith, readTakesNoQuery } from '../validate.js';

/**
 * Link sessions: a terminal creates one and polls it (no auth: the token is the credential); the
 * signed-in owner sees what waits, reads who is asking, completes or clears (owner auth; as the spec
 * has it, no `owner` parameter: the key or sign-in names the owner).
 */
export function linkSessionRoutes({ engine, credential }: RouteDeps): Router {
  const router = Router();
  router.post('/link-sessions', (req, res) => {
    const client = parseWith(linkClientSchema, req.body ?? {});
    res.json(
      engine.createLinkSession(Object.fromEntries(Object.entries(client).filter(([, v]) => v !== undefined)) as Record<string, string>),
    );
  });
  router.get('/link-sessions', readTakesNoQuery, (req, res) => {
    res.json(engine.waitingLinkSessions(credential(req)));
  });
  router.post('/link-sessions/clear', (req, res) => {
    const p = credential(req);
    res.json(engine.clearLinkSessions(p, parseWith(linkClearBodySchema, req.body).ids ?? null));
  });
  router.get('/link-sessions/:token', readTakesNoQuery, (req, res) => {
    res.json(engine.pollLinkSession(String(req.params.token)));
  });
  router.get('/link-sessions/:token/details', readTakesNoQuery, (req, res) => {
    res.json(engine.describeLinkSession(credential(req), String(req.params.token)));
  });
  router.post('/link-sessions/:token/deny', (req, res) => {
    const p = credential(req);
    noBody(req.body);
    res.json(engine.denyLinkSession(p, String(req.params.token)));
  });
  router.post('/link-sessions/:token/complete', async (req, res) => {
    const p = credential(req);
    res.json(await engine.completeLinkSession(p, String(req.params.token), parseWith(linkCompleteBodySchema, req.body)));
  });
  return router;
}
