import type { AgentRow } from '../../../server/wire/answers/agents.js';

/** The /v1 answer types the dashboard reads, as the wire declares them (server/wire/answers). */
export type * from '../../../server/wire/answers/agents.js';
export type * from '../../../server/wire/answers/approvals.js';
export type * from '../../../server/wire/answers/backup.js';
export type * from '../../../server/wire/answers/dashboard.js';
export type * from '../../../server/wire/answers/generation.js';
export type * from '../../../server/wire/answers/link-sessions.js';
export type * from '../../../server/wire/answers/payments.js';
export type * from '../../../server/wire/answers/policy.js';
export type * from '../../../server/wire/answers/registry.js';
export type * from '../../../server/wire/answers/session.js';
export type * from '../../../server/wire/answers/settings.js';
export type * from '../../../server/wire/answers/treasury.js';

/** One live agent as the dashboard lists it. */
export type DashboardAgent = AgentRow;
