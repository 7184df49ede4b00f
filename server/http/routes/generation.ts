import { Router } from 'express';
import { generateBodySchema, taskListQuerySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { agentIdParam, idempotencyKeyOf, parseQuery, parseWith, readTakesNoQuery } from '../validate.js';
import { respondWithOutcome } from '../respond.js';

/** Image generation: accepted (and paid) at once, polled until success or failed. */
export function generationRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.post('/agents/:agentId/generate', async (req, res) => {
    const p = principal(req);
    const agentId = agentIdParam(req.params.agentId);
    const idempotencyKey = idempotencyKeyOf(req);
    // 202 with the approval when the agent's policy holds the purchase for the owner.
    respondWithOutcome(res, await engine.generate(p, agentId, parseWith(generateBodySchema, req.body), idempotencyKey));
  });
  router.get('/agents/:agentId/tasks', (req, res) => {
    const p = principal(req);
    const { limit } = parseQuery(taskListQuerySchema, req.query);
    res.json(engine.tasks(p, agentIdParam(req.params.agentId), limit));
  });
  router.get('/agents/:agentId/tasks/:taskId', readTakesNoQuery, (req, res) => {
    const p = principal(req);
    res.json(engine.task(p, agentIdParam(req.params.agentId), String(req.params.taskId)));
  });
  return router;
}
