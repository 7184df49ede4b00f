/** The /v1 answer types, defined once beside the client (server/client/wire-types.ts, typed from the engine's results). */
export type * from '../../../server/client/wire-types.js';
