/**
 * The package's `Wire` namespace (client.ts): every /v1 answer type, as server/wire/answers declares
 * them, in one module, so an agent's code names them `Wire.Payment`, `Wire.Approval`, ...
 */
export type * from '../wire/answers/agents.js';
export type * from '../wire/answers/approvals.js';
export type * from '../wire/answers/backup.js';
export type * from '../wire/answers/chain.js';
export type * from '../wire/answers/dashboard.js';
export type * from '../wire/answers/first-start.js';
export type * from '../wire/answers/generation.js';
export type * from '../wire/answers/link-sessions.js';
export type * from '../wire/answers/payments.js';
export type * from '../wire/answers/policy.js';
export type * from '../wire/answers/registry.js';
export type * from '../wire/answers/session.js';
export type * from '../wire/answers/settings.js';
export type * from '../wire/answers/treasury.js';
export type { MayWait } from '../client/answer.js';
// The rails the answers name (`rail`, `preferredRail`, PayingFetchOptions' `rail`): `sol` and `base`.
export type { Rail } from '../wire/rails.js';
