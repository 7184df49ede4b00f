import { Router } from 'express';
import { approvalReadQuerySchema, approvalsQuerySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { whenClosed } from '../response-closed.js';
import { noBody, parseQuery } from '../validate.js';

/** The owner's inbox of agents' requests; an agent may read its own request (and collect a deployed agent's key), and withdraw it while it waits. */
export function approvalRoutes({ engine, principal, held }: RouteDeps): Router {
  const router = Router();
  router.get('/approvals', (req, res) => {
    const p = principal(req);
    const { status } = parseQuery(approvalsQuerySchema, req.query);
    res.json(engine.approvals(p, status ?? null));
  });
  // ?wait=N (seconds, at most 60): answered once the request is decided, or when N runs out (a long poll).
  router.get('/approvals/:id', async (req, res) => {
    const p = principal(req);
    const { wait } = parseQuery(approvalReadQuerySchema, req.query);
    const id = String(req.params.id);
    if (wait !== undefined && wait > 0) {
      held.hold(p, res);
      // The wait ends with its caller (helper 201: one left to run its minute held its memory).
      const gone = new AbortController();
      whenClosed(res, () => gone.abort());
      await engine.waitForDecision(p, id, wait, gone.signal);
      if (gone.signal.aborted) return;
    }
    // Read as the caller is now: a key revoked, or a session signed out, while it waited is refused.
    res.json(engine.approval(principal(req), id));
  });
  router.post('/approvals/:id/approve', async (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(await engine.approve(p, String(req.params.id)));
  });
  router.post('/approvals/:id/deny', (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(engine.deny(p, String(req.params.id)));
  });
  // The asking agent takes its request back while it waits (its caller went away).
  router.post('/approvals/:id/withdraw', (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(engine.withdrawRequest(p, String(req.params.id)));
  });
  return router;
}
