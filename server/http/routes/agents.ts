import { Router } from 'express';
import {
  allocateBodySchema,
  returnBodySchema,
  deployBodySchema,
  policyUpdateSchema,
  renameBodySchema,
  spendHistoryQuerySchema,
} from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { agentIdParam, idempotencyKeyOf, noBody, parseQuery, parseWith, readTakesNoQuery } from '../validate.js';
import { respondWithOutcome } from '../respond.js';
import { sendJsonInSlices } from '../json-in-slices.js';

/** Agents: deploy, list, balance, policy, allocate, kill/resume, rename, spend history. */
export function agentRoutes({ engine, principal }: RouteDeps): Router {
  const router = Router();

  router.post('/agents/deploy', async (req, res) => {
    const p = principal(req);
    const body = parseWith(deployBodySchema, req.body);
    const idempotencyKey = idempotencyKeyOf(req);
    respondWithOutcome(res, await engine.deployAgent(p, body, idempotencyKey));
  });
  router.get('/agents', readTakesNoQuery, async (req, res) => {
    await sendJsonInSlices(res, await engine.listAgents(principal(req)));
  });
  router.post('/kill-all', (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(engine.killAll(p));
  });
  router.post('/resume-all', (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(engine.resumeAll(p));
  });
  router.get('/agents/:agentId/balance', readTakesNoQuery, async (req, res) => {
    res.json(await engine.balance(principal(req), agentIdParam(req.params.agentId)));
  });
  router.get('/agents/:agentId/policy', readTakesNoQuery, (req, res) => {
    res.json(engine.readPolicy(principal(req), agentIdParam(req.params.agentId)));
  });
  router.post('/agents/:agentId/policy', (req, res) => {
    const p = principal(req);
    respondWithOutcome(res, engine.updatePolicy(p, agentIdParam(req.params.agentId), parseWith(policyUpdateSchema, req.body)));
  });
  // A policy change tried on the last 30 days before it is saved: reads only, replayed off this thread.
  router.post('/agents/:agentId/policy/what-if', async (req, res) => {
    const p = principal(req);
    res.json(await engine.policyWhatIf(p, agentIdParam(req.params.agentId), parseWith(policyUpdateSchema, req.body)));
  });
  router.post('/agents/:agentId/allocate', async (req, res) => {
    const p = principal(req);
    const { amount, rail } = parseWith(allocateBodySchema, req.body);
    const idempotencyKey = idempotencyKeyOf(req);
    respondWithOutcome(res, await engine.allocate(p, agentIdParam(req.params.agentId), amount, idempotencyKey, rail));
  });
  router.post('/agents/:agentId/return', async (req, res) => {
    const p = principal(req);
    const { amount, rail } = parseWith(returnBodySchema, req.body ?? {});
    const idempotencyKey = idempotencyKeyOf(req);
    res.json(await engine.returnFunds(p, agentIdParam(req.params.agentId), amount ?? null, idempotencyKey, rail));
  });
  router.post('/agents/:agentId/archive', async (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(await engine.archive(p, agentIdParam(req.params.agentId)));
  });
  router.post('/agents/:agentId/kill', (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(engine.kill(p, agentIdParam(req.params.agentId)));
  });
  router.post('/agents/:agentId/resume', (req, res) => {
    const p = principal(req);
    noBody(req.body);
    respondWithOutcome(res, engine.resume(p, agentIdParam(req.params.agentId)));
  });
  router.post('/agents/:agentId/rename', (req, res) => {
    const p = principal(req);
    res.json(engine.rename(p, agentIdParam(req.params.agentId), parseWith(renameBodySchema, req.body).displayName));
  });
  router.post('/agents/:agentId/key', (req, res) => {
    const p = principal(req);
    noBody(req.body);
    res.json(engine.replaceKey(p, agentIdParam(req.params.agentId)));
  });
  router.get('/agents/:agentId/spend-history', (req, res) => {
    const p = principal(req);
    const { limit } = parseQuery(spendHistoryQuerySchema, req.query);
    res.json(engine.spendHistory(p, agentIdParam(req.params.agentId), limit));
  });
  return router;
}
