import { Router } from 'express';
import { searchQuerySchema } from '../../core/schemas.js';
import type { RouteDeps } from './route-deps.js';
import { parseWith } from '../validate.js';

/** The registry: service search and the model list. No auth: it is public catalog data. */
export function registryRoutes({ engine }: RouteDeps): Router {
  const router = Router();
  router.get('/services/search', (req, res) => {
    const { q, limit } = parseWith(searchQuerySchema, { q: req.query.q, limit: req.query.limit });
    res.json(engine.searchServices(q ?? '', limit));
  });
  router.get('/models', (_req, res) => {
    res.json(engine.listModels());
  });
  return router;
}
