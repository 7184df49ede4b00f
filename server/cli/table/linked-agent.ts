// The commands a terminal runs as its linked agent (linking it, its status and payments, paying, fetching,
// the MCP bridge), the reads it shares with the owner (activity, images: who-acts.ts decides who acts) and
// the public registry (services, models).
import { defaultConfigPath } from '../../linked-agent/agent-config.js';
import { runningCofferUrl } from '../owner-connection.js';
import { limitOption } from './limit-option.js';
import { LIST_LIMITS } from '../../wire/limits.js';
import { defineCommand, UsageError } from '../command-line.js';
import { railOption } from './rail-option.js';
import { amountArgument } from './amount-argument.js';
import { APPROVAL_ID } from '../../wire/approval-id.js';

// Each command loads what it runs, and only that: `coffer --version` loads no engine, `coffer serve`
// no MCP SDK, `coffer mcp` no engine.
const agentCommands = () => import('../commands/agent-commands.js');

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
    const url = values.url ?? process.env.COFFER_URL ?? runningCofferUrl(values['data-dir']);
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
    const { whoActs, ownerOf } = await import('../who-acts.js');
    const actor = whoActs({ config: values.config, dataDir: values['data-dir'], owner: values.owner });
    if (actor.as === 'owner') {
      const connection = ownerOf(actor, "the owner's status");
      return (await import('../commands/owner-status.js')).ownerStatus({ dataDir: actor.dataDir, json: values.json, connection });
    }
    return (await agentCommands()).status(actor.configPath, { json: values.json });
  },
});

export const activity = defineCommand({
  name: 'activity',
  usage: `  coffer activity [<agent>] [--refusals] [--limit N] [--config FILE] [--data-dir DIR] [--json]
                 payments, newest first: the linked agent's own; as the owner (another agent named,
                 --data-dir, or where no agent is linked) one agent's, or the last 20 across every
                 agent; --refusals: the last 20 payments the policies refused, across agents or one
                 agent's among them (owner; the same refusal again within 10 s, an agent retrying in a
                 loop, is listed once); --limit: how many (20; one agent's at most 500, across
                 agents the last 20 at most)`,
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
    const limit = limitOption(values.limit, LIST_LIMITS.spendHistory, 'activity');
    const { whoActs } = await import('../who-acts.js');
    const actor = whoActs({ config: values.config, dataDir: values['data-dir'], agentId });
    if (actor.as === 'agent' && values.refusals)
      throw new UsageError(
        "the refusals are the owner's to read: coffer activity --refusals --data-dir DIR, where Coffer runs",
        'activity',
      );
    return (await import('../commands/activity.js')).activityCommand(actor, {
      agentId,
      refusals: values.refusals,
      limit,
      json: values.json,
    });
  },
});

export const images = defineCommand({
  name: 'images',
  usage: `  coffer images [<agent>] [--limit N] [--config FILE] [--data-dir DIR] [--json]
                 the image tasks an agent paid for, newest first: when, what it cost, the model,
                 the image's URL (or why it failed and its refund), the prompt; the linked agent's
                 own, or as the owner any agent's (--limit: 1 to 100)`,
  options: {
    config: { type: 'string' },
    'data-dir': { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`coffer images takes one agent at a time, not also "${extra}"`, 'images');
    const limit = limitOption(values.limit, LIST_LIMITS.tasks, 'images');
    const { whoActs } = await import('../who-acts.js');
    const actor = whoActs({ config: values.config, dataDir: values['data-dir'], agentId });
    if (actor.as === 'owner' && agentId === undefined) throw new UsageError('name the agent whose images to list (as the owner)', 'images');
    return (await import('../commands/images.js')).imagesCommand(actor, { agentId, limit, json: values.json });
  },
});

export const pay = defineCommand({
  name: 'pay',
  usage: `  coffer pay <service> <amount> [--recipient ADDR] [--rail sol|base] [--nonce N] [--description TEXT] [--receipt] [--approval ID] [--config FILE]
                 pay from the linked agent's wallet, within its policy; prints the receipt.
                 <service>: a registry id (coffer services lists them), paid its listed price (less or
                   more is refused, nothing paid); or any name, with --recipient ADDR.
                 The rail: Base with --rail base (a registry service's Base address, from the agent's
                   Base account) or for an EVM --recipient (0x...); else Solana. The owner's preferred
                   rail (coffer settings) chooses for the 402s coffer fetch pays, not here.
                 --receipt: only the X-Payment value, to send at once; with \`coffer demo-api\` running:
                   curl -H "X-Payment: $(coffer pay demo-weather 0.01 --receipt)" http://127.0.0.1:7403/weather?city=Lisbon
                 --nonce N: the paywall's nonce; without it a Coffer paywall takes the receipt once,
                   up to 300 s (its default) after it lands.
                 A payment the policy holds for the owner is waited for until the owner decides;
                   interrupted, its request is withdrawn.
                 --approval ID (the service and the amount both left out, or both given): the request
                   an earlier pay left waiting when it was killed, waited for and its receipt printed,
                   never paid anew`,
  options: {
    config: { type: 'string' },
    approval: { type: 'string' },
    recipient: { type: 'string' },
    rail: { type: 'string' },
    nonce: { type: 'string' },
    description: { type: 'string' },
    receipt: { type: 'boolean', default: false },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [service, amount, extra] = positionals;
    const approvalId = approvalOption(values.approval, 'pay');
    if (extra !== undefined) throw new UsageError(`coffer pay takes a service and an amount, not "${extra}"`, 'pay');
    const terms = {
      recipient: values.recipient,
      rail: railOption(values.rail, 'pay'),
      nonce: values.nonce,
      description: values.description,
      receiptOnly: values.receipt ?? false,
    };
    const configPath = values.config ?? defaultConfigPath();
    // Picking a request up, the service and amount may be left out (both: the request says them).
    if (approvalId !== undefined && service === undefined) return (await agentCommands()).payCommand(configPath, { ...terms, approvalId });
    if (!service) throw new UsageError('which service to pay? (a registry id, or a name with --recipient)', 'pay');
    if (!amount && approvalId !== undefined)
      throw new UsageError('with --approval, name both the service and the amount, or neither (the request says them)', 'pay');
    if (!amount) throw new UsageError('how much to pay? (USDC, such as 0.01)', 'pay');
    return (await agentCommands()).payCommand(configPath, {
      ...terms,
      service,
      amount: amountArgument(amount, 'pay', 'the service first, then the amount', service),
      ...(approvalId === undefined ? {} : { approvalId }),
    });
  },
});

export const fetch = defineCommand({
  name: 'fetch',
  usage: `  coffer fetch <url> [--method M] [--header 'Name: value']... [--data BODY] [--rail sol|base] [--approval ID] [--config FILE]
                 call a URL as the linked agent; a 402 (Coffer's or x402) is paid within its policy,
                 the body bought goes to stdout, what was paid to stderr (--rail: paid on that
                 rail, or refused where the 402 does not offer it; left out, a 402 payable on both
                 rails, an x402 offer or Coffer's own offering Base, is paid on the owner's preferred
                 rail where the wallet there holds the amount, else on the one whose wallet does,
                 Solana first); a payment the policy holds for the owner is waited for until the
                 owner decides or the request ends (a day at most; for a Coffer paywall's 402, its
                 nonce's end, 5 minutes by default); interrupted, its request is withdrawn;
                 --approval: the request an earlier fetch of this route (method and path) left
                 waiting when it was killed, used rather than asked anew`,
  options: {
    config: { type: 'string' },
    rail: { type: 'string' },
    method: { type: 'string' },
    header: { type: 'string', multiple: true },
    data: { type: 'string' },
    approval: { type: 'string' },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [url] = positionals;
    if (!url) throw new UsageError('which URL to fetch?', 'fetch');
    if (positionals.length > 1) throw new UsageError(`coffer fetch takes one URL, not also "${positionals[1]}"`, 'fetch');
    const protocol = URL.canParse(url) ? new URL(url).protocol : null;
    // "127.0.0.1:7403/x" is no URL, and "localhost:7403/x" one of a scheme "localhost:": neither is a call to make.
    if (protocol !== 'http:' && protocol !== 'https:') {
      // A suggestion only where one would be a URL ("127.0.0.1:7403/x"; never "not a url"): http for
      // this machine's servers (a paywall, a demo), https for a host elsewhere (as paid APIs are).
      const bare = url.replace(/^\/+/, '');
      const host = URL.canParse(`http://${bare}`) ? new URL(`http://${bare}`).hostname : '';
      const local = /^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\])$/.test(host) || host.endsWith('.localhost');
      const suggestion = `${local ? 'http' : 'https'}://${bare}`;
      // A URL of another scheme ("ftp://…") is one already: nothing is put before it.
      const ownScheme = /^[a-z][a-z\d+.-]*:\/\//i.test(url);
      throw new UsageError(
        URL.canParse(suggestion) && !/\s/.test(url) && !ownScheme
          ? `"${url}" is not an http or https URL: did you mean ${suggestion}?`
          : `"${url}" is not an http or https URL (one starts with http:// or https://)`,
        'fetch',
      );
    }
    // A method is an HTTP token (RFC 9110): "GE T" was sent and "could not be reached".
    if (values.method !== undefined && !/^[!#$%&'*+.^_`|~\dA-Za-z-]+$/.test(values.method)) {
      throw new UsageError(`--method "${values.method}" is no HTTP method (GET, POST, PUT, DELETE, …)`, 'fetch');
    }
    // fetch sends no body with GET or HEAD (curl would): said as the mistake it is, nothing called.
    if (values.data !== undefined && /^(get|head)$/i.test(values.method ?? '')) {
      throw new UsageError(
        `a ${values.method!.toUpperCase()} request carries no body: leave --data out, or send it with --method POST or PUT`,
        'fetch',
      );
    }
    return (await import('../commands/fetch-command.js')).fetchCommand(values.config ?? defaultConfigPath(), {
      url,
      method: values.method,
      headers: (values.header ?? []).map(headerOption),
      data: values.data,
      rail: railOption(values.rail, 'fetch'),
      approvalId: approvalOption(values.approval, 'fetch'),
    });
  },
});

export const mcp = defineCommand({
  name: 'mcp',
  usage: `  coffer mcp [--config FILE]
                 the MCP tool server (stdio) for an agent: the one --config names, else the one
                 COFFER_URL, COFFER_OWNER, COFFER_AGENT_ID and COFFER_API_KEY name together (the
                 mcpConfig that deploy, key and link print sets them), else the linked agent`,
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
                 is on), matching the query: each one's id, price, rails and endpoint; --limit: the
                 first N (the image models are coffer models's)`,
  options: { ...registryOptions, limit: { type: 'string' } },
  positionals: true,
  run: async ({ values, positionals }) => {
    const query = positionals.join(' ').trim() || undefined;
    const limit = limitOption(values.limit, LIST_LIMITS.search, 'services');
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

/** `--approval`: a held request's id (apr_…), as Coffer writes it; anything else is a usage error. */
function approvalOption(value: string | undefined, command: string): string | undefined {
  if (value !== undefined && !APPROVAL_ID.test(value))
    throw new UsageError(`--approval takes a request's id (apr_…), not "${value}"`, command);
  return value;
}

/**
 * One `--header 'Name: value'`: a usage error (exit 2, before anything is asked) where it is not one a
 * request can carry, as curl's -H would be ("Authorization Bearer x", a name with a space).
 */
function headerOption(line: string): [name: string, value: string] {
  const colon = line.indexOf(':');
  const header: [string, string] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  try {
    if (colon <= 0) throw new TypeError('no name');
    new Headers([header]);
  } catch {
    throw new UsageError(`--header must be "Name: value", a header a request can carry (got "${line}")`, 'fetch');
  }
  return header;
}
