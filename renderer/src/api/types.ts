import type { Dashboard } from '../../../server/client/wire-types.js';

/** The /v1 answer types, defined once beside the client (server/client/wire-types.ts, typed from the engine's results). */
export type * from '../../../server/client/wire-types.js';

/** One live agent as the dashboard lists it. */
export type DashboardAgent = Dashboard['agents'][number];
/** One archived agent as the dashboard lists it. */
export type ArchivedAgent = Dashboard['archivedAgents'][number];
