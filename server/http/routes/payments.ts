import { Router } from 'express';
import { agentIdSchema, idempotencyKeySchema, payBodySchema } from '../../core/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { parseWith } from '../validate.js';

/** Paying from an agent's wallet; the same Idempotency-Key within 24 h moves money once. */
export function paymentRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.post('/agents/:agentId/pay', async (req, res) => {
    const p = principal(req);
    const agentId = parseWith(agentIdSchema, req.params.agentId);
    const header = req.headers['idempotency-key'];
    const idempotencyKey = header === undefined ? null : parseWith(idempotencyKeySchema, header);
    res.json(await engine.pay(p, agentId, parseWith(payBodySchema, req.body), idempotencyKey));
  });
  return router;
}
