/**
 * The dashboard's way to the server: the one /v1 client (server/client), signed in by the session
 * token this page holds (Authorization header, see credential.ts). No cookie is sent or needed.
 */
import { createCofferClient } from '../../../server/client/coffer-client.js';
import { createTransport } from '../../../server/client/transport.js';
import { CofferApiError } from '../../../server/client/client-error.js';
import type { MayWait } from '../../../server/client/answer.js';
import { authorization } from './credential.js';

export { CofferApiError };

/** What the page says while the server does not answer (it signs no one out: start it again). */
export const OFFLINE_MESSAGE = 'Coffer is not answering: start it again (coffer serve, or the tray app).';

const pageTransport = (owner?: string) =>
  createTransport({ base: '', owner, auth: authorization, unreachable: () => new CofferApiError(0, 'offline', OFFLINE_MESSAGE) });

/** The owner's own requests never wait for an approval: the result is the body. */
const settled = async <T>(answer: Promise<MayWait<T>>): Promise<T> => {
  const { status, body } = await answer;
  if (status === 202) throw new CofferApiError(202, 'pending_approval', 'the request waits for an approval');
  return body;
};

export function createClient(owner: string) {
  const api = createCofferClient(pageTransport(owner));
  return {
    ...api,
    deploy: (...args: Parameters<typeof api.deploy>) => settled(api.deploy(...args)),
    updatePolicy: (...args: Parameters<typeof api.updatePolicy>) => settled(api.updatePolicy(...args)),
    allocate: (...args: Parameters<typeof api.allocate>) => settled(api.allocate(...args)),
    resume: (...args: Parameters<typeof api.resume>) => settled(api.resume(...args)),
    spendHistory: (agentId: string, limit = 500) => api.spendHistory(agentId, limit),
    searchServices: (query: string) => api.searchServices(query, 100),
  };
}

export type Client = ReturnType<typeof createClient>;

const signedOut = createCofferClient(pageTransport());

export const fetchSession = () => signedOut.session();

/** Ends this page's session on the server (its token is dead at once). */
export const signOut = () => signedOut.signOut();

/** Trades a login URL's one-time token for this page's session token. */
export const signIn = (loginToken: string) => signedOut.signIn(loginToken);
