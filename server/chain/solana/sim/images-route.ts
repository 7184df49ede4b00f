import { Router } from 'express';
import { CofferError } from '../../../wire/errors.js';
import { renderSimImage, SIM_IMAGE_FILE, simImageQuerySchema } from './images.js';
import { sendError } from '../../../http/errors.js';

/**
 * The sim network's generated images (`/sim-images/<id>.svg?model=&resolution=`): drawn on request
 * from the URL alone, public like any image URL a provider hands out. Only mounted on the sim chain.
 */
export function simImageRoutes(): Router {
  const router = Router();
  router.get('/sim-images/:file', (req, res) => {
    const id = SIM_IMAGE_FILE.exec(String(req.params.file))?.[1];
    const query = simImageQuerySchema.safeParse(req.query);
    if (id === undefined || !query.success) {
      return sendError(res, new CofferError('not_found', 'no such sim image'));
    }
    // An SVG is a document: no script runs in it, whatever a browser makes of it.
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.setHeader('Cache-Control', 'public, max-age=86400, immutable');
    res.type('image/svg+xml').send(renderSimImage(id, query.data));
  });
  return router;
}
