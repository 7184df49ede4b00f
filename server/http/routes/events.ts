import { Router } from 'express';
import type { CofferEventWithTime } from '../../core/events.js';
import type { RouteDeps } from './route-deps.js';
import { readTakesNoQuery } from '../validate.js';
import { whenClosed } from '../response-closed.js';

const HEARTBEAT_MS = 15_000;

/**
 * GET /v1/events: the owner's live stream (server-sent events) of payments, refusals, approvals, kills
 * and deposits. The dashboard refreshes on each event instead of polling. An agent's key gets the
 * events about that agent alone (its payments, its requests decided, its stop and resume, ...), so it
 * can wait for the owner's answer to a held payment without polling.
 */
export function eventRoutes({ engine, principal, sessions, streams, held }: RouteDeps): Router {
  const router = Router();
  router.get('/events', readTakesNoQuery, (req, res) => {
    const p = principal(req);
    held.hold(p, res);
    // What this caller may see: everything of the owner's, or an agent's own events only.
    const mine = (event: CofferEventWithTime) =>
      event.owner === p.owner && (p.kind !== 'agent' || ('agentId' in event && event.agentId === p.agentId));
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.write(`retry: 2000\n: connected\n\n`);
    // A stream must not outlive its sign-in: the caller is checked again before every event, at
    // every heartbeat and at every sign-out, and the stream ends the moment the session (or key) is
    // no longer good.
    const stillSignedIn = () => {
      try {
        principal(req);
        return true;
      } catch {
        res.end();
        return false;
      }
    };
    let id = 0;
    const unsubscribe = engine.events.subscribe((event) => {
      if (!mine(event) || !stillSignedIn()) return;
      id += 1;
      res.write(`id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const heartbeat = setInterval(() => {
      if (stillSignedIn()) res.write(': heartbeat\n\n');
    }, HEARTBEAT_MS);
    const stopListening = sessions.onSignOut(() => void stillSignedIn());
    streams.add(res);
    const stop = () => {
      clearInterval(heartbeat);
      unsubscribe();
      stopListening();
      streams.delete(res);
    };
    // Once, at once where its connection closed before this ran (response-closed.ts).
    whenClosed(res, stop);
    res.on('error', stop);
  });
  return router;
}
