import { Router } from 'express';
import { idempotencyHeaderSchema, payBodySchema } from '../../core/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { agentIdParam, parseWith } from '../validate.js';

/** Paying from an agent's wallet; the same Idempotency-Key within 24 h moves money once. */
export function paymentRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.post('/agents/:agentId/pay', async (req, res) => {
    const p = principal(req);
    const agentId = agentIdParam(req.params.agentId);
    const { idempotencyKey } = parseWith(idempotencyHeaderSchema, { idempotencyKey: req.headers['idempotency-key'] });
    res.json(await engine.pay(p, agentId, parseWith(payBodySchema, req.body), idempotencyKey ?? null));
  });
  return router;
}
