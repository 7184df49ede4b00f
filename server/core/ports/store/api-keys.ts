/** Port: API keys (stored as hashes) and what each one may act as. */
export type KeyScope = { kind: 'owner'; owner: string } | { kind: 'agent'; owner: string; agentId: string };

/** Why keys stopped working: their agent archived, or a new key made in their place; and when. */
export type KeyRevocation = { reason: 'archived' | 'replaced'; at: number };

/** A key that worked once, as its revocation left it: what it acted as, and why it stopped. */
export type RevokedKey = KeyScope & KeyRevocation;

export interface ApiKeyStore {
  insertApiKey(hash: string, scope: KeyScope, createdAt: number): void;
  /** Every key of the scope stops working at once; each is kept as revoked, so its holder is told why. */
  revokeApiKeys(scope: KeyScope, revocation: KeyRevocation): void;
  findApiKey(hash: string): KeyScope | null;
  /** A key revoked, with why; null for one never issued here (nothing is said of it). */
  findRevokedApiKey(hash: string): RevokedKey | null;
}
