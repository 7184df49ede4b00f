/**
 * Who acts for a command that a linked terminal and the owner both run (`status`, `policy`,
 * `activity`): the linked agent, for itself, with its key; or the owner, with the owner key of a
 * data dir's running Coffer. One rule for each of them:
 * - the owner where asked (`--owner`, `--data-dir`), where no agent is linked here, or where an agent
 *   other than the linked one is named (an agent's key reads and sets only its own);
 * - else the linked agent (its config named with `--config`, or found where it is kept).
 */
import { CofferApiError } from '../client/client-error.js';
import { keyClient, type CofferClient } from '../client/coffer-client.js';
import { agentCredentials, defaultConfigPath, linkedHere } from '../linked-agent/agent-config.js';
import { ownerClient } from './owner-connection.js';

export type Actor =
  | { as: 'agent'; configPath: string }
  | {
      as: 'owner';
      dataDir?: string;
      /** The linked agent, where the owner acts because another agent was named. */
      linkedAs: string | null;
    };

export function whoActs(options: { config?: string; dataDir?: string; owner?: boolean; agentId?: string }): Actor {
  const configPath = options.config ?? defaultConfigPath();
  const owner = (linkedAs: string | null = null): Actor => ({ as: 'owner', dataDir: options.dataDir, linkedAs });
  if (options.dataDir !== undefined) return owner();
  const linked = options.config !== undefined || linkedHere(configPath);
  // Asked as the owner on a linked terminal: where no owner's connection file is here, that is said
  // as owner_only (ownerOf), not as "no running Coffer" (exit 3, to wait for) (helper 177).
  if (options.owner) return owner(linked ? linkedIdOr(configPath, 'an agent') : null);
  if (!linked) return owner();
  if (options.agentId === undefined) return { as: 'agent', configPath };
  const self = agentCredentials(configPath).agentId;
  return options.agentId === self ? { as: 'agent', configPath } : owner(self);
}

/** The linked agent's id, where its config reads; `otherwise` where it does not (the owner's brake is never held back by it). */
function linkedIdOr(configPath: string, otherwise: string): string {
  try {
    return agentCredentials(configPath).agentId;
  } catch {
    return otherwise;
  }
}

/**
 * The owner's client for an owner actor. Where the owner acts for a linked terminal that named another
 * agent and no Coffer runs in the data dir, it says so in those words: "no running Coffer" alone (exit
 * 3, to wait for) would send a script waiting for a Coffer that may well run elsewhere.
 */
export function ownerOf(actor: Extract<Actor, { as: 'owner' }>, what: string): ReturnType<typeof ownerClient> {
  try {
    return ownerClient(actor.dataDir);
  } catch (error) {
    if (actor.linkedAs === null || !(error instanceof CofferApiError)) throw error;
    throw new CofferApiError(
      403,
      'owner_only',
      `${what}: only the owner's key reaches it; this terminal is linked as ${actor.linkedAs}, and ${error.message.replace(/ \(start .*$/, '')}; run it where Coffer runs, or with --data-dir DIR`,
    );
  }
}

/**
 * The client an actor's command goes through, and the agent it is about: the linked agent's key and its
 * own id; or the owner's client and the agent named, if any (`what` names what the owner reads, for
 * `ownerOf`'s words). A command where the owner must name an agent refuses the unnamed before this.
 */
export function clientFor(actor: Actor, named: string | undefined, what: string): { api: CofferClient; agentId: string | undefined } {
  if (actor.as === 'agent') {
    const { agent, api } = linkedClient(actor.configPath);
    return { api, agentId: agent.agentId };
  }
  return { api: ownerOf(actor, what).api, agentId: named };
}

/** The linked agent of a config file, and a client with its key. */
export function linkedClient(configPath: string): { agent: ReturnType<typeof agentCredentials>; api: CofferClient } {
  const agent = agentCredentials(configPath);
  return { agent, api: keyClient(agent.url, { owner: agent.owner, key: agent.apiKey }) };
}
