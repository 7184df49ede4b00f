import { Router } from 'express';
import { payBodySchema, paymentPathSchema, x402PayBodySchema, x402SettledBodySchema, x402SignInBodySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { agentIdParam, idempotencyKeyOf, parseWith } from '../validate.js';
import { respondWithOutcome } from '../respond.js';
import { afterRequestsReadThisTurn } from '../turn-batch.js';

/** Paying from an agent's wallet; the same Idempotency-Key within 24 h moves money once. */
export function paymentRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();
  router.post('/agents/:agentId/pay', async (req, res) => {
    await afterRequestsReadThisTurn();
    const p = principal(req);
    const agentId = agentIdParam(req.params.agentId);
    const idempotencyKey = idempotencyKeyOf(req);
    // 202 with the approval when the agent's policy holds the payment for the owner.
    respondWithOutcome(res, await engine.pay(p, agentId, parseWith(payBodySchema, req.body), idempotencyKey));
  });
  // An x402 seller's 402 in, the header to retry with out (signed by the agent's key, sent by the seller).
  router.post('/agents/:agentId/x402', async (req, res) => {
    const p = principal(req);
    const agentId = agentIdParam(req.params.agentId);
    const idempotencyKey = idempotencyKeyOf(req);
    // 202 with the approval when the agent's policy holds the purchase for the owner.
    respondWithOutcome(res, await engine.payX402(p, agentId, parseWith(x402PayBodySchema, req.body), idempotencyKey));
  });
  // A seller's 402 that offers sign-in in, the SIGN-IN-WITH-X header out (signed by the agent's key;
  // only where the agent paid that seller before, for that very origin). Moves no money.
  router.post('/agents/:agentId/x402/sign-in', async (req, res) => {
    const p = principal(req);
    const agentId = agentIdParam(req.params.agentId);
    res.json(await engine.signInX402(p, agentId, parseWith(x402SignInBodySchema, req.body)));
  });
  router.post('/agents/:agentId/x402/:paymentId/settlement', async (req, res) => {
    const p = principal(req);
    const { agentId, paymentId } = parseWith(paymentPathSchema, req.params);
    res.json(await engine.reportX402Settlement(p, agentId, paymentId, parseWith(x402SettledBodySchema, req.body).headers));
  });
  return router;
}
