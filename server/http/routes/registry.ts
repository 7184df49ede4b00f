import { Router } from 'express';
import { searchQuerySchema, servicesQuerySchema } from '../../wire/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { parseQuery, readTakesNoQuery } from '../validate.js';

/**
 * The registry (service search, one service, the model list) and the chain lookup paid APIs verify
 * receipts with. No auth: catalog data and on-chain transfers are public.
 */
export function registryRoutes({ engine }: RouteDeps): Router {
  const router = Router();
  router.get('/services/search', async (req, res) => {
    const { q, limit } = parseQuery(searchQuerySchema, req.query);
    res.json(await engine.searchServices(q ?? '', limit));
  });
  router.get('/services', (req, res) => {
    const { payTo } = parseQuery(servicesQuerySchema, req.query);
    res.json(engine.servicesPaidTo(payTo));
  });
  router.get('/services/:serviceId', readTakesNoQuery, (req, res) => {
    res.json(engine.service(String(req.params.serviceId)));
  });
  router.get('/models', readTakesNoQuery, (_req, res) => {
    res.json(engine.listModels());
  });
  router.get('/chain/transactions/:signature', readTakesNoQuery, async (req, res) => {
    res.json(await engine.lookupTransfer(String(req.params.signature)));
  });
  return router;
}
