// The commands that set and stop agents, the owner's settings, and the dashboard.
import { defaultConfigPath } from '../../linked-agent/agent-config.js';
import { defineCommand, UsageError } from '../command-line.js';
import type { Actor } from '../who-acts.js';
import { preferredRailOption } from './rail-option.js';
import { POLICY_FLAGS_USAGE, policyFlagOptions } from './policy-options.js';

const agentCommands = () => import('../commands/agent-commands.js');

export const policy = defineCommand({
  name: 'policy',
  usage: `  coffer policy [<agent>] ${POLICY_FLAGS_USAGE}
                 [--what-if] [--yes] [--config FILE] [--data-dir DIR] [--json]
                 show the linked agent's policy, each budget now; with flags, change it first (what
                 tightens applies, what loosens asks the owner); another agent's, or any with
                 --data-dir, as the owner, at once, but what loosens it as the dashboard asks about
                 (a limit raised tenfold, a daily budget above the treasury, a budget, end, breaker,
                 warning or ask dropped or eased) is asked first, or needs --yes where no terminal
                 answers. --what-if: try the change on the agent's last 30 days instead (what it
                 would have refused or held), nothing saved.
                 WINDOW: hour, 24h, 7d, 30d (rolling), day, week, month (calendar), lifetime;
                 SCOPE: a registry service or a recipient address. Budgets replace the list
                 (--budget none: no budgets), kept as the --budget ones in the order typed, then the
                 --count ones (a refusal names the first a payment passes), and --breaker the breaker (name both its rules to
                 keep both). Payments above --ask-above (0: every one) and the first to a new
                 recipient (--ask-new-recipient yes) wait for the owner's yes. Examples:
                   coffer policy --budget 50/month --budget 2/day:demo-weather --count 30/hour
                   coffer policy --expires 2026-12-31 --warn-at 50,90
                   coffer policy researcher --breaker 5/10m --breaker 50%/15m
                   coffer policy researcher --ask-above 0.25 --ask-new-recipient yes
                   coffer policy researcher --max 0.05 --what-if`,
  options: {
    config: { type: 'string' },
    'data-dir': { type: 'string' },
    json: { type: 'boolean', default: false },
    ...policyFlagOptions,
    'what-if': { type: 'boolean', default: false },
    yes: { type: 'boolean', default: false },
  },
  positionals: true,
  run: async ({ values, positionals }) => {
    const [agentId, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`coffer policy takes one agent at a time, not also "${extra}"`, 'policy');
    const { config, 'data-dir': dataDir, json, 'what-if': whatIf, yes, ...flags } = values;
    const { policyCommand } = await import('../commands/policy.js');
    const { PolicyFlagError, namingFlags } = await import('../policy-flags.js');
    const { whoActs } = await import('../who-acts.js');
    try {
      return await policyCommand(whoActs({ config, dataDir, agentId }), { agentId, flags, whatIf, json, yes });
    } catch (error) {
      if (error instanceof PolicyFlagError) throw new UsageError(error.message, 'policy');
      throw namingFlags(error);
    }
  },
});

export const settings = defineCommand({
  name: 'settings',
  usage: `  coffer settings [--time-zone ZONE|machine] [--preferred-rail sol|base|none] [--bazaar URL|off]
                 [--bazaar-refresh] [--data-dir DIR] [--json]
                 the owner's time zone, where calendar budgets (day, week, month) begin and the day
                 a policy ends; --time-zone Europe/Berlin sets it, --time-zone machine follows this
                 machine again (owner). --preferred-rail base pays on Base where a seller takes
                 both (an x402 seller, or a Coffer paywall offering Base) and the agent's wallet
                 there holds the amount (none: where the funds are, Solana first).
                 --bazaar https://api.cdp.coinbase.com/platform/v2/x402 lists that facilitator's x402
                 Bazaar services in the registry, beside the catalog (cached, read again every 10
                 minutes when searched; off: none, the default); --bazaar-refresh reads its list
                 now; --json: the settings' answer, the Bazaar's under "bazaar"`,
  options: {
    'time-zone': { type: 'string' },
    'preferred-rail': { type: 'string' },
    bazaar: { type: 'string' },
    'bazaar-refresh': { type: 'boolean' },
    'data-dir': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  run: async ({ values }) => {
    // Turned off, nothing is left to read: refused before anything is saved (a failed command changes nothing).
    if (values.bazaar === 'off' && values['bazaar-refresh'] === true)
      throw new UsageError('--bazaar off and --bazaar-refresh: with Bazaar discovery off there is no list to read', 'settings');
    return (await import('../commands/settings.js')).settingsCommand({
      json: values.json,
      timeZone: values['time-zone'],
      preferredRail: preferredRailOption(values['preferred-rail'], 'settings'),
      bazaar: values.bazaar,
      bazaarRefresh: values['bazaar-refresh'],
      dataDir: values['data-dir'],
    });
  },
});

/** `coffer kill` and `coffer resume`: the linked agent, one agent or all of them. */
const stopOrResume = (name: 'kill' | 'resume', usage: string) =>
  defineCommand({
    name,
    usage,
    options: { config: { type: 'string' }, all: { type: 'boolean', default: false }, 'data-dir': { type: 'string' } },
    positionals: true,
    run: async ({ values, positionals }) => {
      const [agentId, extra] = positionals;
      if (agentId !== undefined && values.all) throw new UsageError(`name one agent or --all, not both ("${agentId}" and --all)`, name);
      if (extra !== undefined) throw new UsageError(`coffer ${name} takes one agent at a time (or --all), not also "${extra}"`, name);
      const target = { agentId, all: values.all ?? false, dataDir: values['data-dir'] };
      const commands = await agentCommands();
      const { whoActs } = await import('../who-acts.js');
      // The owner (--data-dir, or a terminal no agent is linked in) names whom to resume, as for kill:
      // without a name a linked terminal's agent would ask the owner, through its key, to resume it.
      // Without an agent named, who acts reads no config (whoActs): this never fails on a damaged one.
      const asOwner = whoActs({ config: values.config, dataDir: target.dataDir }).as === 'owner';
      if (name === 'resume' && agentId === undefined && !target.all && asOwner)
        throw new UsageError(
          'name the agent to resume, or --all: coffer resume <agent> as the owner (a linked terminal asks the owner with coffer resume alone)',
          name,
        );
      if (name === 'resume') return commands.resume(values.config ?? defaultConfigPath(), target);
      if (target.all) return commands.killAll(target);
      let actor: Actor;
      try {
        actor = whoActs({ config: values.config, dataDir: target.dataDir, agentId });
      } catch (error) {
        // A linked config that cannot be read (damaged, half set in the environment) never holds back
        // the owner's brake on an agent named: the owner's connection file stops it.
        if (agentId === undefined) throw error;
        actor = { as: 'owner', dataDir: target.dataDir, linkedAs: null };
      }
      if (actor.as === 'owner' && agentId === undefined)
        throw new UsageError(
          'name the agent to stop, or --all: coffer kill <agent> as the owner (a linked terminal stops its own agent with coffer kill alone)',
          name,
        );
      return commands.kill(actor, agentId);
    },
  });

export const kill = stopOrResume(
  'kill',
  `  coffer kill [<agent> | --all] [--config FILE] [--data-dir DIR]
                 stop the linked agent, another agent or all of them (the last two as owner)`,
);

export const resume = stopOrResume(
  'resume',
  `  coffer resume [<agent> | --all] [--config FILE] [--data-dir DIR]
                 resume another agent or all of them (as owner); without either, the linked agent
                 asks the owner to resume it`,
);

export const open = defineCommand({
  name: 'open',
  usage: `  coffer open [--data-dir DIR]
                 open the dashboard, signed in (owner)`,
  options: { 'data-dir': { type: 'string' } },
  run: async ({ values }) => (await agentCommands()).open({ dataDir: values['data-dir'] }),
});
