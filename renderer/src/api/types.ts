/**
 * Response shapes, taken from the server's own view functions (type-only imports: nothing of the
 * server is bundled), so the dashboard and the API cannot drift apart.
 */
import type { dashboard } from '../../../server/core/dashboard.js';
import type { spendHistory, PaymentResult } from '../../../server/core/payments.js';
import type { deployAgent, agentBalance, listAgents, readPolicy, replaceAgentKey } from '../../../server/core/agents.js';
import type { allocate, returnFunds } from '../../../server/core/allocations.js';
import type { depositView, faucet } from '../../../server/core/treasury.js';
import type { listModels, searchServices } from '../../../server/core/registry.js';
import type { ApprovalView } from '../../../server/core/approvals.js';
import type { ResultOf } from '../../../server/core/outcome.js';
import type { describeLinkSession, waitingLinkSessions } from '../../../server/core/link-sessions.js';
import type { listTasks } from '../../../server/core/generation.js';

export type Dashboard = Awaited<ReturnType<typeof dashboard>>;
export type AgentRow = Awaited<ReturnType<typeof listAgents>>['agents'][number];
export type Activity = Dashboard['recentActivity'][number];
export type SpendHistory = ReturnType<typeof spendHistory>;
export type SpendRecord = SpendHistory['payments'][number];
/** What the owner gets back (an owner's request never waits for approval). */
export type Deployed = ResultOf<Awaited<ReturnType<typeof deployAgent>>>;
export type ReplacedKey = ReturnType<typeof replaceAgentKey>;
export type Balance = Awaited<ReturnType<typeof agentBalance>>;
export type PolicyResponse = ReturnType<typeof readPolicy>;
export type Policy = PolicyResponse['policy'];
export type Allocation = ResultOf<Awaited<ReturnType<typeof allocate>>>;
export type Returned = Awaited<ReturnType<typeof returnFunds>>;
export type Deposit = ReturnType<typeof depositView>;
export type FaucetResult = Awaited<ReturnType<typeof faucet>>;
export type SearchResult = ReturnType<typeof searchServices>;
export type Service = SearchResult['results'][number];
export type Model = ReturnType<typeof listModels>['models'][number];
export type Payment = PaymentResult;
export type Approval = ApprovalView;
export type LinkDetails = ReturnType<typeof describeLinkSession>;
export type WaitingLinkSession = ReturnType<typeof waitingLinkSessions>['sessions'][number];
export type ImageTask = ReturnType<typeof listTasks>['tasks'][number];

export interface Session {
  owner: string;
  network: string;
  usdcMint: string;
  signedInAt: string;
  expiresAt: string;
}
