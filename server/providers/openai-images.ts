import { z } from 'zod';
import type { ImageProvider, ImageRequest } from '../core/ports/image-provider.js';

const SIZES: Record<ImageRequest['resolution'], string> = { '1k': '1024x1024', '2k': '2048x2048', '4k': '4096x4096' };
const TIMEOUT_MS = 120_000;

// Only web addresses: the URL is handed to agents and shown as a link in the dashboard.
const responseSchema = z.object({ data: z.array(z.object({ url: z.url({ protocol: /^https?$/ }) })).min(1) });

/**
 * An image provider that speaks the OpenAI-compatible images API (`POST /v1/images/generations`),
 * which most hosted image models accept. The API key, when needed, comes from the environment.
 */
export function createOpenAiImagesProvider(baseUrl: string, apiKey: string | undefined): ImageProvider {
  const endpoint = new URL('v1/images/generations', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  return {
    async generate(request) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
          body: JSON.stringify({
            model: request.modelId,
            prompt: request.prompt,
            n: 1,
            size: SIZES[request.resolution],
            response_format: 'url',
          }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (error) {
        // Not the error's text: it can carry the provider URL, credentials included.
        // eslint-disable-next-line preserve-caught-error -- the cause may carry the provider URL with its credentials
        throw new Error(
          (error as Error).name === 'TimeoutError'
            ? 'the image provider did not answer in time'
            : 'the image provider could not be reached',
        );
      }
      const text = await response.text();
      // The provider's own error text is not passed on: it may echo request details or keys.
      if (!response.ok) throw new Error(`the image provider answered ${response.status}`);
      let parsed;
      try {
        parsed = responseSchema.safeParse(JSON.parse(text));
      } catch {
        throw new Error('image provider answered with something other than JSON');
      }
      if (!parsed.success) throw new Error('image provider answered without an image URL');
      return { url: parsed.data.data[0]!.url };
    },
  };
}
