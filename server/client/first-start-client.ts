// The client of a first start's /v1/first-start calls (server/http/first-start-app.ts): the setup page's, and the tests'.
import type { z } from 'zod';
import type { firstStartFileBodySchema, firstStartPhraseBodySchema } from '../wire/schemas.js';
import type { BackupFileReceived, FirstStartStatus } from '../wire/answers/first-start.js';
import { CofferApiError } from './client-error.js';
import { createTransport } from './transport.js';

export type { BackupFileReceived, FirstStartStatus };

/** `base`: the first-start server's origin ('' for the page's own); `token`: the setup token from the page's URL. */
export function createFirstStartClient(base: string, token: string, fetchImpl?: typeof fetch) {
  const transport = createTransport({
    base,
    auth: () => ({ authorization: `Bearer ${token}` }),
    unreachable: () => new CofferApiError(0, 'offline', 'Coffer is not answering: start it again.'),
    // A restore from the phrase asks the chain about up to hundreds of wallets.
    timeoutMs: 10 * 60_000,
    fetch: fetchImpl,
  });
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown) => (await transport.send<T>({ method, path, body })).body;
  return {
    status: () => call<FirstStartStatus>('GET', '/v1/first-start'),
    startNew: () => call<FirstStartStatus>('POST', '/v1/first-start/new'),
    /** Sends the backup file; answers what it says of itself (its network and date). */
    sendBackupFile: async (bytes: Blob | Uint8Array<ArrayBuffer>) =>
      (await transport.send<BackupFileReceived>({ method: 'POST', path: '/v1/first-start/backup-file', bytes })).body,
    restoreFile: (body: z.input<typeof firstStartFileBodySchema>) => call<FirstStartStatus>('POST', '/v1/first-start/restore-file', body),
    restorePhrase: (body: z.input<typeof firstStartPhraseBodySchema>) =>
      call<FirstStartStatus>('POST', '/v1/first-start/restore-phrase', body),
  };
}

export type FirstStartClient = ReturnType<typeof createFirstStartClient>;
