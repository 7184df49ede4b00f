import { Router } from 'express';
import { allocationsQuerySchema, faucetBodySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { idempotencyKeyOf, parseQuery, parseWith, readTakesNoQuery } from '../validate.js';
import { sendJsonInSlices } from '../json-in-slices.js';

/** The owner's view: dashboard, deposit history, allocations and returns, and the sim network's faucet. */
export function treasuryRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.get('/dashboard', readTakesNoQuery, async (req, res) => {
    await sendJsonInSlices(res, await engine.dashboard(principal(req)));
  });
  router.get('/treasury/deposits', readTakesNoQuery, (req, res) => {
    res.json(engine.deposits(principal(req)));
  });
  router.get('/treasury/allocations', (req, res) => {
    const p = principal(req);
    res.json(engine.allocations(p, parseQuery(allocationsQuerySchema, req.query)));
  });
  router.post('/treasury/faucet', async (req, res) => {
    const p = principal(req);
    const { amount, rail } = parseWith(faucetBodySchema, req.body);
    const idempotencyKey = idempotencyKeyOf(req);
    res.json(await engine.faucet(p, amount, idempotencyKey, rail));
  });
  return router;
}
