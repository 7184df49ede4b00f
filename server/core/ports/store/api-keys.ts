/** Port: API keys (stored as hashes) and what each one may act as. */
export type KeyScope = { kind: 'owner'; owner: string } | { kind: 'agent'; owner: string; agentId: string };

export interface ApiKeyStore {
  insertApiKey(hash: string, scope: KeyScope, createdAt: number): void;
  deleteApiKeys(scope: KeyScope): void;
  findApiKey(hash: string): KeyScope | null;
}
