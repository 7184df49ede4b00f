// The commands a terminal runs as its linked agent: linking it, its status, paying, fetching, the MCP bridge.
import { agentCredentials, defaultConfigPath, linkedHere } from '../../linked-agent/agent-config.js';
import { readOwnerConnection } from '../owner-connection.js';
import { defineCommand, UsageError } from '../command-line.js';
import { railOption } from './rail-option.js';

// Each command loads what it runs, and only that: `coffer --version` loads no engine, `coffer serve`
// no MCP SDK, `coffer mcp` no engine.
const agentCommands = () => import('../commands/agent-commands.js');

/** The running Coffer's URL from its connection file, else the default port. */
function serverUrl(dataDir?: string): string {
  try {
    return readOwnerConnection(dataDir).url;
  } catch {
    return `http://127.0.0.1:${process.env.COFFER_PORT || 7402}`;
  }
}

export const link = defineCommand({
  name: 'link',
  usage: `  coffer link [--url URL] [--data-dir DIR] [--config FILE] [--force]
                 link this terminal to the owner's Coffer: the owner approves in the browser,
                 the agent's key is saved to FILE (0600; default in your config dir)`,
  options: {
    url: { type: 'string' },
    config: { type: 'string' },
    'data-dir': { type: 'string' },
    force: { type: 'boolean', default: false },
  },
  run: async ({ values }) => {
    const url = values.url ?? process.env.COFFER_URL ?? serverUrl(values['data-dir']);
    return (await import('../commands/link.js')).link({ url, configPath: values.config ?? defaultConfigPath(), force: values.force });
  },
});

export const status = defineCommand({
  name: 'status',
  usage: `  coffer status [--config FILE] [--owner] [--data-dir DIR] [--json]
                 the linked agent's balance, policy and recent payments; as the owner (--owner,
                 --data-dir, or where no agent is linked): the treasury, each agent and what waits`,
  options: {
    config: { type: 'string' },
    owner: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  run: async ({ values }) => {
    const configPath = values.config ?? defaultConfigPath();
    // The linked agent's, unless the owner's is asked for (or no agent is linked here).
    const asOwner = values.config === undefined && (values.owner || values['data-dir'] !== undefined || !linkedHere(configPath));
    if (asOwner) return (await import('../commands/owner-status.js')).ownerStatus({ dataDir: values['data-dir'], json: values.json });
    return (await agentCommands()).status(configPath, { json: values.json });
  },
});

export const activity = defineCommand({
  name: 'activity',
  usage: `  coffer activity [<agent>] [--refusals] [--limit N] [--config FILE] [--data-dir DIR] [--json]
                 payments, newest first: the linked agent's own; as the owner (another agent named,
                 --data-dir, or where no agent is linked) one agent's, or the last 20 across every
                 agent; --refusals: the payments the policies refused (owner); --limit: how many of
                 one agent's (20; at most 500)`,
  options: {
    config: { type: 'string' },
    'data-dir': { type: 'string' },
    refusals: { type: 'boolean', default: false },
    limit: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`coffer activity takes one agent at a time, not also "${extra}"`, 'activity');
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500))
      throw new UsageError(`--limit is a whole number from 1 to 500, not "${values.limit}"`, 'activity');
    const configPath = values.config ?? defaultConfigPath();
    const reader = linkedReader(configPath, agentId, values.config !== undefined, values['data-dir']);
    if (reader.as === 'agent' && values.refusals)
      throw new UsageError(
        "the refusals are the owner's to read: coffer activity --refusals --data-dir DIR, where Coffer runs",
        'activity',
      );
    if (limit !== undefined && reader.as === 'owner' && agentId === undefined)
      throw new UsageError("--limit counts one agent's payments: name the agent (the view across agents is the last 20)", 'activity');
    return (await import('../commands/activity.js')).activityCommand({
      reader,
      agentId,
      refusals: values.refusals,
      limit,
      json: values.json,
    });
  },
});

/**
 * Who reads, as `coffer status` and `coffer policy` decide it: the linked agent, for itself (its
 * config named, or nothing else asked); else the owner of the data dir's Coffer.
 */
function linkedReader(configPath: string, agentId: string | undefined, configNamed: boolean, dataDir: string | undefined) {
  if (configNamed) return { as: 'agent', configPath } as const;
  if (dataDir !== undefined || !linkedHere(configPath)) return { as: 'owner', dataDir } as const;
  if (agentId === undefined) return { as: 'agent', configPath } as const;
  let self: string | null = null;
  try {
    self = agentCredentials(configPath).agentId;
  } catch {
    // a config that cannot be read: the owner reads
  }
  return agentId === self ? ({ as: 'agent', configPath } as const) : ({ as: 'owner', dataDir } as const);
}

export const pay = defineCommand({
  name: 'pay',
  usage: `  coffer pay <service> <amount> [--recipient ADDR] [--rail sol|base] [--nonce N] [--description TEXT] [--receipt] [--config FILE]
                 pay from the linked agent's wallet, within its policy; prints the receipt
                 (--rail base: a registry service's Base address, from the agent's Base account; an
                 EVM --recipient is paid on Base without it)
                 (--receipt: only the X-Payment value, to send at once: with \`coffer demo-api\` running,
                 curl -H "X-Payment: $(coffer pay demo-weather 0.01 --receipt)" http://127.0.0.1:7403/weather?city=Lisbon);
                 without --nonce a Coffer paywall takes the receipt once, up to 300 s (its default)
                 after it lands, and a registry service is paid at least its listed price (less is
                 refused, nothing is paid)`,
  options: {
    config: { type: 'string' },
    recipient: { type: 'string' },
    rail: { type: 'string' },
    nonce: { type: 'string' },
    description: { type: 'string' },
    receipt: { type: 'boolean', default: false },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [service, amount, extra] = positionals;
    if (!service) throw new UsageError('which service to pay? (a registry id, or a name with --recipient)', 'pay');
    if (!amount) throw new UsageError('how much to pay? (USDC, such as 0.01)', 'pay');
    if (extra !== undefined) throw new UsageError(`coffer pay takes a service and an amount, not "${extra}"`, 'pay');
    return (await agentCommands()).payCommand(values.config ?? defaultConfigPath(), {
      service,
      amount,
      recipient: values.recipient,
      rail: railOption(values.rail, 'pay'),
      nonce: values.nonce,
      description: values.description,
      receiptOnly: values.receipt ?? false,
    });
  },
});

export const fetch = defineCommand({
  name: 'fetch',
  usage: `  coffer fetch <url> [--method M] [--header 'Name: value']... [--data BODY] [--rail sol|base] [--config FILE]
                 call a URL as the linked agent; a 402 (Coffer's or x402) is paid within its policy,
                 the body bought goes to stdout, what was paid to stderr (--rail: paid on that
                 rail, or refused where the 402 does not offer it; left out, an x402 offer on both
                 rails is paid on the owner's preferred rail where the wallet there holds the
                 amount, else on the one whose wallet does, and Coffer's own 402 on Solana)`,
  options: {
    config: { type: 'string' },
    rail: { type: 'string' },
    method: { type: 'string' },
    header: { type: 'string', multiple: true },
    data: { type: 'string' },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [url] = positionals;
    if (!url) throw new UsageError('which URL to fetch?', 'fetch');
    if (positionals.length > 1) throw new UsageError(`coffer fetch takes one URL, not also "${positionals[1]}"`, 'fetch');
    return (await import('../commands/fetch-command.js')).fetchCommand(values.config ?? defaultConfigPath(), {
      url,
      method: values.method,
      headers: values.header ?? [],
      data: values.data,
      rail: railOption(values.rail, 'fetch'),
    });
  },
});

export const mcp = defineCommand({
  name: 'mcp',
  usage: `  coffer mcp [--config FILE]
                 the MCP tool server (stdio) for the linked agent`,
  // `--no-sandbox`: what an AppImage's launch carries (electron/mcp-launch.ts); it means nothing here.
  options: { config: { type: 'string' }, 'no-sandbox': { type: 'boolean' } },
  run: async ({ values }, { version }) =>
    (await import('../../mcp/mcp-server.js')).runMcpServer({ configPath: values.config ?? defaultConfigPath(), version }),
});

/** A terminal's reads of the registry: the linked agent's Coffer, else the data dir's, else the default port. */
const registryOptions = { config: { type: 'string' }, 'data-dir': { type: 'string' }, json: { type: 'boolean', default: false } } as const;
const registryCommands = () => import('../commands/registry.js');

export const services = defineCommand({
  name: 'services',
  usage: `  coffer services [<query>] [--limit N] [--config FILE] [--data-dir DIR] [--json]
                 the registry's services agents may pay (the catalog, and the x402 Bazaar where it
                 is on), matching the query: each one's id, price, rails and endpoint`,
  options: { ...registryOptions, limit: { type: 'string' } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const query = positionals.join(' ').trim() || undefined;
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100))
      throw new UsageError(`--limit is a whole number from 1 to 100, not "${values.limit}"`, 'services');
    const { registryUrl, servicesCommand } = await registryCommands();
    return servicesCommand({ url: registryUrl(values.config ?? defaultConfigPath(), values['data-dir']), query, limit, json: values.json });
  },
});

export const models = defineCommand({
  name: 'models',
  usage: `  coffer models [--config FILE] [--data-dir DIR] [--json]
                 the image models an agent buys images from (POST /v1/agents/ID/generate), each
                 price a resolution`,
  options: registryOptions,
  run: async ({ values }) => {
    const { registryUrl, modelsCommand } = await registryCommands();
    return modelsCommand({ url: registryUrl(values.config ?? defaultConfigPath(), values['data-dir']), json: values.json });
  },
});
