/**
 * The sim network's image provider: test USDC buys test pictures. Nothing leaves the machine; the
 * "image" is an SVG drawn from a hash of the request, served by Coffer itself at /sim-images, so an
 * agent can run the whole generate flow (charge, queue, poll, fetch the result) before real money.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ImageProvider, ImageRequest } from '../../../core/ports/image-provider.js';

const SIDE: Record<ImageRequest['resolution'], number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

/** What a sim image URL names: everything needed to draw it again, so nothing is stored. */
export const simImageQuerySchema = z.strictObject({
  model: z.string().regex(/^[A-Za-z0-9:._-]{1,64}$/),
  resolution: z.enum(['1k', '2k', '4k']),
});
export const SIM_IMAGE_FILE = /^([0-9a-f]{24})\.svg$/;

export function createSimImageProvider(baseUrl: () => string): ImageProvider {
  return {
    generate(request) {
      const id = createHash('sha256')
        .update(JSON.stringify([request.modelId, request.resolution, request.prompt]))
        .digest('hex')
        .slice(0, 24);
      const query = new URLSearchParams({ model: request.modelId, resolution: request.resolution });
      return Promise.resolve({ url: `${baseUrl()}/sim-images/${id}.svg?${query.toString()}` });
    },
  };
}

/**
 * Draws the picture for an id: a gradient and a few translucent shapes whose colours and places
 * come from the id's bytes (the same id, the same picture), with a caption saying what it is.
 */
export function renderSimImage(id: string, query: z.infer<typeof simImageQuerySchema>): string {
  const side = SIDE[query.resolution];
  const bytes = createHash('sha256').update(id).digest();
  const at = (i: number) => bytes[i % bytes.length]!;
  const hue = (i: number) => Math.round((at(i) / 255) * 360);
  const shapes = Array.from({ length: 9 }, (_, k) => {
    const x = Math.round((at(3 * k + 2) / 255) * side);
    const y = Math.round((at(3 * k + 3) / 255) * side);
    const r = Math.round(side * (0.06 + (at(3 * k + 4) / 255) * 0.22));
    const fill = `hsl(${hue(k + 5)} 70% 60% / 0.55)`;
    return k % 3 === 0
      ? `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" rx="${Math.round(r / 4)}" fill="${fill}" transform="rotate(${at(k + 20) % 90} ${x} ${y})"/>`
      : `<circle cx="${x}" cy="${y}" r="${r}" fill="${fill}"/>`;
  }).join('');
  const font = Math.round(side / 36);
  const band = Math.round(font * 3.4);
  // The model id is checked against a strict pattern, so it needs no escaping in the caption.
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}" viewBox="0 0 ${side} ${side}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue(0)} 55% 28%)"/><stop offset="1" stop-color="hsl(${hue(1)} 60% 45%)"/></linearGradient></defs>
<rect width="${side}" height="${side}" fill="url(#g)"/>${shapes}
<rect y="${side - band}" width="${side}" height="${band}" fill="#000" fill-opacity="0.45"/>
<text x="${font}" y="${side - band + Math.round(font * 1.4)}" font-family="sans-serif" font-size="${font}" fill="#fff">Coffer sim image (test USDC) · ${query.model} · ${query.resolution}</text>
<text x="${font}" y="${side - band + Math.round(font * 2.7)}" font-family="monospace" font-size="${Math.round(font * 0.8)}" fill="#fff" fill-opacity="0.8">${id}</text>
</svg>
`;
}
