import type { z } from 'zod';
import { CofferApiError, readApiAnswer } from '../../../server/http/api-answer.js';
import { authorization } from './credential.js';

export { CofferApiError };
import type {
  allocateBodySchema,
  returnBodySchema,
  deployBodySchema,
  faucetBodySchema,
  linkCompleteBodySchema,
  policyUpdateSchema,
  renameBodySchema,
} from '../../../server/core/schemas.js';
import type {
  Allocation,
  Returned,
  Approval,
  LinkDetails,
  WaitingLinkSession,
  AgentRow,
  Balance,
  Dashboard,
  Deployed,
  ReplacedKey,
  ImageTask,
  Deposit,
  FaucetResult,
  Model,
  PolicyResponse,
  SearchResult,
  Session,
  SpendHistory,
} from './types.js';

/** What the page says while the server does not answer (it signs no one out: start it again). */
export const OFFLINE_MESSAGE = 'Coffer is not answering: start it again (coffer serve, or the tray app).';

/**
 * The dashboard's only way to the server: /v1 over fetch, signed in by the session token this page
 * holds (Authorization header). No cookie is sent or needed.
 */
async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'omit',
      headers: { accept: 'application/json', ...authorization(), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new CofferApiError(0, 'offline', OFFLINE_MESSAGE);
  }
  return readApiAnswer<T>(response);
}

export function createClient(owner: string) {
  const q = (path: string, extra = '') => `${path}?owner=${encodeURIComponent(owner)}${extra}`;
  const agent = (id: string) => `/v1/agents/${encodeURIComponent(id)}`;
  return {
    dashboard: () => call<Dashboard>('GET', q('/v1/dashboard')),
    agents: () => call<{ agents: AgentRow[] }>('GET', q('/v1/agents')),
    deposits: () => call<{ deposits: Deposit[] }>('GET', q('/v1/treasury/deposits')),
    faucet: (body: z.input<typeof faucetBodySchema>) => call<FaucetResult>('POST', q('/v1/treasury/faucet'), body),
    deploy: (body: z.input<typeof deployBodySchema>) => call<Deployed>('POST', q('/v1/agents/deploy'), body),
    balance: (id: string) => call<Balance>('GET', q(`${agent(id)}/balance`)),
    policy: (id: string) => call<PolicyResponse>('GET', q(`${agent(id)}/policy`)),
    updatePolicy: (id: string, body: z.input<typeof policyUpdateSchema>) => call<PolicyResponse>('POST', q(`${agent(id)}/policy`), body),
    allocate: (id: string, body: z.input<typeof allocateBodySchema>) => call<Allocation>('POST', q(`${agent(id)}/allocate`), body),
    returnFunds: (id: string, body: z.input<typeof returnBodySchema>) => call<Returned>('POST', q(`${agent(id)}/return`), body),
    tasks: (id: string) => call<{ tasks: ImageTask[] }>('GET', q(`${agent(id)}/tasks`)),
    replaceKey: (id: string) => call<ReplacedKey>('POST', q(`${agent(id)}/key`)),
    rename: (id: string, body: z.input<typeof renameBodySchema>) => call<{ agentId: string; displayName: string }>('POST', q(`${agent(id)}/rename`), body),
    archive: (id: string) => call<{ agentId: string; status: 'archived'; archivedAt: string }>('POST', q(`${agent(id)}/archive`)),
    kill: (id: string) => call<{ agentId: string; status: string }>('POST', q(`${agent(id)}/kill`)),
    resume: (id: string) => call<{ agentId: string; status: string }>('POST', q(`${agent(id)}/resume`)),
    killAll: () => call<{ suspended: string[] }>('POST', q('/v1/kill-all')),
    resumeAll: () => call<{ resumed: string[] }>('POST', q('/v1/resume-all')),
    spendHistory: (id: string, limit = 500) => call<SpendHistory>('GET', q(`${agent(id)}/spend-history`, `&limit=${limit}`)),
    approvals: (status?: string) => call<{ approvals: Approval[] }>('GET', q('/v1/approvals', status ? `&status=${status}` : '')),
    approve: (id: string) => call<Approval>('POST', q(`/v1/approvals/${encodeURIComponent(id)}/approve`)),
    deny: (id: string) => call<Approval>('POST', q(`/v1/approvals/${encodeURIComponent(id)}/deny`)),
    linkDetails: (token: string) => call<LinkDetails>('GET', q(`/v1/link-sessions/${encodeURIComponent(token)}/details`)),
    linkRequests: () => call<{ sessions: WaitingLinkSession[] }>('GET', q('/v1/link-sessions')),
    clearLinkRequests: (ids?: string[]) => call<{ cleared: number }>('POST', q('/v1/link-sessions/clear'), ids === undefined ? {} : { ids }),
    denyLink: (token: string) => call<{ status: 'denied' }>('POST', q(`/v1/link-sessions/${encodeURIComponent(token)}/deny`)),
    completeLink: (token: string, body: z.input<typeof linkCompleteBodySchema>) =>
      call<{ status: 'completed'; agentId: string; funding?: Deployed['funding'] }>('POST', q(`/v1/link-sessions/${encodeURIComponent(token)}/complete`), body),
    eventsUrl: () => q('/v1/events'),
    searchServices: (query: string) => call<SearchResult>('GET', `/v1/services/search?q=${encodeURIComponent(query)}&limit=100`),
    models: () => call<{ models: Model[] }>('GET', '/v1/models'),
  };
}

export type Client = ReturnType<typeof createClient>;

export const fetchSession = () => call<Session>('GET', '/v1/session');

/** Trades a login URL's one-time token for this page's session token. */
export const signIn = (loginToken: string) => call<Session & { sessionToken: string }>('POST', '/v1/session', { loginToken });
