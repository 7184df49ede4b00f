// The tools that show what an agent can buy: the registry's services and the image models.
import * as input from '../tool-inputs.js';
import * as output from '../tool-outputs.js';
import { defineTool, READ_ONLY, type ToolContext } from '../tool-definition.js';
import { dollars } from '../tool-results.js';

type Service = Awaited<ReturnType<ToolContext['api']['searchServices']>>['results'][number];

/** A registry entry as an agent reads it: its price, and how to call it from here. */
function serviceFor(ctx: ToolContext, s: Service) {
  const [method = 'GET', path = s.endpoint] = s.endpoint.includes(' ') ? s.endpoint.split(' ', 2) : [];
  const onCoffer = `${method} ${ctx.api.base}${path.replace('{agentId}', ctx.agentId)}`;
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    pricing: s.pricePerCall ? { perCall: `$${s.pricePerCall}` } : dollars(s.pricing),
    how:
      // x402 APIs (the shipped marketplace, a facilitator's Bazaar list): `endpoint` is "METHOD URL".
      s.source === 'x402-marketplace' || s.source === 'x402-bazaar'
        ? `Call fetch_paid with method ${method} and url ${path}: it pays ${s.pricePerCall ?? 'the asked price'} USDC a call within your policy.` +
          (s.base === null ? '' : ' It is paid on Base too: fetch_paid with rail "base" pays it from your Base account.')
        : s.source === 'model-registry'
          ? `Image model: ${onCoffer} with {"prompt", "modelId": "${s.id.replace(/^model:/, '')}", "resolution": "1k"|"2k"|"4k"}; the price is charged to your wallet.`
          : `${onCoffer} with your API key; the price is charged to your wallet.`,
  };
}

export const findService = defineTool({
  name: 'find_service',
  description: 'Search the registry of paid services and models (for example "weather", "image", "translate").',
  inputSchema: input.findServiceInput,
  outputSchema: output.findServiceOutput,
  annotations: READ_ONLY,
  answer: async ({ query }, { ctx }) => {
    const body = await ctx.api.searchServices(query);
    const results = body.results.map((s) => serviceFor(ctx, s));
    return {
      results,
      message: results.length
        ? `Found ${results.length} service${results.length === 1 ? '' : 's'} for "${query}".`
        : `No service in the registry matches "${query}". Try other words, or look on the x402 marketplace: any API that answers 402 with a price in USDC (Coffer terms, or x402 on Solana devnet or mainnet, or on Base where this Coffer's Base rail is open) can be paid with fetch_paid.`,
    };
  },
});

export const listModels = defineTool({
  name: 'list_models',
  description: 'Image models and their prices per resolution.',
  outputSchema: output.modelsOutput,
  annotations: READ_ONLY,
  answer: async (_input, { ctx }) => {
    const body = await ctx.api.models();
    return {
      models: body.models.map(({ id, displayName, provider, description, pricing }) => ({
        id,
        displayName,
        provider,
        description,
        pricing: dollars(pricing),
      })),
    };
  },
});
