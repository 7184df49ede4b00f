import type { Chain } from './ports/chain.js';
import type { Clock, KeyVault } from './ports/keys.js';
import type { ImageProvider } from './ports/image-provider.js';
import type { EventBus } from './events.js';
import type { Store } from './ports/store.js';
import type { X402Buyer } from './ports/x402.js';

/** How an MCP host launches Coffer's tool server (`coffer mcp`). */
export interface McpLaunch {
  command: string;
  args: string[];
  /** Variables the launch itself needs (the desktop app's: run its executable as plain Node). */
  env?: Record<string, string>;
}

/** Everything the core's rules talk to, all through ports it owns. */
export interface EngineContext {
  store: Store;
  chain: Chain;
  vault: KeyVault;
  clock: Clock;
  mcpLaunch: McpLaunch;
  events: EventBus;
  /** Where image generation is forwarded; null when none is configured. */
  imageProvider: ImageProvider | null;
  /** Pays x402 sellers; null where x402 names no network (the sim chain, a local cluster). */
  x402: X402Buyer | null;
  /** The /v1 server's base URL, once it listens (for mcpConfig.env). */
  baseUrl: () => string;
  /** Where the demo API (coffer demo-api) listens now beside this Coffer, if it does. */
  demoApiUrl?: () => string | null;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

export function audit(
  ctx: EngineContext,
  entry: { actor: string; owner: string; agentId?: string | null; action: string; detail?: Record<string, unknown> },
): void {
  ctx.store.appendAudit({
    at: ctx.clock.now(),
    actor: entry.actor,
    owner: entry.owner,
    agentId: entry.agentId ?? null,
    action: entry.action,
    detail: entry.detail ?? {},
  });
}
