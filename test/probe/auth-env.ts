/**
 * What the auth matrix's checks share (auth-matrix.ts over HTTP, auth-mcp.ts through `coffer mcp`):
 * the running Coffer with its owners, agents and sessions, and the tally of escalations found.
 */
import type { Api } from './lib/http.js';
import { Examples } from './lib/report.js';
import type { Rng } from './lib/rng.js';
import type { Serve } from './lib/serve.js';
import type { DashboardSession } from './lib/session.js';
import type { ProbeWorld } from './routes.js';

export interface Agent {
  agentId: string;
  walletAddress: string;
  apiKey: string;
}

export interface AuthEnv {
  serve: Serve;
  api: Api;
  rng: Rng;
  other: { owner: string; ownerKey: string };
  alice: Agent;
  bob: Agent;
  victim: Agent;
  /** The session from a login link minted with the owner key, and the one from the URL serve printed. */
  session: DashboardSession;
  printed: DashboardSession;
  taskIds: { alice: string; victim: string };
  signature: string;
  /** Base's chain where its rail is open: x402 offers are then paid there. */
  world: ProbeWorld;
  cached: { approvalId: string | null; token: string | null; paymentId: string; emptyAgent: string | null };
  notes: string[];
}

export class Tracker {
  checks = 0;
  readonly escalations = new Examples(8);
  readonly notes: string[] = [];

  check(escalated: boolean, what: string): void {
    this.checks += 1;
    if (escalated) this.escalations.add(what);
  }
}
